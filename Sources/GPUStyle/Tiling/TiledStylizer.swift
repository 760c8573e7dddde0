import CKernels

/// The style network over tiles, for images whose whole-image plan would not fit the memory
/// budget. Exact: instance norm needs each layer's mean and variance over the whole image, so
/// the network runs as a sequence of passes (`TilePass`), each ending at one norm layer; a pass
/// computes that layer's raw output tile by tile (recomputing the cheap layers before it inside
/// each tile's halo), merges the tiles' moments over the whole image (`RunningMoments`), and only
/// then is the layer's affine known to the passes after it.
///
/// What is kept between passes (the rest is recomputed): the picture (as its 8/16-bit samples
/// when lossless); the raw output of `contract.1` (half resolution; or, on a tight budget,
/// contract.0 is computed a third time instead), the residual blocks' three tensors (quarter
/// resolution) and the raw output of `expand.0` (half resolution, 8 channels), all as scaled
/// 16-bit blocks (`TensorStore`); the last layer's raw output goes straight into the result.
/// Per pixel of the image that is at most 3 + 16 + 4 = 23 bytes plus the tiles' scratch
/// (`TilingLayout` has the whole account); the first 9x9 convolution, the most expensive layer,
/// runs twice (once for its statistics).
final class TiledStylizer {
    let backend: NetworkBackend
    let model: StyleModel
    let layout: TilingLayout
    /// Tiles run so far, over all passes.
    private(set) var tiles = 0

    init(backend: NetworkBackend, model: StyleModel, layout: TilingLayout) {
        self.backend = backend
        self.model = model
        self.layout = layout
    }

    /// Where a pass reads its input tiles from.
    private enum Source {
        /// The picture, reflection-padded to the network's multiple-of-4 size.
        case picture(TensorStore)
        case store(TensorStore)

        var channels: Int {
            switch self {
            case .picture(let store), .store(let store): store.channels
            }
        }
    }

