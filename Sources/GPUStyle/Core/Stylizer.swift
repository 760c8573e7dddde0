/// Stylizes images with the multi-style network on one backend, reusing the backend's buffers
/// and the execution plan across images of the same size.
public final class Stylizer {
    public let model: StyleModel
    public let backend: NetworkBackend
    private var cachedPlan: ExecutionPlan?
    /// Bytes one image may use (see `TilingLayout`): images whose whole-image plan does not fit
    /// are stylized in tiles, with the same result within 1/255. nil: always whole-image plans.
    public var memoryBudget: Int?
    /// The tiled layout the last image used (nil: the whole-image plan).
    public private(set) var lastLayout: TilingLayout?
    /// The arbitrary-style network, made on the first mix with a painting.
    private var arbitrary: ArbitraryStyle?
    /// Tiles the arbitrary-style network ran for the last image (nil: no painting in its mix).
    public private(set) var lastPaintingTiles: Int?

    public init(model: StyleModel, backend: NetworkBackend) {
        self.model = model
        self.backend = backend
    }

    public struct InputError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Checks that an image is large enough for the network (both sides >= 32 pixels).
    public static func validate(width: Int, height: Int) throws {
        let minimum = StyleNetwork.minimumInputSide
        guard width >= minimum, height >= minimum else {
            throw InputError(description: "image is \(width)x\(height); the network needs at least \(minimum)x\(minimum) pixels")
        }
    }

    /// Runs the network on `image` (its size need not be a multiple of 4: the input is
    /// reflection-padded on the bottom and right, and the result cropped back). `strength`
    /// mixes the stylized result with the original (1 = fully stylized). Alpha passes through.
    ///
    /// `preserveColor` keeps the photo's colours with the stylized picture's brightness
    /// (`PreservedColor`), before the mix.
    ///
    /// Pass the image without keeping a copy (its last use) so that tiled runs can release its
    /// planes once they are stored compactly.
    public func stylize(_ image: consuming Image, mix: StyleMix, strength: Float = 1, preserveColor: Bool = false) throws -> Image {
        try Stylizer.validate(width: image.width, height: image.height)
        lastPaintingTiles = nil
        if let vector = mix.paintingVector {
            return try stylize(consume image, paintings: vector, mix: mix, strength: strength, preserveColor: preserveColor)
        }
        let height = roundUp(image.height, StyleNetwork.sizeMultiple)
        let width = roundUp(image.width, StyleNetwork.sizeMultiple)
        let plan = try self.plan(height: height, width: width)
        lastLayout = nil
        if let memoryBudget, let layout = try TilingLayout.choose(for: image, plan: plan,
                                                                  // Keeping the colour keeps the photo to the end, as a mix does.
                                                                  strength: preserveColor ? 0 : strength, budget: memoryBudget,
                                                                  device: backend.deviceLimits,
                                                                  bufferFloats: backend.bufferFloats(for: plan)) {
            return try stylize(consume image, mix: mix, strength: strength, preserveColor: preserveColor, layout: layout)
        }
        let input = try Stylizer.paddedInput(image, plan.inputShape, floats: plan.bufferFloats[.input]!)
        let output = try backend.run(plan, inputs: [.input: input], normParameters: model.normParameters(for: mix))
        return try Stylizer.cropOutput(output, plan.outputShape, like: image, strength: strength, preserveColor: preserveColor)
    }

    /// A mix with paintings: the arbitrary-style network at the photo's full size with the
    /// paintings' blended vector (`ArbitraryStyle.stylizeFullResolution`, within the memory
    /// budget); with built-in styles too, each network's picture mixed by their shares, then the
    /// colour and the strength as for built-in styles.
    private func stylize(_ image: consuming Image, paintings vector: [Float], mix: StyleMix, strength: Float,
                         preserveColor: Bool) throws -> Image {
        if arbitrary == nil { arbitrary = try ArbitraryStyle(backend: backend) }
        let arbitrary = arbitrary!
        lastLayout = nil
        guard let builtIn = mix.builtInPart else {
            defer { lastPaintingTiles = arbitrary.lastTileCount }
            return try arbitrary.stylizeFullResolution(consume image, styleVector: vector, strength: strength,
                                                       preserveColor: preserveColor, memoryBudget: memoryBudget)
        }
        let painted = try arbitrary.stylizeFullResolution(copy image, styleVector: vector, memoryBudget: memoryBudget)
        lastPaintingTiles = arbitrary.lastTileCount
        var result = try stylize(copy image, mix: builtIn)
        let share = mix.builtInShare
        for i in result.rgb.indices { result.rgb[i] = share * result.rgb[i] + (1 - share) * painted.rgb[i] }
        PreservedColor.finish(&result.rgb, photo: image, preserveColor: preserveColor, strength: strength)
        return result
    }

    /// Stylizes in tiles with the given layout (tests and benchmarks force small tiles).
    public func stylize(_ image: consuming Image, mix: StyleMix, strength: Float = 1, preserveColor: Bool = false,
                        layout: TilingLayout) throws -> Image {
        try Stylizer.validate(width: image.width, height: image.height)
        lastLayout = layout
        return try TiledStylizer(backend: backend, model: model, layout: layout).stylize(consume image, mix: mix, strength: strength,
                                                                                                preserveColor: preserveColor)
    }

    private func plan(height: Int, width: Int) throws -> ExecutionPlan {
        if let plan = cachedPlan, plan.inputShape.height == height, plan.inputShape.width == width { return plan }
        let plan = try model.plan(height: height, width: width)
        cachedPlan = plan
        return plan
    }

    static func paddedInput(_ image: Image, _ shape: ExecutionPlan.DenseShape, floats: Int) throws -> [Float] {
        var input = try CheckedAllocation.floatArray(floats, for: "the network input of a \(image.width)x\(image.height) image")
        input.withUnsafeMutableBufferPointer { $0.initialize(repeating: 0) }
        let w = image.width, h = image.height
        for c in 0..<3 {
            for y in 0..<shape.height {
                let sy = ReflectPad.reflect(y, h)
                for x in 0..<shape.width {
                    input[c * shape.planeStride + y * shape.width + x] = image.rgb[(c * h + sy) * w + ReflectPad.reflect(x, w)]
                }
            }
        }
        return input
    }

    static func cropOutput(_ output: [Float], _ shape: ExecutionPlan.DenseShape, like image: Image, strength: Float,
                           preserveColor: Bool = false) throws -> Image {
        let w = image.width, h = image.height
        var rgb = try CheckedAllocation.floatArray(3 * w * h, for: "the stylized \(w)x\(h) image")
        for c in 0..<3 {
            for y in 0..<h {
                for x in 0..<w { rgb[(c * h + y) * w + x] = output[c * shape.planeStride + y * shape.width + x] }
            }
        }
        PreservedColor.finish(&rgb, photo: image, preserveColor: preserveColor, strength: strength)
        return Image(width: w, height: h, rgb: rgb, alpha: image.alpha)
    }
}
