import Foundation
import XCTest
@testable import GPUStyle

/// The built-in digit classifiers (digit-recognizer-py 0.1.0's MNIST CNN as shipped, and fine-tuned
/// on notes) against torch (tools/make_digits_fixtures.py): every logit within 1e-4 of torch's on
/// 16 glyphs (evaluation digits, edited digits, blank, full and noise glyphs), on the CPU path and
/// on Vulkan; and at least 99 % of the 1,000 held-out MNIST digits right on the CPU path.
enum DigitFixtures {
    struct Case {
        let name: String
        let kind: String
        let label: Int?
        let glyph: [Float]
        /// Torch's logits and answer, by built-in model.
        let logits: [DigitClassifier.BuiltIn: [Float]]
        let prediction: [DigitClassifier.BuiltIn: Int]
    }

    struct Evaluation {
        let glyphs: [[Float]]
        let labels: [Int]
        struct Torch {
            let predictions: [Int]
            let margins: [Float]
            let correct: Int
        }
        /// Torch's answers, by built-in model.
        let torch: [DigitClassifier.BuiltIn: Torch]
    }

    static let folder = "digits"
    static let logitTolerance: Float = 1e-4
    static var root: URL { Fixtures.root.appendingPathComponent(folder) }

    static func cases() throws -> [Case] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("cases.json"))) as! [String: Any]
        let data = try Data(contentsOf: root.appendingPathComponent("glyphs.f32"))
        let glyphs = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let n = DigitClassifier.pixelCount
        return (json["cases"] as! [[String: Any]]).map { c in
            let row = c["row"] as! Int
            let logits = c["logits"] as! [String: [Double]], prediction = c["prediction"] as! [String: Int]
            return Case(name: c["name"] as! String, kind: c["kind"] as! String, label: c["label"] as? Int,
                        glyph: Array(glyphs[row * n..<(row + 1) * n]),
                        logits: byModel(logits).mapValues { $0.map { Float($0) } }, prediction: byModel(prediction))
        }
    }

    /// The 1,000 evaluation digits, cut from the grid PNG (digit i at column i % columns, row i / columns).
    static func evaluation() throws -> Evaluation {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("mnist-evaluation.json"))) as! [String: Any]
        let columns = json["columns"] as! Int, rows = json["rows"] as! Int, side = json["side"] as! Int
        XCTAssertEqual(side, DigitClassifier.side)
        let sheet = try ImageIO.read(path: root.appendingPathComponent("mnist-evaluation.png").path)
        XCTAssertEqual([sheet.width, sheet.height], [columns * side, rows * side])
        let labels = json["labels"] as! [Int]
        let glyphs = labels.indices.map { i -> [Float] in
            let (r, c) = (i / columns, i % columns)
            var glyph = [Float](repeating: 0, count: side * side)
            for y in 0..<side {
                for x in 0..<side { glyph[y * side + x] = sheet.rgb[(r * side + y) * sheet.width + c * side + x] }
            }
            return glyph
        }
        let torch = byModel(json["torch"] as! [String: [String: Any]]).mapValues { t in
            Evaluation.Torch(predictions: t["predictions"] as! [Int], margins: (t["margins"] as! [Double]).map { Float($0) },
                             correct: t["correct"] as! Int)
        }
        return Evaluation(glyphs: glyphs, labels: labels, torch: torch)
    }

    /// A fixture's {"mnist": ..., "notes": ...} object, keyed by model; every built-in model present.
    static func byModel<T>(_ values: [String: T]) -> [DigitClassifier.BuiltIn: T] {
        let keyed = Dictionary(uniqueKeysWithValues: values.compactMap { key, value in DigitClassifier.BuiltIn(rawValue: key).map { ($0, value) } })
        XCTAssertEqual(Set(keyed.keys), Set(DigitClassifier.BuiltIn.allCases), "every built-in model in the fixtures")
        return keyed
    }

    static func classifier(_ model: DigitClassifier.BuiltIn, backend: NetworkBackend) throws -> DigitClassifier {
        try DigitClassifier(backend: backend, model: ModelLibrary.builtin(model.modelName))
    }

    static func argmax(_ values: [Float]) -> Int {
        values.indices.max { (values[$0], $1) < (values[$1], $0) }!
    }

    /// Runs every parity glyph through `classifier`; fails on any logit further than the
    /// tolerance from torch's, and returns the largest difference.
    @discardableResult
    static func check(_ classifier: DigitClassifier, as model: DigitClassifier.BuiltIn,
                      file: StaticString = #filePath, line: UInt = #line) throws -> Float {
        let cases = try cases()
        XCTAssertGreaterThanOrEqual(cases.count, 12, "the parity bar is set on at least 12 glyphs", file: file, line: line)
        XCTAssertEqual(Set(cases.map(\.kind)).count, 9, "evaluation digits and every kind of hard glyph", file: file, line: line)
        var worst: Float = 0
        for c in cases {
            let logits = try classifier.logits(c.glyph)
            XCTAssertEqual(logits.count, 10, c.name, file: file, line: line)
            let difference = zip(logits, c.logits[model]!).map { abs($0 - $1) }.max()!
            worst = max(worst, difference.isNaN ? .infinity : difference)
            XCTAssertLessThanOrEqual(difference, logitTolerance, "\(model) \(c.name): logits differ by \(difference)", file: file, line: line)
            XCTAssertEqual(argmax(logits), c.prediction[model], "\(model) \(c.name)", file: file, line: line)
        }
        return worst
    }
}