    /// The image stylized; `strength` mixes with the original as `Stylizer.stylize` does. The
    /// decoded planes are released once they are stored compactly (when the caller gave them up).
    func stylize(_ image: consuming Image, mix: StyleMix, strength: Float, preserveColor: Bool = false) throws -> Image {
        // The photo is needed to the end for the mix or for its colours.
        let keepsPhoto = strength != 1 || preserveColor
        let w = image.width, h = image.height, alpha = image.alpha
        let description = "stylizing a \(w)x\(h) image in tiles"
        var picture: TensorStore? = try TensorStore(image: image, format: TensorStore.Format.compact(image.rgb), name: description)
        image.rgb = []
        image.alpha = nil

        let height = roundUp(h, StyleNetwork.sizeMultiple), width = roundUp(w, StyleNetwork.sizeMultiple)
        let maps = NetworkMaps(height: height, width: width)
        let parameters = model.normParameters(for: mix)
        let perLayer = ExecutionPlan.parametersPerLayer, maxChannels = StyleNetwork.maxChannels
        var affine = [Float](repeating: 0, count: StyleNetwork.layers.count * perLayer)
        var folded: [Int: (scale: [Float], shift: [Float])] = [:]
        var lastShape: [Int] = []
        func pass(_ layers: ClosedRange<Int>, from source: Source, normalizing norm: (layer: Int, activation: Activation)? = nil,
                  into sink: ((TileResult) -> Void)? = nil) throws {
            let tilePass = TilePass(layers: layers, inputNorm: norm, inputChannels: source.channels, maps: maps)
            // Backends keep each buffer at the largest size seen: a pass of another shape frees
            // them first, or the run would hold the sum of every shape's largest buffers. The
            // twelve residual passes share one shape and keep theirs.
            let shape = [layers.lowerBound == layers.upperBound ? 1 : 0, source.channels,
                         tilePass.outputSize.height, tilePass.outputChannels]
            if shape != lastShape { backend.releaseBuffers() }
            lastShape = shape
            let moments = try run(tilePass, from: source, affine: affine, sink: sink)
            let layer = layers.upperBound, base = layer * perLayer
            let settled = moments.affine(gamma: parameters[base..<(base + maxChannels)],
                                         beta: parameters[(base + maxChannels)..<(base + perLayer)])
            for c in settled.scale.indices {
                affine[base + c] = settled.scale[c]
                affine[base + maxChannels + c] = settled.shift[c]
            }
            folded[layer] = settled
        }
        func store(_ layer: Int, format: TensorStore.Format = .blocks16) throws -> TensorStore {
            let size = maps.output(layer)
            return try TensorStore(channels: StyleNetwork.layers[layer].outputChannels, height: size.height, width: size.width,
                                   format: format, name: description)
        }
        func storing(_ store: TensorStore) -> (TileResult) -> Void {
            { result in
                let tile = result.tile
                store.write(result.values, shape: tile.plan.outputShape, top: tile.rows.lowerBound, left: tile.columns.lowerBound)
            }
        }
        func activation(_ layer: Int) -> Activation { StyleNetwork.layers[layer].activation }

        // contract.0's statistics; contract.1's; contract.2's raw output, normalised in place:
        // the first residual block's input. contract.1's raw output is kept when the layout
        // allows, else contract.0 is computed a third time.
        try pass(0...0, from: .picture(picture!))
        // Stores are optionals set to nil after their last pass: memory is released there, not at
        // the end of the function.
        var x: TensorStore! = try store(2)
        if layout.keepsContraction {
            var contracted: TensorStore! = try store(1)
            try pass(0...1, from: .picture(picture!), into: storing(contracted))
            if !keepsPhoto { picture = nil }
            try pass(2...2, from: .store(contracted), normalizing: (1, activation(1)), into: storing(x))
            contracted = nil
        } else {
            try pass(0...1, from: .picture(picture!))
            try pass(0...2, from: .picture(picture!), into: storing(x))
        }
        if !keepsPhoto { picture = nil }
        x.update(scale: folded[2]!.scale, shift: folded[2]!.shift, activation: activation(2))
        // Residual blocks: x += norm(conv(relu(norm(conv(x))))).
        do {
            let t = try store(3), u = try store(4)
            let one = [Float](repeating: 1, count: x.channels), zero = [Float](repeating: 0, count: x.channels)
            for first in stride(from: 3, to: 15, by: 2) {
                try pass(first...first, from: .store(x), into: storing(t))
                try pass((first + 1)...(first + 1), from: .store(t), normalizing: (first, activation(first)), into: storing(u))
                x.update(scale: one, shift: zero, activation: .identity,
                         adding: u, otherScale: folded[first + 1]!.scale, otherShift: folded[first + 1]!.shift)
            }
        }
        // expand.0's raw output; expand.1's statistics; expand.2's raw output straight into the
        // result, cropped to the picture.
        let expanded = try store(15)
        try pass(15...15, from: .store(x), into: storing(expanded))
        x = nil
        try pass(16...16, from: .store(expanded), normalizing: (15, activation(15)))
        var result = try CheckedAllocation.floatArray(3 * w * h, for: description)
        try result.withUnsafeMutableBufferPointer { buffer in
            let rgb = buffer.baseAddress!
            try pass(16...17, from: .store(expanded), normalizing: (15, activation(15))) {
                Self.crop($0, into: rgb, width: w, height: h)
            }
            Self.finish(rgb, width: w, height: h, norm: folded[17]!, activation: activation(17), strength: strength,
                        preserveColor: preserveColor, original: picture)
        }
        backend.releaseBuffers()
        return Image(width: w, height: h, rgb: result, alpha: alpha)
    }

    /// A tile of the last layer's raw output into the picture-sized planes (the network's
    /// padding to a multiple of 4 cropped off).
    private static func crop(_ result: TileResult, into rgb: UnsafeMutablePointer<Float>, width w: Int, height h: Int) {
        let tile = result.tile, shape = tile.plan.outputShape
        result.values.withUnsafeBufferPointer { values in
            for c in 0..<3 {
                for y in tile.rows where y < h {
                    let row = c * shape.planeStride + (y - tile.rows.lowerBound) * shape.width - tile.columns.lowerBound
                    for x in tile.columns where x < w { rgb[(c * h + y) * w + x] = values[row + x] }
                }
            }
        }
    }

