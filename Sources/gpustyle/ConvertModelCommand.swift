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
        labels and preprocessing a classifier needs: --mean and --std take one value per input \
        channel of the model (three for an RGB model, one for a grayscale one). \
        tools/make_classify_model.sh and tools/make_digits_model.sh make the built-in models this way.
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

    @Option(help: ArgumentHelp("Per-channel mean of inputs in [0, 1], one value per input channel of the model, comma-separated "
                               + "(default for a 3-channel model: ImageNet's, 0.485,0.456,0.406).", valueName: "values"))
    var mean: String?

    @Option(help: ArgumentHelp("Per-channel standard deviation, one value per input channel "
                               + "(default for a 3-channel model: ImageNet's, 0.229,0.224,0.225).", valueName: "values"))
    var std: String?

    @Option(help: "Weights stored in float16: none, fully-connected or all.")
    var half: String = ModelConversion.HalfPrecision.none.rawValue

    static let imageNetMean: [Float] = [0.485, 0.456, 0.406]
    static let imageNetStd: [Float] = [0.229, 0.224, 0.225]

    /// "1 value", "3 values".
    static func count(_ n: Int) -> String { "\(n) value\(n == 1 ? "" : "s")" }

    /// Comma-separated finite numbers.
    static func values(_ text: String, _ option: String) throws -> [Float] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let values = parts.compactMap { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.count == parts.count, values.allSatisfy({ $0.isFinite }) else {
            throw ValidationError("\(option) needs comma-separated numbers, one per input channel of the model")
        }
        return values
    }

    func validate() throws {
        guard ModelConversion.HalfPrecision(rawValue: half) != nil else {
            throw ValidationError("--half must be one of " + ModelConversion.HalfPrecision.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let mean = try self.mean.map { try Self.values($0, "--mean") }
        let std = try self.std.map { try Self.values($0, "--std") }
        if let std, !std.allSatisfy({ $0 > 0 }) { throw ValidationError("--std must be positive") }
        if let mean, let std, mean.count != std.count {
            throw ValidationError("--mean has \(Self.count(mean.count)) and --std \(Self.count(std.count)): give one of each per input channel")
        }
    }

    /// The number of channels the model reads: its fixed input shape's, else the input channels
    /// of the convolutions that read the input (nil when neither tells).
    static func inputChannels(_ model: ModelFile) -> Int? {
        if let input = model.metadata.input { return input.channels }
        for node in model.graph.nodes where node.inputs.first == model.graph.input {
            if case .convolution(let c) = node.operation {
                let perGroup = model.graph.constants[c.weights].count / max(1, c.outputChannels * c.kernelHeight * c.kernelWidth)
                return perGroup * c.groups
            }
        }
        return nil
    }

    /// The mean and standard deviation to store: one value each per input channel of the model
    /// (`channels`, when known); ImageNet's are the default for three channels only.
    static func normalization(mean meanText: String?, std stdText: String?, channels: Int?) throws -> (mean: [Float], std: [Float]) {
        let given = try meanText.map { try values($0, "--mean") }
        let givenStd = try stdText.map { try values($0, "--std") }
        let count = channels ?? given?.count ?? givenStd?.count ?? 3
        let what = channels.map { "the model reads \($0) input channel\($0 == 1 ? "" : "s")" } ?? "the model's input channels are not fixed"
        guard (given != nil && givenStd != nil) || count == 3 else {
            throw ValidationError("\(what): give --mean and --std with \(Self.count(count)) each "
                                  + "(ImageNet's are the default for 3 channels only)")
        }
        let mean = given ?? imageNetMean, std = givenStd ?? imageNetStd
        for (option, values) in [("--mean", mean), ("--std", std)] where values.count != count {
            throw ValidationError("\(option) has \(Self.count(values.count)), but \(what): "
                                  + "give \(count), one per channel")
        }
        return (mean, std)
    }

    func run() throws {
        try OutputPath(output).check()
        let source = try ModelLibrary.load(path: input, labels: labels)
        var metadata = source.metadata
        metadata.name = name ?? metadata.name
        let normalization = try Self.normalization(mean: mean, std: std, channels: Self.inputChannels(source))
        metadata.mean = normalization.mean
        metadata.std = normalization.std
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
