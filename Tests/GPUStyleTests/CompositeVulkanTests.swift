import Foundation
import XCTest
@testable import GPUStyle

/// The GLSL composite kernel (back-warp + feathered blend in one dispatch) against the CPU path
/// (the warp + `QuadMask.composite`), with the validation layer on.
final class CompositeVulkanTests: VulkanTestCase {
    /// Tilted, with its top-left corner left of the photo and its bottom-left below it.
    static let quad = Quad(topLeft: Point(x: -40.3, y: 60.7), topRight: Point(x: 380.6, y: 12.2),
                           bottomRight: Point(x: 452.9, y: 330.4), bottomLeft: Point(x: 20.1, y: 425.8))

    /// examples/photo.png (600×400), a real photo.
    static func photo() throws -> Image {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/photo.png").standardized.path
        return try ImageIO.read(path: path)
    }

    /// The photo with a made-up alpha plane (the composite must pass it through untouched).
    static func withAlpha(_ image: Image) -> Image {
        let alpha = (0..<image.pixelCount).map { Float(($0 * 7919) % 256) / 255 }
        return Image(width: image.width, height: image.height, rgb: image.rgb, alpha: alpha)
    }

    func testMatchesCPUPathOnPhoto() throws {
        let plain = try Self.photo()
        let overlayPlain = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/chelsea.png").path)
        let region = try QuadMask(quad: Self.quad).region(width: plain.width, height: plain.height)
        XCTAssertTrue(region.x == 0 && region.y + region.height == plain.height, "the quad must be clipped by the photo: \(region)")
        let gpu = VulkanQuadCompositor(context: context)
        let cpu = CPUQuadCompositor()
        for alpha in [false, true] {
            let photo = alpha ? Self.withAlpha(plain) : plain
            let overlay = alpha ? Self.withAlpha(overlayPlain) : overlayPlain
            let photoToOverlay = try Homography.rectangle(width: overlay.width, height: overlay.height, to: Self.quad).inverse
            for feather in [1.0, 1.5] {
                let what = "feather \(feather)\(alpha ? " alpha" : "")"
                let mask = try QuadMask(quad: Self.quad, feather: feather)
                let g = try gpu.composite(overlay, photoToOverlay: photoToOverlay, mask: mask, over: photo)
                let c = try cpu.composite(overlay, photoToOverlay: photoToOverlay, mask: mask, over: photo)
                XCTAssertEqual(g.alpha, photo.alpha, "\(what): alpha is the photo's")
                let stats = Self.compare(g, c, photo: photo, mask: mask, what: what)
                print("composite GLSL vs CPU, \(what): max abs diff \(stats.maxDiff), ramp pixels \(stats.ramp), untouched \(stats.untouched)")
                XCTAssertLessThanOrEqual(stats.maxDiff, 2 / 255, what)
                XCTAssertGreaterThan(stats.ramp, 1000, "\(what): the test must cover the feathered edge")
                XCTAssertGreaterThan(stats.untouched, 20000, "\(what): and pixels the blend must leave alone")
            }
        }
    }

    /// What the comparison found: largest RGB difference, pixels on the ramp, pixels that must
    /// be the photo's exactly.
    struct Stats {
        var maxDiff: Float = 0
        var ramp = 0
        var untouched = 0
    }

    /// GLSL vs CPU everywhere (max abs diff), and bit-exact photo pixels outside the region and
    /// wherever the mask's coverage is 0. A float shader and the Double mask can disagree only
    /// for pixels within float rounding (~1e-4 px) of the ramp's outer end, hence the margin.
    static func compare(_ g: Image, _ c: Image, photo: Image, mask: QuadMask, what: String) -> Stats {
        let w = photo.width, h = photo.height, n = w * h
        let region = mask.region(width: w, height: h)
        var stats = Stats()
        var changed = 0, firstChanged = ""
        for y in 0..<h {
            for x in 0..<w {
                let inRegion = x >= region.x && x < region.x + region.width && y >= region.y && y < region.y + region.height
                let d = mask.signedDistance(x: Double(x), y: Double(y))
                let untouched = !inRegion || d <= -mask.feather / 2 - 1e-3
                if untouched { stats.untouched += 1 }
                if abs(d) < mask.feather / 2 { stats.ramp += 1 }
                for ch in 0..<3 {
                    let i = ch * n + y * w + x
                    let diff = abs(g.rgb[i] - c.rgb[i])
                    if !(diff <= stats.maxDiff) { stats.maxDiff = diff }  // NaN too
                    if untouched && g.rgb[i].bitPattern != photo.rgb[i].bitPattern {
                        if changed == 0 { firstChanged = "(\(x), \(y)) channel \(ch): \(g.rgb[i]) vs \(photo.rgb[i]), d = \(d)" }
                        changed += 1
                    }
                }
            }
        }
        XCTAssertEqual(changed, 0, "\(what): values that must be the photo's differ, first at \(firstChanged)")
        return stats
    }