    /// The last norm and its activation (the C kernel the whole-image path uses), then the
    /// photo's colour kept and the mix with it (`PreservedColor`), on chunks of pixels.
    private static func finish(_ rgb: UnsafeMutablePointer<Float>, width w: Int, height h: Int,
                               norm: (scale: [Float], shift: [Float]), activation: Activation, strength: Float,
                               preserveColor: Bool, original: TensorStore?) {
        let plane = w * h
        let chunk = 16384, chunksPerPlane = (plane + chunk - 1) / chunk
        ParallelFor.ranges(3 * chunksPerPlane, grain: 4) { items in
            for item in items {
                let c = item / chunksPerPlane
                let begin = c * plane + (item % chunksPerPlane) * chunk, end = min(begin + chunk, (c + 1) * plane)
                let values = rgb + begin
                gs_instance_norm_apply(values, Int64(end - begin), norm.scale[c], norm.shift[c], Int32(activation.rawValue), nil, values)
            }
        }
        guard let original, strength != 1 || preserveColor else { return }
        ParallelFor.ranges(chunksPerPlane, grain: 2) { items in
            let photo = UnsafeMutablePointer<Float>.allocate(capacity: 3 * chunk)
            defer { photo.deallocate() }
            for item in items {
                let begin = item * chunk, count = min(chunk, plane - begin)
                for c in 0..<3 { original.load(c * plane + begin, count, into: photo + c * chunk) }
                PreservedColor.finish(rgb + begin, photo: photo, count: count, stride: plane, photoStride: chunk,
                                      preserveColor: preserveColor, strength: strength)
            }
        }
    }

    /// What a tile of a pass leaves: the last layer's raw output.
    struct TileResult {
        let tile: TilePass.Tile
        let values: [Float]
    }

    /// Runs one pass over all its tiles and returns the merged moments of its last layer.
    private func run(_ pass: TilePass, from source: Source, affine: [Float],
                     sink: ((TileResult) -> Void)?) throws -> RunningMoments {
        let size = pass.outputSize
        let side = tileSide(pass)
        tiles += ((size.height + side - 1) / side) * ((size.width + side - 1) / side)
        var moments = RunningMoments(channels: pass.outputChannels)
        let parameters: [Float] = []
        for top in stride(from: 0, to: size.height, by: side) {
            for left in stride(from: 0, to: size.width, by: side) {
                let tile = pass.tile(rows: top..<min(size.height, top + side), columns: left..<min(size.width, left + side))
                let input = read(source, tile)
                let outputs: [ExecutionPlan.Buffer] = sink == nil ? [.moments] : [.moments, tile.plan.output]
                let results = try backend.run(tile.plan, inputs: [.input: input], normParameters: parameters,
                                              affine: affine, outputs: outputs)
                moments.add(results[.moments]!, pixels: tile.rows.count * tile.columns.count)
                sink?(TileResult(tile: tile, values: results[tile.plan.output]!))
            }
        }
        return moments
    }

    private func read(_ source: Source, _ tile: TilePass.Tile) -> [Float] {
        let shape = tile.plan.inputShape, floats = tile.plan.bufferFloats[.input]!
        switch source {
        case .picture(let picture):
            return picture.read(rows: tile.inputRows, columns: tile.inputColumns, shape: shape, floats: floats, reflecting: true)
        case .store(let store):
            return store.read(rows: tile.inputRows, columns: tile.inputColumns, shape: shape, floats: floats)
        }
    }

    /// The largest square tile (a multiple of `TensorStore.blockSide`, at most the map rounded
    /// up) whose plan and transfer arrays fit `layout.scratchBytes`; at least one block.
    func tileSide(_ pass: TilePass) -> Int {
        let size = pass.outputSize, block = TensorStore.blockSide
        var side = roundUp(max(size.height, size.width), block)
        while side > block {
            if scratch(pass, side: side) <= layout.scratchBytes { return side }
            side = min(side - block, roundUp(side * 3 / 4, block))
        }
        return block
    }

    /// Scratch bytes of a tile of `side` placed away from the borders (the largest halo).
    func scratch(_ pass: TilePass, side: Int) -> Int {
        let size = pass.outputSize
        let rows = min(side, size.height), columns = min(side, size.width)
        let top = min(max(0, size.height / 2 - rows / 2), size.height - rows)
        let left = min(max(0, size.width / 2 - columns / 2), size.width - columns)
        let plan = pass.tile(rows: top..<(top + rows), columns: left..<(left + columns)).plan
        let buffers = plan.bufferFloats.values.reduce(0, +)
        // The input and output arrays exist twice at once (ours and the backend's copy).
        let transfers = 2 * (plan.bufferFloats[.input]! + plan.bufferFloats[plan.output]!)
        return 4 * (buffers + transfers)
    }
}
