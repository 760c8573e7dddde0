import XCTest
@testable import GPUStyle

/// The GLSL warp kernel against the CPU kernel (max abs diff ≤ 2/255) and the numpy fixtures,
/// with the validation layer on.
final class WarpVulkanTests: VulkanTestCase {
    func testMatchesCPUKernelAndReference() throws {
        let gpu = try VulkanPerspectiveWarper(context: context)
        let cpu = CPUPerspectiveWarper()
        for c in try WarpFixtures.load() {
            for interpolation in WarpInterpolation.allCases {
                let g = try gpu.warp(c.source, outputToSource: c.matrix, width: c.width, height: c.height,
                                     originX: c.originX, originY: c.originY, interpolation: interpolation)
                let k = try cpu.warp(c.source, outputToSource: c.matrix, width: c.width, height: c.height,
                                     originX: c.originX, originY: c.originY, interpolation: interpolation)
                XCTAssertEqual(g.alpha == nil, c.source.alpha == nil)
                assertClose(WarpFixtures.planes(g), WarpFixtures.planes(k), tolerance: 2 / 255, "\(c.name) \(interpolation) GLSL vs CPU")
                let reference = interpolation == .bilinear ? c.bilinear : c.bicubic
                // lavapipe measures ~1e-5; a little room for GPUs' less exact division.
                assertClose(WarpFixtures.planes(g), reference, tolerance: 5e-4, "\(c.name) \(interpolation) GLSL vs numpy")
            }
        }
    }

    /// One dispatch per plane (bindings forced small), and a rectification of photo size.
    func testPlaneChunksAndPhotoSize() throws {
        let gpu = try VulkanPerspectiveWarper(context: context)
        let source = WarpFixtures.procedural(width: 1920, height: 1080)
        let quad = Quad(topLeft: Point(x: 212.3, y: 101.7), topRight: Point(x: 1790.4, y: 155.1),
                        bottomRight: Point(x: 1761.2, y: 1002.9), bottomLeft: Point(x: 180.8, y: 1040.2))
        let whole = try PerspectiveCorrection.rectify(source, quad: quad, width: 1024, height: 768, warper: gpu)
        let cpu = try PerspectiveCorrection.rectify(source, quad: quad, width: 1024, height: 768)
        assertClose(whole.rgb, cpu.rgb, tolerance: 2 / 255, "1080p -> 1024x768 GLSL vs CPU")
        gpu.maxBindingBytes = 4 * roundUp(1920 * 1080, 64)
        let chunked = try PerspectiveCorrection.rectify(source, quad: quad, width: 1024, height: 768, warper: gpu)
        XCTAssertEqual(chunked.rgb, whole.rgb)
    }

    /// The in-place pipeline with the GLSL warps gives the CPU warps' result.
    func testInPlaceWithGLSLWarps() throws {
        let photo = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/astronaut.png").path)
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: CPUBackend(weights: model.convolutions))
        let mix = try StyleMix(parsing: "2")
        let gpu = try InPlaceStylizer(stylizer: stylizer, warper: try VulkanPerspectiveWarper(context: context))
            .stylize(photo, in: InPlaceTests.quad, mix: mix)
        let cpu = try InPlaceStylizer(stylizer: stylizer).stylize(photo, in: InPlaceTests.quad, mix: mix)
        assertClose(gpu.image.rgb, cpu.image.rgb, tolerance: 2 / 255, "in place: GLSL warps vs CPU warps")
    }
}
