import XCTest
@testable import GPUStyle

/// `ArbitraryStyle`: the peer's style preprocessing (centre square, PIL LANCZOS to 256x256)
/// against PIL's own output, and the style vector of a whole picture against onnxruntime's on
/// PIL's preparation (tools/make_arbitrary_style_fixtures.py), on the CPU path and on Vulkan.
final class ArbitraryStyleTests: GraphOpTestCase {
    static var root: URL { Fixtures.root.appendingPathComponent("arbitrary-style") }

    func testStyleInputMatchesPIL() throws {
        let source = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        XCTAssertEqual([source.width, source.height], [150, 100])
        let pil = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_style.png").path)
        let ours = ArbitraryStyle.styleInput(source)
        XCTAssertEqual(ours.count, pil.rgb.count)
        let levels = zip(ours, pil.rgb).map { Int((abs($0 - $1) * 255).rounded()) }
        let off = levels.filter { $0 > 0 }.count
        print("style input vs PIL LANCZOS: \(off) of \(levels.count) values a level off, at most \(levels.max()!)")
        XCTAssertLessThanOrEqual(levels.max()!, 1)
        XCTAssertLessThanOrEqual(Double(off) / Double(levels.count), 0.01)
    }

    func testStyleVectorOfAPicture() throws {
        let source = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        let expected = try Fixtures.tensors("arbitrary-style/vectors.gpsw")["preprocess_vector"]!.values
        try forEachBackend { backend, name in
            let vector = try ArbitraryStyle(backend: backend).styleVector(source)
            XCTAssertEqual(vector.count, ArbitraryStyle.vectorLength)
            let worst = zip(vector, expected).map { abs($0 - $1) }.max()!
            print("style vector of a picture, \(name): max |diff| \(worst) from onnxruntime on PIL's preparation")
            XCTAssertLessThanOrEqual(worst, 2 * ArbitraryStyleParityTests.vectorQuantum * 1.01, name)
        }
        let float = try ArbitraryStyle(backend: CPUBackend(weights: []), quantization: .float).styleVector(source)
        XCTAssertEqual(float.count, ArbitraryStyle.vectorLength)
    }

    /// Opt-in (GPUSTYLE_ARBITRARY_BENCH=1): the predictor's time per style image, median of 7
    /// after a warm-up, with and without its fake quantisations. It measures, it checks nothing.
    func testPredictorTiming() throws {
        guard ProcessInfo.processInfo.environment["GPUSTYLE_ARBITRARY_BENCH"] == "1" else {
            throw XCTSkip("set GPUSTYLE_ARBITRARY_BENCH=1 to measure")
        }
        let input = try ArbitraryStyleParityTests.doubledInput("style_00.png").tensor
        try forEachBackend { backend, name in
            for mode in [ONNXImporter.Quantization.fakeQuantize, .float] {
                let style = try ArbitraryStyle(backend: backend, quantization: mode)
                _ = try style.styleVector(input: input)
                var times: [Double] = []
                for _ in 0..<7 {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try style.styleVector(input: input)
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                print("arbitrary style predictor \(name) \(mode): median \(times.sorted()[3]) ms")
            }
            let transform = try ModelLibrary.builtin("arbitrary_transform")
            let plan = try GraphLowering.lower(transform.graph, input: .init(channels: 3, height: 384, width: 384))
            let content = try ArbitraryStyleParityTests.paddedContent(0).tensor
            let vector = [Float](repeating: 0.5, count: 100)
            var times: [Double] = []
            for _ in 0..<4 {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try backend.run(plan, inputs: [.input: content, .parameters: vector], normParameters: [], affine: nil,
                                    outputs: [.result])
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print("arbitrary style transform 384x384 \(name): median of 3 after a warm-up \(times.dropFirst().sorted()[1]) ms")
        }
    }
}