    /// Where coverage is 1 the fused kernel gives the GLSL warp's value: both run warp_bilinear.glsl.
    func testInsideEqualsGLSLWarp() throws {
        let photo = try Self.photo()
        let overlay = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/chelsea.png").path)
        let photoToOverlay = try Homography.rectangle(width: overlay.width, height: overlay.height, to: Self.quad).inverse
        let mask = try QuadMask(quad: Self.quad)
        let region = mask.region(width: photo.width, height: photo.height)
        let composite = try VulkanQuadCompositor(context: context).composite(overlay, photoToOverlay: photoToOverlay, mask: mask, over: photo)
        let warped = try VulkanPerspectiveWarper(context: context).warp(overlay, outputToSource: photoToOverlay, width: region.width,
                                                                        height: region.height, originX: region.x, originY: region.y)
        var inside = 0, worst: Float = 0
        for j in 0..<region.height {
            for i in 0..<region.width {
                let x = region.x + i, y = region.y + j
                guard mask.signedDistance(x: Double(x), y: Double(y)) >= mask.feather / 2 + 1e-3 else { continue }
                inside += 1
                for c in 0..<3 {
                    let d = abs(composite.rgb[(c * photo.height + y) * photo.width + x] - warped.rgb[(c * region.height + j) * region.width + i])
                    if !(d <= worst) { worst = d }
                }
            }
        }
        print("composite vs GLSL warp inside the quad: \(inside) pixels, max abs diff \(worst)")
        XCTAssertGreaterThan(inside, 50000)
        XCTAssertEqual(worst, 0, "inside the quad the composite is the warp")
    }

    /// One dispatch per plane (bindings forced small) gives the same result; a quad beside the
    /// photo leaves it untouched.
    func testPlaneChunksAndEmptyRegion() throws {
        let photo = try Self.photo()
        let overlay = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/coffee.png").path)
        let photoToOverlay = try Homography.rectangle(width: overlay.width, height: overlay.height, to: Self.quad).inverse
        let mask = try QuadMask(quad: Self.quad, feather: 1.5)
        let gpu = VulkanQuadCompositor(context: context)
        let whole = try gpu.composite(overlay, photoToOverlay: photoToOverlay, mask: mask, over: photo)
        let region = mask.region(width: photo.width, height: photo.height)
        gpu.maxBindingBytes = 4 * roundUp(max(region.width * region.height, overlay.pixelCount), 64)
        let chunked = try gpu.composite(overlay, photoToOverlay: photoToOverlay, mask: mask, over: photo)
        XCTAssertEqual(chunked.rgb, whole.rgb)
        XCTAssertNotEqual(whole.rgb, photo.rgb)

        let beside = Quad(topLeft: Point(x: 700, y: 10), topRight: Point(x: 800, y: 20), bottomRight: Point(x: 790, y: 120),
                          bottomLeft: Point(x: 705, y: 110))
        let besideMask = try QuadMask(quad: beside)
        let untouched = try gpu.composite(overlay, photoToOverlay: try Homography.rectangle(width: overlay.width, height: overlay.height, to: beside).inverse,
                                          mask: besideMask, over: photo)
        XCTAssertEqual(untouched.rgb, photo.rgb)
    }

    /// The whole in-place pipeline on the Vulkan backend (GLSL network, warp and composite) vs
    /// the CPU backend. The network's own CPU/GLSL agreement is 1e-3 (VulkanNetworkTests), well
    /// inside the 2/255 allowed here, so the bound holds everywhere.
    func testInPlaceVulkanVsCPU() throws {
        let photo = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/astronaut.png").path)
        let model = try StyleModel.bundled()
        let mix = try StyleMix(parsing: "2")
        let quad = InPlaceTests.quad
        let vulkan = InPlaceStylizer(stylizer: Stylizer(model: model, backend: try VulkanBackend(context: context, weights: model.convolutions)),
                                     warper: try VulkanPerspectiveWarper(context: context))
        let cpu = InPlaceStylizer(stylizer: Stylizer(model: model, backend: CPUBackend(weights: model.convolutions)))
        XCTAssertTrue(vulkan.compositor is VulkanQuadCompositor, vulkan.compositor.name)
        XCTAssertTrue(cpu.compositor is CPUQuadCompositor, cpu.compositor.name)
        let g = try vulkan.stylize(photo, in: quad, mix: mix)
        let c = try cpu.stylize(photo, in: quad, mix: mix)
        XCTAssertEqual(g.image.alpha == nil, c.image.alpha == nil)

        // The network alone on the same rectified picture, for the record.
        let rectified = try PerspectiveCorrection.rectify(photo, quad: quad, width: c.rectifiedWidth, height: c.rectifiedHeight)
        let networkDiff = zip(try vulkan.stylizer.stylize(rectified, mix: mix).rgb, try cpu.stylizer.stylize(rectified, mix: mix).rgb)
            .map { abs($0 - $1) }.max() ?? 0
        let stats = Self.compare(g.image, c.image, photo: photo, mask: try QuadMask(quad: quad, feather: vulkan.feather), what: "in place")
        print("in place Vulkan vs CPU: max abs diff \(stats.maxDiff) (network alone \(networkDiff)), untouched \(stats.untouched)")
        XCTAssertLessThanOrEqual(networkDiff, 1e-3)
        XCTAssertLessThanOrEqual(stats.maxDiff, 2 / 255)
        XCTAssertGreaterThan(stats.untouched, 5000)
    }
}
