import Foundation
@testable import GPUStyle

/// Synthetic video for `QuadTracker`: a real photo (examples/photo.png, 600×400) placed by a
/// known homography over a still wall (a crop of a bundled 1280×720 brick-wall scene), so the
/// picture's true quad is known in every frame.
///
/// A camera does not sample a scene at points: its lens blurs (a point spreads over about a
/// pixel) and each pixel integrates light over its area. Drawn naively (bilinear, once per
/// pixel), the photo's fine texture would alias and change from frame to frame with the
/// sub-pixel placement, which no real video does. So the photo is blurred once (σ = 1 photo
/// pixel, about half a frame pixel at the scales used), frames are drawn at twice the size and
/// box-reduced.
struct TrackingScene {
    let width: Int
    let height: Int
    let picture: Image
    /// The wall at twice the frame size.
    let background: Image
    /// Frame coordinates to the twice-as-large drawing's (pixel centres at integers in both).
    static let toDrawing = Homography(matrix: [2, 0, 0.5, 0, 2, 0.5, 0, 0, 1])

    /// examples/photo.png.
    static func photo() throws -> Image {
        try ImageIO.read(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/photo.png").standardized.path)
    }

    /// examples/sudoku.png: content unrelated to the photo.
    static func sudoku() throws -> Image {
        try ImageIO.read(path: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/sudoku.png").standardized.path)
    }

    static func fixture(_ name: String) throws -> Image {
        try ImageIO.read(path: Fixtures.root.appendingPathComponent(name).path)
    }

    init(width: Int = 640, height: Int = 480) throws {
        self.width = width
        self.height = height
        picture = Self.blurred(try Self.photo(), sigma: 1)
        // A negative scene (no rectangle in it) of a brick wall, cropped at native scale.
        let wall = try Self.fixture("rectangles/042.jpg")
        let dx = Double(min(60, wall.width - width)), dy = Double(min(40, wall.height - height))
        let drawingToWall = Homography.translation(dx, dy).composed(after: Self.toDrawing.inverse)
        background = try CPUPerspectiveWarper().warp(wall, outputToSource: drawingToWall, width: 2 * width, height: 2 * height)
    }

    /// Separable Gaussian blur, borders clamped.
    static func blurred(_ image: Image, sigma: Double) -> Image {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        let w = image.width, h = image.height
        var out = image.rgb, temporary = image.rgb
        for c in 0..<3 {
            let base = c * w * h
            for y in 0..<h {
                for x in 0..<w {
                    var sum: Float = 0
                    for k in -radius...radius { sum += kernel[k + radius] * image.rgb[base + y * w + min(max(x + k, 0), w - 1)] }
                    temporary[base + y * w + x] = sum
                }
            }
            for y in 0..<h {
                for x in 0..<w {
                    var sum: Float = 0
                    for k in -radius...radius { sum += kernel[k + radius] * temporary[base + min(max(y + k, 0), h - 1) * w + x] }
                    out[base + y * w + x] = sum
                }
            }
        }
        return Image(width: w, height: h, rgb: out)
    }

    /// Picture pixel centres of its four corners.
    var pictureCorners: [Point] {
        let w = Double(picture.width - 1), h = Double(picture.height - 1)
        return [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)]
    }

    /// Picture → frame: translate the picture's centre to (cx, cy) after a perspective tilt
    /// (px, py per picture pixel), scale and rotation (degrees) about it.
    func placement(cx: Double, cy: Double, scale: Double, degrees: Double, px: Double = 0, py: Double = 0) -> Homography {
        let a = degrees * Double.pi / 180
        let centre = Homography.translation(-Double(picture.width - 1) / 2, -Double(picture.height - 1) / 2)
        let tilt = Homography(matrix: [1, 0, 0, 0, 1, 0, px, py, 1])
        let similarity = Homography(matrix: [scale * cos(a), -scale * sin(a), cx, scale * sin(a), scale * cos(a), cy, 0, 0, 1])
        return similarity.composed(after: tilt.composed(after: centre))
    }

    func quad(_ placement: Homography) -> Quad {
        Quad(corners: pictureCorners.map { placement.apply($0) })
    }

    /// The wall with `content` (the picture unless given) drawn through `placement`, then each
    /// occluder (an image and its image → frame homography) on top.
    func frame(_ placement: Homography, content: Image? = nil, occluders: [(Image, Homography)] = [],
               exposure: Float = 1) throws -> Image {
        let content = content ?? picture
        // Content of another size fills the same quad.
        let fit = try Homography.rectangle(width: content.width, height: content.height, to: quad(placement))
        var image = try draw(content, Self.toDrawing.composed(after: fit), over: background)
        for (occluder, mapping) in occluders { image = try draw(occluder, Self.toDrawing.composed(after: mapping), over: image) }
        var frame = image.downscaled(toFit: max(width, height))
        if exposure != 1 { frame.rgb = frame.rgb.map { min($0 * exposure, 1) } }
        return frame
    }

    private func draw(_ content: Image, _ mapping: Homography, over image: Image) throws -> Image {
        let w = Double(content.width - 1), h = Double(content.height - 1)
        let quad = Quad(corners: [Point(x: 0, y: 0), Point(x: w, y: 0), Point(x: w, y: h), Point(x: 0, y: h)].map { mapping.apply($0) })
        let mask = try QuadMask(quad: quad, feather: 1)
        let region = mask.region(width: image.width, height: image.height)
        guard region.width > 0, region.height > 0 else { return image }
        // Bicubic: bilinear interpolation shifts fine texture by a little less or more than the
        // sub-pixel offset asked for, a bias no camera has.
        let drawn = try CPUPerspectiveWarper().warp(content, outputToSource: mapping.inverse, width: region.width,
                                                    height: region.height, originX: region.x, originY: region.y,
                                                    interpolation: .bicubic)
        return mask.composite(drawn, region: region, over: image)
    }

    /// Largest corner distance between two quads.
    static func cornerError(_ a: Quad, _ b: Quad) -> Double {
        zip(a.corners, b.corners).map { $0.distance(to: $1) }.max()!
    }
}
