import Foundation

/// Images placed over a face's regions, as the face-masking app the issue describes does: each
/// mask centred on its region, stretched to the region's extent along and across the eye line,
/// turned with the eye line, composited with its alpha.
public enum FaceMasking {
    /// Where a mask goes: its centre, its size along the eye line (`width`) and across it, and the
    /// eye line's angle (radians, from the image's x axis towards y, down).
    public struct Placement: Sendable, Equatable {
        public var centre: Point
        public var width: Double
        public var height: Double
        public var rotation: Double
    }

    /// A mask is drawn this much larger than its region's extent: a region's points lie on the
    /// feature's edge (an eye's contour is the lid line), a mask covering it needs a margin.
    public static let margin = 1.2

    /// The angle of the line from the left eye's centre to the right eye's (the mesh's eyes:
    /// steadier than the detector's two points).
    public static func rotation(of mesh: FaceMesh) -> Double {
        let l = Point.mean(mesh.points(of: .leftEye)), r = Point.mean(mesh.points(of: .rightEye))
        return atan2(r.y - l.y, r.x - l.x)
    }

    /// The placement for `region` (pupils take their eye's height as their size).
    public static func placement(of region: FaceRegion, in mesh: FaceMesh) -> Placement? {
        let rotation = rotation(of: mesh)
        let points = mesh.points(of: region.pupilOf ?? region)
        guard points.count >= 2 else { return nil }
        let c = cos(rotation), s = sin(rotation)
        let middle = Point.mean(points)
        // The points in the eye line's frame.
        let local = points.map { p in ((p.x - middle.x) * c + (p.y - middle.y) * s, -(p.x - middle.x) * s + (p.y - middle.y) * c) }
        let x0 = local.map(\.0).min()!, x1 = local.map(\.0).max()!, y0 = local.map(\.1).min()!, y1 = local.map(\.1).max()!
        var width = (x1 - x0) * margin, height = (y1 - y0) * margin
        let mx = (x0 + x1) / 2, my = (y0 + y1) / 2
        var centre = Point(x: middle.x + mx * c - my * s, y: middle.y + mx * s + my * c)
        if region.pupilOf != nil {
            centre = middle  // the pupil: its eye's centre (`FaceMesh.points(of:)`)
            width = height
        }
        guard width > 0, height > 0 else { return nil }
        return Placement(centre: centre, width: width, height: height, rotation: rotation)
    }

    /// `image` with each face's regions covered by their masks (faces without a mesh untouched).
    public static func apply(_ masks: [FaceRegion: Image], meshes: [FaceMesh?], on image: Image) -> Image {
        var out = image
        for mesh in meshes.compactMap({ $0 }) {
            // The face's oval first, so the features are drawn over it.
            for region in [FaceRegion.faceContour] + FaceRegion.allCases.filter({ $0 != .faceContour }) {
                guard let mask = masks[region], let placement = placement(of: region, in: mesh) else { continue }
                draw(mask, at: placement, on: &out)
            }
        }
        return out
    }

    /// Composites `mask` (its alpha, or opaque without one) at `placement`, sampled bilinearly.
    public static func draw(_ mask: Image, at placement: Placement, on image: inout Image) {
        let c = cos(placement.rotation), s = sin(placement.rotation)
        let hw = placement.width / 2, hh = placement.height / 2
        // The turned rectangle's bounding box in the photo.
        let reach = abs(hw * c) + abs(hh * s), reachY = abs(hw * s) + abs(hh * c)
        // Bounds checked before a range is made: a mask wholly off the photo (a region of a face at
        // its edge) draws nothing, where `lower...upper` with lower > upper would trap.
        let left = max(0, Int((placement.centre.x - reach).rounded(.down)))
        let right = min(image.width - 1, Int((placement.centre.x + reach).rounded(.up)))
        let top = max(0, Int((placement.centre.y - reachY).rounded(.down)))
        let bottom = min(image.height - 1, Int((placement.centre.y + reachY).rounded(.up)))
        guard left <= right, top <= bottom else { return }
        let xs = left...right, ys = top...bottom
        let plane = image.pixelCount, maskPlane = mask.pixelCount
        let sx = Double(mask.width) / placement.width, sy = Double(mask.height) / placement.height
        for y in ys {
            for x in xs {
                // The pixel's centre in the mask's frame, then in mask pixels.
                let dx = Double(x) + 0.5 - placement.centre.x, dy = Double(y) + 0.5 - placement.centre.y
                let u = (dx * c + dy * s + hw) * sx - 0.5, v = (-dx * s + dy * c + hh) * sy - 0.5
                guard u > -1, v > -1, u < Double(mask.width), v < Double(mask.height) else { continue }
                let u0 = Int(u.rounded(.down)), v0 = Int(v.rounded(.down))
                let fu = Float(u - Double(u0)), fv = Float(v - Double(v0))
                // Alpha-weighted bilinear sample (transparent texels add no colour).
                var rgb: (Float, Float, Float) = (0, 0, 0)
                var alpha: Float = 0
                for (du, dv, w) in [(0, 0, (1 - fu) * (1 - fv)), (1, 0, fu * (1 - fv)), (0, 1, (1 - fu) * fv), (1, 1, fu * fv)] {
                    let mu = u0 + du, mv = v0 + dv
                    guard w > 0, mu >= 0, mv >= 0, mu < mask.width, mv < mask.height else { continue }
                    let i = mv * mask.width + mu
                    let a = (mask.alpha?[i] ?? 1) * w
                    alpha += a
                    rgb.0 += a * mask.rgb[i]
                    rgb.1 += a * mask.rgb[maskPlane + i]
                    rgb.2 += a * mask.rgb[2 * maskPlane + i]
                }
                guard alpha > 0 else { continue }
                let i = y * image.width + x
                image.rgb[i] = rgb.0 + (1 - alpha) * image.rgb[i]
                image.rgb[plane + i] = rgb.1 + (1 - alpha) * image.rgb[plane + i]
                image.rgb[2 * plane + i] = rgb.2 + (1 - alpha) * image.rgb[2 * plane + i]
            }
        }
    }
}
