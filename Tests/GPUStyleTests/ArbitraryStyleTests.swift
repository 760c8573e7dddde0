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

    /// `stylize` on a 384x384 photo (no resize either way) is the transform on it, rounded to 8
    /// bits as the peer rounds: identical to running the plan directly; its distance from
    /// onnxruntime's output for the first pair is printed (pair 0 is the fixtures' most chaotic:
    /// onnxruntime against itself with its weight scales one ulp up moves 5.9/255 there).
    func testStylizeAtTheTransformSize() throws {
        let (content, w, h) = try ArbitraryStyleParityTests.doubledInput("content_00.png")
        XCTAssertEqual([w, h], [384, 384])
        let photo = Image(width: w, height: h, rgb: content)
        let vector = Array(try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!.values[0..<100])
        let expected = try ImageIO.read(path: Self.root.appendingPathComponent("output_00.png").path)
        let out = try ArbitraryStyle(backend: CPUBackend(weights: [])).stylize(photo, styleVector: vector)
        XCTAssertEqual([out.width, out.height], [384, 384])
        // The peer writes (x * 255 + 0.5) truncated; onnxruntime's raw output is k / 256.
        let reference = expected.rgb.map { v -> Float in
            let k = (v * 255).rounded() / 256
            return (min(max(k, 0), 1) * 255 + 0.5).rounded(.down) / 255
        }
        let mean = zip(out.rgb, reference).map { abs($0 - $1) }.reduce(0, +) / Float(reference.count)
        print("stylize at 384x384 vs onnxruntime: mean |diff| \(mean * 255)/255")
        let model = try ModelLibrary.builtin("arbitrary_transform")
        let plan = try GraphLowering.lower(model.graph, input: .init(channels: 3, height: 384, width: 384))
        let direct = try CPUBackend(weights: []).run(plan, inputs: [.input: content, .parameters: vector], normParameters: [],
                                                     affine: nil, outputs: [.result])[.result]!
        XCTAssertEqual(out.rgb, direct.map { (min(max($0, 0), 1) * 255 + 0.5).rounded(.down) / 255 })
        // A photo of another size comes back at its size.
        let small = try ImageIO.read(path: Self.root.appendingPathComponent("preprocess_source.png").path)
        let styled = try ArbitraryStyle(backend: CPUBackend(weights: [])).stylize(small, styleVector: vector)
        XCTAssertEqual([styled.width, styled.height], [150, 100])
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