final class DigitClassifierCPUTests: XCTestCase {
    func testLogitsMatchTorch() throws {
        for model in DigitClassifier.BuiltIn.allCases {
            let worst = try DigitFixtures.check(DigitFixtures.classifier(model, backend: CPUBackend(weights: [])), as: model)
            print("digits parity, cpu, \(model): largest logit difference \(worst)")
        }
    }

    func testHeldOutAccuracy() throws {
        for model in DigitClassifier.BuiltIn.allCases { try checkHeldOutAccuracy(model) }
    }

    func checkHeldOutAccuracy(_ model: DigitClassifier.BuiltIn) throws {
        let classifier = try DigitFixtures.classifier(model, backend: CPUBackend(weights: []))
        let evaluation = try DigitFixtures.evaluation()
        let torch = try XCTUnwrap(evaluation.torch[model])
        XCTAssertEqual(evaluation.glyphs.count, 1000)
        XCTAssertEqual(Set(evaluation.labels), Set(0..<10))
        var correct = 0, agreeing = 0, close = 0
        for (i, glyph) in evaluation.glyphs.enumerated() {
            let prediction = DigitFixtures.argmax(try classifier.logits(glyph))
            if prediction == evaluation.labels[i] { correct += 1 }
            if prediction == torch.predictions[i] {
                agreeing += 1
            } else if torch.margins[i] <= 2 * DigitFixtures.logitTolerance {
                close += 1  // a near tie in torch's logits may break either way within the tolerance
            }
        }
        print("digits accuracy, cpu, \(model): \(correct) of \(evaluation.glyphs.count) held-out MNIST digits right "
              + "(torch: \(torch.correct)); same answer as torch on \(agreeing)")
        XCTAssertGreaterThanOrEqual(correct, 990, "\(model): at least 99 % of the held-out digits")
        XCTAssertEqual(agreeing + close, evaluation.glyphs.count, "\(model): the same answer as torch wherever torch is not tied")
    }

    /// The PNG holds the digits as 8-bit values: the glyphs come back as k / 255.
    func testEvaluationSheetReadsBackAsMNISTPixels() throws {
        let evaluation = try DigitFixtures.evaluation()
        for glyph in evaluation.glyphs.prefix(50) {
            for v in glyph { XCTAssertEqual(v * 255, (v * 255).rounded(), accuracy: 1e-3) }
            XCTAssertGreaterThan(glyph.filter { $0 > 0.5 }.count, 20, "a digit has ink")
            XCTAssertEqual(glyph.prefix(28).max(), 0, "MNIST's top row is blank")
        }
    }

    /// The parity bar is not loose: a classifier that normalises its input a little differently
    /// misses it by far.
    func testParityCheckNoticesASmallNormalisationChange() throws {
        var model = try ModelLibrary.builtin(DigitClassifier.BuiltIn.notes.modelName)
        model.metadata.mean = [0.1307 + 0.01]
        let classifier = try DigitClassifier(backend: CPUBackend(weights: []), model: model)
        let glyph = try XCTUnwrap(DigitFixtures.cases().first { $0.kind == "evaluation" })
        let difference = zip(try classifier.logits(glyph.glyph), glyph.logits[.notes]!).map { abs($0 - $1) }.max()!
        XCTAssertGreaterThan(difference, 100 * DigitFixtures.logitTolerance)
    }

