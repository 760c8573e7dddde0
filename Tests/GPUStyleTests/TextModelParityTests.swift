import XCTest
@testable import GPUStyle

/// The built-in text models, whole graph, against onnxruntime on the package's own models
/// (tools/make_text_model_fixtures.py): 20 detector inputs (64 x 96 crops of scanned pages,
/// photos and rendered text) and 20 recogniser inputs (48-px lines, real and rendered). Every
/// value of the detector's map and every class probability of the recogniser within 1e-3, and
/// the same greedy CTC decoding; on the CPU path and on Vulkan.
final class TextModelParityTests: GraphOpTestCase {
    static let tolerance: Float = 1e-3
    static var root: URL { Fixtures.root.appendingPathComponent("text-models") }

    func testDetectorMatchesOnnxRuntime() throws {
        let strip = try ImageIO.read(path: Self.root.appendingPathComponent("det.png").path)
        let maps = try Fixtures.tensors("text-models/det.gpsw")["maps"]!
        let (count, height, width) = (maps.shape[0], maps.shape[1], maps.shape[2])
        XCTAssertEqual(count, 20)
        XCTAssertEqual(strip.width, count * width)
        try forEachBackend { backend, name in
            let network = try TextDetectionNetwork(backend: backend)
            var worst: Float = 0
            for i in 0..<count {
                let crop = strip.cropped(x: i * width, y: 0, width: width, height: height)
                let map = try network.probabilities(crop, width: width, height: height)
                let expected = Array(maps.values[(i * width * height)..<((i + 1) * width * height)])
                let diff = zip(map, expected).map { abs($0 - $1) }.max()!
                worst = max(worst, diff)
                XCTAssertLessThanOrEqual(diff, Self.tolerance, "\(name) detector input \(i)")
            }
            print("text detector parity \(name): max |diff| \(worst) over \(count) inputs")
        }
    }

    func testRecogniserMatchesOnnxRuntime() throws {
        let tensors = try Fixtures.tensors("text-models/rec.gpsw")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.root.appendingPathComponent("rec.json"))) as! [String: Any]
        let inputs = json["inputs"] as! [[String: Any]]
        XCTAssertEqual(inputs.count, 20)
        try forEachBackend { backend, name in
            let network = try TextRecognitionNetwork(backend: backend)
            var worst: Float = 0
            for (i, input) in inputs.enumerated() {
                let crop = try ImageIO.read(path: Self.root.appendingPathComponent(input["file"] as! String).path)
                let steps = input["steps"] as! Int
                XCTAssertEqual(TextRecognitionNetwork.steps(forWidth: crop.width), steps)
                let p = try network.probabilities(crop, width: crop.width)
                let classes = network.alphabet.classCount
                XCTAssertEqual(p.count, classes * steps)
                let key = String(format: "%02d", i)
                let top = tensors["classes_" + key]!, probs = tensors["probs_" + key]!
                let k = top.shape[1]
                var argmax: [Int] = []
                for t in 0..<steps {
                    var listed = Set<Int>()
                    for j in 0..<k {
                        let c = Int(top.values[t * k + j])
                        listed.insert(c)
                        let diff = abs(p[c * steps + t] - probs.values[t * k + j])
                        worst = max(worst, diff)
                        XCTAssertLessThanOrEqual(diff, Self.tolerance, "\(name) line \(i) step \(t) class \(c)")
                    }
                    var best = 0
                    for c in 0..<classes {
                        if p[c * steps + t] > p[best * steps + t] { best = c }
                        if !listed.contains(c) { worst = max(worst, p[c * steps + t]) }
                    }
                    // The classes left out are below "rest" in the reference (1e-4 but where 512 classes
                    // did not reach it); both it and ours within [0, 1e-3] keep them within 1e-3.
                    let rest = tensors["rest_" + key]!.values[t]
                    XCTAssertLessThanOrEqual(rest, Self.tolerance, "line \(i) step \(t): the fixture leaves out a class of \(rest)")
                    let unlisted = (0..<classes).filter { !listed.contains($0) }.map { p[$0 * steps + t] }.max() ?? 0
                    XCTAssertLessThanOrEqual(unlisted, Self.tolerance, "\(name) line \(i) step \(t): a class the reference puts below \(rest)")
                    argmax.append(best)
                }
                XCTAssertEqual(argmax, input["argmax"] as! [Int], "\(name) line \(i): greedy decoding")
            }
            print("text recogniser parity \(name): max |diff| \(worst) over \(inputs.count) lines")
        }
    }
}
