import Foundation
import XCTest
@testable import GPUStyle

/// `gpustyle classify` and `gpustyle convert-model` through the binary: output formats, folders,
/// user models, and the errors of every other command (one line naming the file, exit 2).
final class ClassifyCLITests: XCTestCase {
    /// The source of the fixture's "chelsea" case: the binary resizes and crops it as torch did.
    var photo: String { Fixtures.root.appendingPathComponent("classify/preprocess/chelsea_300x391.png").path }
    var onnx: String { Fixtures.root.appendingPathComponent("onnx/small_cnn.onnx").path }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-classify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    private func lines(_ data: Data) -> [String] {
        lines(String(decoding: data, as: UTF8.self))
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    /// `--precision bf16`: the same top class as fp32 where the CPU has AVX512_BF16; elsewhere
    /// (or under `--isa avx2`) refused with the reason, as for the style network.
    func testPrecisionBF16() throws {
        let cases = try ClassifyFixtures.cases()
        let chelsea = try XCTUnwrap(cases.first { $0.name == "chelsea" })
        let capped = try TestProcess.gpustyle(["classify", "--device", "cpu", "--isa", "avx2", "--precision", "bf16", photo])
        XCTAssertEqual(capped.status, 2, capped.stderr)
        XCTAssertTrue(capped.stderr.contains("--precision bf16"), capped.stderr)
        let run = try TestProcess.gpustyle(["classify", "--device", "cpu", "--precision", "bf16", "--top", "1", photo])
        guard ConvolutionPrecision.bf16Supported else {
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains("AVX512_BF16"), run.stderr)
            return
        }
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(lines(run.stdout).first?.hasSuffix("(\(chelsea.top5[0]))") ?? false, String(decoding: run.stdout, as: UTF8.self))
    }

    func testTextAndJSONAgreeWithTheFixture() throws {
        // The whole path: decoding, torchvision's preprocessing, the network, onnxruntime's answer.
        let cases = try ClassifyFixtures.cases()
        let chelsea = try XCTUnwrap(cases.first { $0.name == "chelsea" })
        let text = try TestProcess.gpustyle(["classify", "--device", "cpu", "--top", "3", photo])
        XCTAssertEqual(text.status, 0, text.stderr)
        let rows = lines(text.stdout)
        XCTAssertEqual(rows.count, 3)
        XCTAssertTrue(rows[0].hasSuffix("(\(chelsea.top5[0]))"), rows[0])

        let json = try TestProcess.gpustyle(["classify", "--device", "cpu", "--json", photo])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        XCTAssertEqual(object["file"] as? String, photo)
        let classes = try XCTUnwrap(object["classifications"] as? [[String: Any]])
        XCTAssertEqual(classes.compactMap { $0["index"] as? Int }, chelsea.top5)
        let expected = ClassifyFixtures.softmax(chelsea.logits)
        for c in classes {
            let index = c["index"] as! Int
            XCTAssertEqual(Float(c["confidence"] as! Double), expected[index], accuracy: 1e-3)
            XCTAssertFalse((c["label"] as! String).isEmpty)
        }
    }

    func testStdinFoldersAndABadFileInTheBatch() throws {
        let folder = try temporaryFolder()
        try FileManager.default.copyItem(atPath: photo, toPath: folder.appendingPathComponent("a.png").path)
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("b.jpg"))
        let batch = try TestProcess.gpustyle(["classify", "--json", "--device", "cpu", folder.path])
        XCTAssertEqual(batch.status, 1, "a bad input in a batch: the others go on, status 1")
        XCTAssertEqual(lines(batch.stdout).count, 1, "one JSON line for the good file")
        let errors = lines(batch.stderr)
        XCTAssertTrue(errors.contains { $0.contains("b.jpg") }, batch.stderr)
        XCTAssertTrue(errors.last!.contains("1 of 2 images failed"), batch.stderr)