    func testProbabilitiesAreTheSoftmaxOfTheLogits() throws {
        let classifier = try DigitClassifier(backend: CPUBackend(weights: []))
        for c in try DigitFixtures.cases() {
            let logits = try classifier.logits(c.glyph)
            let probabilities = try classifier.probabilities(c.glyph)
            XCTAssertEqual(Double(probabilities.reduce(0, +)), 1, accuracy: 1e-5, c.name)
            XCTAssertEqual(DigitFixtures.argmax(probabilities), DigitFixtures.argmax(logits), c.name)
            let expected = ClassifyFixtures.softmax(c.logits[.notes]!)
            for (p, e) in zip(probabilities, expected) { XCTAssertEqual(p, e, accuracy: 1e-5, c.name) }
        }
    }

    func testSoftmaxIsStableForLargeLogits() {
        let p = DigitClassifier.softmax([1000, 0, -1000, 999, -.greatestFiniteMagnitude])
        XCTAssertTrue(p.allSatisfy { $0.isFinite }, "\(p)")
        XCTAssertEqual(p[0], 1 / (1 + exp(-1)), accuracy: 1e-6)
        XCTAssertEqual(p[3], exp(-1) / (1 + exp(-1)), accuracy: 1e-6)
        XCTAssertEqual(p[1], 0)
        XCTAssertEqual(DigitClassifier.softmax([]), [])
        XCTAssertEqual(DigitClassifier.softmax([3, 3]), [0.5, 0.5])
    }

    /// The default is the fine-tuned model; both built-in models have the same shape.
    func testBuiltinModelsDescribeThemselves() throws {
        XCTAssertEqual(try DigitClassifier(backend: CPUBackend(weights: [])).model.metadata.name,
                       "MNIST CNN fine-tuned on notes (digit-recognizer-py 0.1.0, tools/train_digits_model.py)")
        for builtIn in DigitClassifier.BuiltIn.allCases { try checkDescription(builtIn) }
    }

    func checkDescription(_ builtIn: DigitClassifier.BuiltIn) throws {
        let classifier = try DigitFixtures.classifier(builtIn, backend: CPUBackend(weights: []))
        let model = classifier.model
        XCTAssertTrue(model.metadata.name.hasPrefix("MNIST CNN"), model.metadata.name)
        XCTAssertEqual(model.metadata.input, .init(channels: 1, height: 28, width: 28))
        XCTAssertEqual(classifier.labels, (0..<10).map(String.init))
        XCTAssertEqual(model.metadata.mean, [0.1307])
        XCTAssertEqual(model.metadata.std, [0.3081])
        XCTAssertEqual(classifier.mean, 0.1307)
        XCTAssertEqual(classifier.standardDeviation, 0.3081)
        XCTAssertTrue(model.halfConstants.isEmpty, "every weight in float32: parity to 1e-4")
        XCTAssertEqual(model.graph.constants.values.reduce(0) { $0 + $1.count }, 390_410)
        XCTAssertFalse(model.graph.nodes.contains { $0.operation == .softmax }, "logits: no softmax in the graph")
    }

    func testOtherModelsAreRefused() throws {
        let backend = CPUBackend(weights: [])
        let mobilenet = try ModelLibrary.builtin(ModelLibrary.defaultClassifier)
        XCTAssertThrowsError(try DigitClassifier(backend: backend, model: mobilenet)) { error in
            XCTAssertTrue("\(error)".contains("takes 3x224x224, not the 1x28x28 glyph"), "\(error)")
        }
        var threeValues = try ModelLibrary.builtin(DigitClassifier.BuiltIn.mnist.modelName)
        threeValues.metadata.mean = [0.485, 0.456, 0.406]
        XCTAssertThrowsError(try DigitClassifier(backend: backend, model: threeValues)) { error in
            XCTAssertTrue("\(error)".contains("mean has 3 values"), "\(error)")
        }
        var labels = try ModelLibrary.builtin(DigitClassifier.BuiltIn.mnist.modelName)
        labels.metadata.labels = ["a", "b"]
        XCTAssertThrowsError(try DigitClassifier(backend: backend, model: labels))
    }
}

final class DigitClassifierVulkanTests: VulkanTestCase {
    func testLogitsMatchTorch() throws {
        for model in DigitClassifier.BuiltIn.allCases {
            let worst = try DigitFixtures.check(DigitFixtures.classifier(model, backend: VulkanBackend(context: context, weights: [])), as: model)
            print("digits parity, vulkan, \(model): largest logit difference \(worst)")
        }
    }
}
