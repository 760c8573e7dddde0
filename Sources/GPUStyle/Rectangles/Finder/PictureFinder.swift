import Foundation

/// The learned picture finder (issue 36): a small encoder/decoder network on the runtime, CPU
/// path or Vulkan, that proposes pictures' quads from heatmaps (`FinderHeads`), on a working
/// image of the frame.
///
/// The built-in model is trained here (tools/train_finder.py on tools/finder_data.py's scenes,
/// seeds 5000-5999), exported to ONNX and converted by tools/make_finder_model.sh
/// (`Weights/picture_finder.gpsm`): RGB in [0, 1] in, 14 head maps at a quarter of the size out.
/// The working image is the frame box-downscaled so that its longer side is
/// `Options.workingSide` (320: a 640 × 480 frame halved, the size it was trained at), then padded
/// on the right and bottom to multiples of 16 by repeating the last column and row.
///
/// One frame at a time per instance (plans are kept per size): calls from several threads wait
/// for each other.
public final class PictureFinder: @unchecked Sendable {
    public struct Options: Sendable, Equatable {
        /// The working image's longer side (frames larger than this are box-downscaled to it).
        public var workingSide = 320
        public var heads = FinderHeads.Options()
        public init() {}
    }

    /// The network's input sides are multiples of this (four stride-2 levels).
    public static let sideMultiple = 16
    /// The name of the built-in model in `ModelLibrary.builtin`.
    public static let builtInModel = "picture_finder"

    public let model: ModelFile
    public let backend: NetworkBackend
    public let options: Options
    private var plans: PlanCache
    private let lock = NSLock()

    /// A finder for `model` (nil: the built-in one) on `backend`. Throws when the model does not
    /// map an RGB image to 14 maps at a quarter of its size.
    public init(backend: NetworkBackend, model: ModelFile? = nil, options: Options = Options()) throws {
        let model = try model ?? ModelLibrary.builtin(Self.builtInModel)
        let probe = NetworkGraph.Shape(channels: 3, height: 64, width: 96)
        let expected = NetworkGraph.Shape(channels: FinderHeads.channels, height: probe.height / FinderHeads.stride,
                                          width: probe.width / FinderHeads.stride)
        let shapes = try model.graph.shapes(input: probe)
        guard shapes[model.graph.output] == expected else {
            throw GraphError("\(model.metadata.name) is not a picture finder: for a \(probe) input it gives "
                             + "\(shapes[model.graph.output].map { "\($0)" } ?? "nothing"), not \(expected)")
        }
        self.model = model
        self.backend = backend
        self.options = options
        plans = PlanCache(graph: model.graph)
    }

    /// The pictures' quads proposed in `image`, strongest first, in the image's pixels (pixel
    /// centres at integers).
    public func candidates(in image: Image) throws -> [FinderHeads.Candidate] {
        let working = image.downscaled(toFit: options.workingSide)
        let scaleX = Double(image.width) / Double(working.width), scaleY = Double(image.height) / Double(working.height)
        return try heads(working).map { candidate in
            let corners = candidate.quad.corners.map { Point(x: ($0.x + 0.5) * scaleX - 0.5, y: ($0.y + 0.5) * scaleY - 0.5) }
            return FinderHeads.Candidate(quad: Quad(corners: corners), score: candidate.score)
        }
    }

    /// The decoded heads of `working` as it is (no downscaling), in its pixels.
    public func heads(_ working: Image) throws -> [FinderHeads.Candidate] {
        let (output, height, width) = try rawHeads(working)
        return FinderHeads.decode(output, height: height, width: width, options: options.heads)
    }

    /// The network's raw output for `working` padded to multiples of 16: [14][height][width].
    public func rawHeads(_ working: Image) throws -> (heads: [Float], height: Int, width: Int) {
        let width = Self.padded(working.width), height = Self.padded(working.height)
        let input = Self.tensor(working, width: width, height: height)
        let output = try lock.withLock {
            try backend.run(try plans.plan(width: width, height: height), inputs: [.input: input],
                            normParameters: [], affine: nil, outputs: [.result])[.result]!
        }
        return (output, height / FinderHeads.stride, width / FinderHeads.stride)
    }

    /// `side` rounded up to the next multiple of `sideMultiple`.
    static func padded(_ side: Int) -> Int {
        (max(side, 1) + sideMultiple - 1) / sideMultiple * sideMultiple
    }

    /// [3][height][width]: the image, its last column and row repeated into the padding (what
    /// the training's evaluation does: a padding of zeros would be a black border, i.e. a side).
    static func tensor(_ image: Image, width: Int, height: Int) -> [Float] {
        let plane = width * height
        var tensor = [Float](repeating: 0, count: 3 * plane)
        for c in 0..<3 {
            for y in 0..<height {
                let source = c * image.pixelCount + min(y, image.height - 1) * image.width
                let target = c * plane + y * width
                for x in 0..<width { tensor[target + x] = image.rgb[source + min(x, image.width - 1)] }
            }
        }
        return tensor
    }
}
