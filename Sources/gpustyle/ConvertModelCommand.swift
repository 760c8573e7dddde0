import ArgumentParser
import Foundation
import GPUStyle

struct ConvertModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert-model",
        abstract: "Convert an ONNX model to gpustyle's model format (.gpsm), checking it on the way.",
        discussion: """
        The graph is imported as `--model file.onnx` would be (batch norm folded into the \
        convolutions; an op gpustyle does not run is named in the error), and written with the \
        labels and preprocessing a classifier needs. tools/make_classify_model.sh makes the \
        built-in model this way.
        """
    )

    @Argument(help: "The ONNX model.")
    var input: String

    @Argument(help: "The .gpsm file to write (a regular file is replaced only once complete).")
    var output: String

    @Option(help: "The model's name (default: the input's file name).")
    var name: String?

    @Option(help: ArgumentHelp("Class names, one per line.", valueName: "file"))
    var labels: String?

    @Option(help: "Per-channel mean of inputs in [0, 1], as r,g,b (ImageNet's by default).")
    var mean: String = "0.485,0.456,0.406"

    @Option(help: "Per-channel standard deviation, as r,g,b (ImageNet's by default).")
    var std: String = "0.229,0.224,0.225"

    @Option(help: "Weights stored in float16: none, fully-connected or all.")
    var half: String = ModelConversion.HalfPrecision.none.rawValue

    func triple(_ text: String, _ option: String) throws -> [Float] {
        let values = text.split(separator: ",").compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == 3, values.allSatisfy({ $0.isFinite }) else {
            throw ValidationError("\(option) needs three numbers, as r,g,b")
        }
        return values
    }

    func validate() throws {
        guard ModelConversion.HalfPrecision(rawValue: half) != nil else {
            throw ValidationError("--half must be one of " + ModelConversion.HalfPrecision.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard try triple(std, "--std").allSatisfy({ $0 > 0 }) else { throw ValidationError("--std must be positive") }
        _ = try triple(mean, "--mean")
    }

    func run() throws {
        try OutputPath(output).check()
        let source = try ModelLibrary.load(path: input, labels: labels)
        var metadata = source.metadata
        metadata.name = name ?? metadata.name
        metadata.mean = try triple(mean, "--mean")
        metadata.std = try triple(std, "--std")
        let model = ModelFile(graph: source.graph, metadata: metadata,
                              halfConstants: ModelConversion.halfConstants(source.graph, .init(rawValue: half)!))
        let data = try model.serialized()
        try OutputPath(output).write(data)
        let weights = model.graph.constants.values.reduce(0) { $0 + $1.count }
        // On stderr: the output may be stdout itself (`-`), which carries the model alone.
        printToStandardError("\(PrintableText.escaping(output)): \(model.graph.nodes.count) nodes, \(weights) weights "
                             + "(\(model.halfConstants.count) constants in float16), \(ByteCount.decimal(data.count))")
    }
}