        let piped = try TestProcess.gpustyle(["classify", "--device", "cpu", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: photo)))
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(lines(piped.stdout).count, 5)
    }

    func testBadInputsAndOptionsAreOneLineWithStatus2() throws {
        let folder = try temporaryFolder()
        let bad = folder.appendingPathComponent("bad.png").path
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: bad))
        for arguments in [["classify", bad], ["classify", "--top", "0", photo], ["classify", "--labels", "x.txt", photo],
                          ["classify", "--model", folder.appendingPathComponent("missing.onnx").path, photo],
                          ["classify", "--model", Fixtures.root.appendingPathComponent("onnx/unsupported.onnx").path, photo]] {
            let result = try TestProcess.gpustyle(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(lines(result.stderr).count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty)
        }
        let unsupported = try TestProcess.gpustyle(["classify", "--model", Fixtures.root.appendingPathComponent("onnx/unsupported.onnx").path, photo])
        XCTAssertTrue(unsupported.stderr.contains("unsupported ONNX op"), unsupported.stderr)
    }

    func testUserModelFromONNXAndItsConversionAgree() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt").path
        try Data("zero\none\ntwo\nthree\nfour\n".utf8).write(to: URL(fileURLWithPath: labels))
        let direct = try TestProcess.gpustyle(["classify", "--device", "cpu", "--json", "--model", onnx, "--labels", labels, photo])
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let model = folder.appendingPathComponent("small.gpsm").path
        let convert = try TestProcess.gpustyle(["convert-model", onnx, model, "--labels", labels, "--half", "none"])
        XCTAssertEqual(convert.status, 0, convert.stderr)
        let converted = try TestProcess.gpustyle(["classify", "--device", "cpu", "--json", "--model", model, photo])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        XCTAssertEqual(direct.stdout, converted.stdout, "the .gpsm holds the same graph, weights and labels")
        let piped = try TestProcess.gpustyle(["convert-model", onnx, "-", "--labels", labels, "--half", "none"])
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(piped.stdout, try Data(contentsOf: URL(fileURLWithPath: model)), "stdout carries the model alone")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: direct.stdout) as? [String: Any])
        let classes = try XCTUnwrap(object["classifications"] as? [[String: Any]])
        XCTAssertEqual(classes.count, 5)
        XCTAssertEqual(Set(classes.compactMap { $0["label"] as? String }), ["zero", "one", "two", "three", "four"])
        let total = classes.compactMap { $0["confidence"] as? Double }.reduce(0, +)
        XCTAssertEqual(total, 1, accuracy: 1e-5, "all five classes' probabilities")
    }

    /// --mean and --std take one value per input channel of the model: one for the grayscale
    /// digit classifier, three for an RGB model; any other count is refused in one line.
    func testMeanAndStdTakeOneValuePerInputChannel() throws {
        let folder = try temporaryFolder()
        let digits = folder.appendingPathComponent("digits.gpsm").path
        try ModelLibrary.builtin(DigitClassifier.BuiltIn.mnist.modelName).serialized().write(to: URL(fileURLWithPath: digits))
        let output = folder.appendingPathComponent("out.gpsm").path
        let converted = try TestProcess.gpustyle(["convert-model", digits, output, "--mean", "0.5", "--std", "0.25"])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let model = try ModelFile(data: Data(contentsOf: URL(fileURLWithPath: output)))
        XCTAssertEqual(model.metadata.mean, [0.5])
        XCTAssertEqual(model.metadata.std, [0.25])
        XCTAssertEqual(model.metadata.input, .init(channels: 1, height: 28, width: 28))

        let refused: [([String], String)] = [
            ([digits, output, "--mean", "0.1,0.2,0.3", "--std", "0.2,0.2,0.2"], "--mean has 3 values, but the model reads 1 input channel"),
            ([digits, output], "the model reads 1 input channel: give --mean and --std with 1 value each"),
            ([digits, output, "--mean", "0.5"], "the model reads 1 input channel: give --mean and --std"),
            ([digits, output, "--mean", "0.5", "--std", "0.2,0.3"], "--mean has 1 value and --std 2 values"),
            ([digits, output, "--mean", "0.5,", "--std", "0.25"], "--mean needs comma-separated numbers"),
            ([onnx, output, "--mean", "0.5", "--std", "0.25"], "--mean has 1 value, but the model reads 3 input channels"),
        ]
        for (arguments, message) in refused {
            let result = try TestProcess.gpustyle(["convert-model"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(lines(result.stderr).count, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let unchanged = try ModelFile(data: Data(contentsOf: URL(fileURLWithPath: output)))
        XCTAssertEqual(unchanged.metadata.mean, [0.5], "a refused conversion leaves the output alone")

        let rgb = try TestProcess.gpustyle(["convert-model", onnx, output, "--mean", "0.5,0.5,0.5", "--std", "0.5,0.25,0.125"])
        XCTAssertEqual(rgb.status, 0, rgb.stderr)
        XCTAssertEqual(try ModelFile(data: Data(contentsOf: URL(fileURLWithPath: output))).metadata.std, [0.5, 0.25, 0.125])
        let defaults = try TestProcess.gpustyle(["convert-model", onnx, output])
        XCTAssertEqual(defaults.status, 0, defaults.stderr)
        XCTAssertEqual(try ModelFile(data: Data(contentsOf: URL(fileURLWithPath: output))).metadata.mean, [0.485, 0.456, 0.406])
    }
}
