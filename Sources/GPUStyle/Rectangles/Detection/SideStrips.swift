import Foundation

/// A mean RGB colour, 0...1 per channel.
struct MeanColour {
    var r: Double, g: Double, b: Double

    func distance(to other: MeanColour) -> Double {
        let dr = r - other.r, dg = g - other.g, db = b - other.b
        return (dr * dr + dg * dg + db * db).squareRoot()
    }
}

/// Colours of thin strips along a quad's sides, read from the full-resolution photo. Edges say
/// where boundaries are; what lies just inside and just outside them says which boundary is the
/// outline: a frame's moulding looks the same all round, and so, mostly, does the wall.
enum SideStrips {
    /// Mean colour of the strip between offsets d0 and d1 (working pixels, positive outward)
    /// along side i→i+1 of a clockwise quad in working coordinates, over the side's middle 84%
    /// (`DetectBands.forEachStep`); nil when the strip lies outside the photo.
    static func mean(_ corners: [Point], side i: Int, from d0: Double, to d1: Double, map: EdgeMap, image: Image) -> MeanColour? {
        let a = corners[i], b = corners[(i + 1) % 4], n = DetectBands.outward(a, b)
        let plane = image.width * image.height
        var sum = MeanColour(r: 0, g: 0, b: 0), count = 0.0
        DetectBands.forEachStep(from: a, to: b, map: map) { p in
            var d = d0
            while d <= d1 {
                let q = map.toImage(p + n * d)
                let x = nearestInt(q.x), y = nearestInt(q.y)
                if x >= 0, y >= 0, x < image.width, y < image.height {
                    let k = y * image.width + x
                    sum.r += Double(image.rgb[k]); sum.g += Double(image.rgb[plane + k]); sum.b += Double(image.rgb[2 * plane + k])
                    count += 1
                }
                d += 0.5
            }
        }
        guard count > 0 else { return nil }
        return MeanColour(r: sum.r / count, g: sum.g / count, b: sum.b / count)
    }

    /// Whether `colour` is nearer (in the nearest of each set) to the strips just outside the
    /// quad's other sides than to the strips just inside them: wall rather than frame. Nearest
    /// rather than average, because a wall behind a picture is rarely one colour all round.
    static func looksLikeOutside(_ colour: MeanColour, inside: [MeanColour], outside: [MeanColour]) -> Bool {
        guard let toInside = inside.map({ colour.distance(to: $0) }).min(),
              let toOutside = outside.map({ colour.distance(to: $0) }).min() else { return true }
        return toOutside < toInside
    }

    /// The strips from d0 to d1 just inside and just outside every side but `side`.
    static func others(_ corners: [Point], except side: Int, from d0: Double, to d1: Double, map: EdgeMap,
                       image: Image) -> (inside: [MeanColour], outside: [MeanColour]) {
        var inside: [MeanColour] = [], outside: [MeanColour] = []
        for j in 0..<4 where j != side {
            if let u = mean(corners, side: j, from: -d1, to: -d0, map: map, image: image) { inside.append(u) }
            if let v = mean(corners, side: j, from: d0, to: d1, map: map, image: image) { outside.append(v) }
        }
        return (inside, outside)
    }
}
