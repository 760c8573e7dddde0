import CKernels

/// Runs a `QuantizedChain` (the arbitrary-style transform) on a picture of any size, one layer at
/// a time, with every map between layers kept as one byte per value: each map is the output of
/// a fake quantisation, so a value is exactly one of 256 levels and its byte is lossless.
///
/// A layer runs over tiles of its output map: the host gathers each tile's input window from
/// the source map (nearest upsampling and reflection at the map's borders done in the gather,
/// the input quantisation by a 256-entry table), the backend runs the tile's convolution with its
/// ReLU and quantisation (a small graph lowered once per tile shape, on the CPU or Vulkan), and
/// the host stores the result back as bytes. A norm layer also counts each channel's levels;
/// after its last tile the whole map's statistics follow from the 256 counts exactly as the
/// whole-image kernel computes them (`gs_quantized_instance_norm_parameters_histogram`), and the
/// normalisation, the residual add and the last activation are each a table over levels.
///
/// Memory: the maps alive at once (one byte per value: at most the 8-channel full-size map of a
/// layer and its input, about 11-16 bytes per pixel) plus one tile's buffers; no layer is
/// computed twice. Exact: every value is the one the whole-image plan computes on the same
/// backend, as long as the backend's convolution sums a pixel's products in the same order on a
/// tile as on the whole map (`StagedTransformTests` checks it).
final class StagedTransform {
    struct Parameters {
        /// Floats one tile's input and output may hold together: 4 Mi floats (16 MiB; the
        /// backends hold a copy of each, and the CPU path a padded copy). Larger tiles gain
        /// little (a 9x9 layer's halo is 8 pixels) and cost memory on 12 MP pictures.
        var tileFloats = 4 << 20
    }

    let backend: NetworkBackend
    let chain: QuantizedChain
    var parameters: Parameters
    /// Tiles run by the last `run` (tests check that small budgets really tile).
    private(set) var tilesRun = 0
    private var plans: [PlanKey: ExecutionPlan] = [:]
    private var parameterPlan: ExecutionPlan?

    private struct PlanKey: Hashable {
        let layer: Int
        let height: Int
        let width: Int
    }

    init(backend: NetworkBackend, chain: QuantizedChain, parameters: Parameters = .init()) {
        self.backend = backend
        self.chain = chain
        self.parameters = parameters
    }

    /// A map of one byte per value: level `byte + low` of `quantizer`.
    final class Map {
        let channels: Int
        let height: Int
        let width: Int
        var quantizer: QuantizedChain.Quantizer
        let bytes: UnsafeMutableBufferPointer<UInt8>

        init(channels: Int, height: Int, width: Int, quantizer: QuantizedChain.Quantizer, for what: String) throws {
            self.channels = channels
            self.height = height
            self.width = width
            self.quantizer = quantizer
            bytes = try CheckedAllocation.zeroed(channels * height * width, of: UInt8.self, for: what)
        }
        deinit { bytes.deallocate() }

        var plane: Int { height * width }
        /// The float each byte stands for, as the fake quantisation computes it.
        var levels: [Float] { Self.levels(quantizer) }

        static func levels(_ q: QuantizedChain.Quantizer) -> [Float] {
            (q.low...q.high).map { Float($0 - q.zeroPoint) * q.scale }
        }
        /// The byte of a value that is one of `quantizer`'s levels (exact: v / scale is within
        /// a float step of an integer).
        static func byte(_ value: Float, _ q: QuantizedChain.Quantizer) -> UInt8 {
            UInt8(truncatingIfNeeded: Int((value / q.scale).rounded()) + q.zeroPoint - q.low)
        }
    }

    /// Fake quantisation of `values` as the graph's `fake_quant` step computes it.
    static func fakeQuantize(_ values: [Float], _ q: QuantizedChain.Quantizer) -> [Float] {
        var out = values
        out.withUnsafeMutableBufferPointer { q.apply($0.baseAddress!, $0.baseAddress!, count: $0.count) }
        return out
    }

    /// Every norm's γ and β for a style vector, from the chain's style part on the backend
    /// (lowered on the first run: every picture of a folder reuses it).
    func normParameters(styleVector: [Float]) throws -> [Float] {
        if parameterPlan == nil { parameterPlan = try GraphLowering.lower(chain.parameterGraph, input: chain.vectorShape) }
        let plan = parameterPlan!
        return try backend.run(plan, inputs: [.input: styleVector], normParameters: [], affine: nil, outputs: [.result])[.result]!
    }

    /// The picture (3 planes of `width` x `height`, values in [0, 1]) as the first map: bytes of
    /// the first layer's input quantisation (the reflect padding before it copies values, so
    /// quantising first gives the same values), reflected at the bottom and right up to sides
    /// that are multiples of 4 (two stride-2 layers, two 2x upsamplings), as the 26-style
    /// network's input is.
    func picture(_ picture: UnsafeBufferPointer<Float>, width: Int, height: Int) throws -> Map {
        precondition(picture.count >= 3 * width * height, "3 planes")
        let map = try Map(channels: 3, height: roundUp(height, Self.sizeMultiple), width: roundUp(width, Self.sizeMultiple),
                          quantizer: chain.layers[0].inputQuantizer, for: description(width, height))
        Self.quantize(picture, width: width, height: height, into: map)
        return map
    }

    private func description(_ width: Int, _ height: Int) -> String {
        "the arbitrary-style transform of a \(width)x\(height) picture"
    }

    /// The transform of a picture (`picture(_:width:height:)`) with a style vector: 3 planes of
    /// `width` x `height` (the padding cropped off), each value a multiple of the last
    /// quantisation's step. The picture's map is released after the first layer.
    func run(_ picture: consuming Map, width: Int, height: Int, styleVector: [Float]) throws -> [Float] {
        let what = description(width, height)
        let gammaBeta = try normParameters(styleVector: styleVector)
        tilesRun = 0
        defer { backend.releaseBuffers() }
        let layers = chain.layers
        let (fullHeight, fullWidth) = (picture.height, picture.width)
        // Consumed here: the parameter must not keep the picture's bytes alive to the end.
        var maps: [Int: Map] = [QuantizedChain.picture: consume picture]
        let lastUse = Self.lastUse(layers)
        var output: [Float] = []
        for (index, layer) in layers.enumerated() {
            let input = maps[layer.source]!
            let size = Self.outputSize(layer, input: (input.height, input.width))
            let out = try Map(channels: layer.outputChannels, height: size.height, width: size.width, quantizer: layer.rawQuantizer,
                              for: what)
            // Buffers sized for one layer's tiles are released before the next layer's.
            backend.releaseBuffers()
            let counts = try convolve(layer, index: index, input: input, into: out)
            if let norm = layer.norm {
                let c = layer.outputChannels, o = norm.offset
                Self.normalize(out, norm: norm.parameters, counts: counts, gamma: Array(gammaBeta[o..<(o + c)]),
                               beta: Array(gammaBeta[(o + c)..<(o + 2 * c)]))
            }
            if let residual = layer.residual { Self.add(maps[residual.source]!, into: out, quantizer: residual.quantizer) }
            maps[index] = out
            for (map, last) in lastUse where last == index { maps[map] = nil }
            if let final = layer.final {
                precondition(index == layers.count - 1 && size == (fullHeight, fullWidth), "the last layer keeps the size")
                output = try CheckedAllocation.floatArray(3 * width * height, for: what)
                output.withUnsafeMutableBufferPointer { output in
                    Self.finish(out, activation: final.activation, quantizer: final.quantizer, into: output, width: width, height: height)
                }
            }
        }
        return output
    }

    /// The last layer reading each map (the picture is `QuantizedChain.picture`).
    static func lastUse(_ layers: [QuantizedChain.Layer]) -> [Int: Int] {
        var lastUse: [Int: Int] = [:]
        for (index, layer) in layers.enumerated() {
            lastUse[layer.source] = index
            if let residual = layer.residual { lastUse[residual.source] = index }
        }
        return lastUse
    }

    static func outputSize(_ layer: QuantizedChain.Layer, input: (height: Int, width: Int)) -> (height: Int, width: Int) {
        let stride = layer.convolution.strideY, kernel = layer.convolution.kernelHeight
        return ((layer.upsample * input.height + 2 * layer.padding - kernel) / stride + 1,
                (layer.upsample * input.width + 2 * layer.padding - kernel) / stride + 1)
    }

    /// The most bytes `run` holds at once for a `width` x `height` picture, besides the tiles:
    /// the maps alive together (one byte per value), and at the end the output's floats.
    func mapBytes(width: Int, height: Int) -> Int {
        let layers = chain.layers, lastUse = Self.lastUse(layers)
        let full = (height: roundUp(height, Self.sizeMultiple), width: roundUp(width, Self.sizeMultiple))
        var alive: [Int: Int] = [QuantizedChain.picture: 3 * full.height * full.width]
        var sizes: [Int: (height: Int, width: Int)] = [QuantizedChain.picture: full]
        var peak = 0
        for (index, layer) in layers.enumerated() {
            let size = Self.outputSize(layer, input: sizes[layer.source]!)
            sizes[index] = size
            alive[index] = layer.outputChannels * size.height * size.width
            let output = layer.final == nil ? 0 : 4 * 3 * width * height
            peak = max(peak, alive.values.reduce(0, +) + output)
            for (map, last) in lastUse where last == index { alive[map] = nil }
        }
        return peak
    }

    /// The most bytes one tile needs: the window and result arrays here, their copies in the
    /// backend, the backend's own tensors of the tile plan, and what the allocator keeps of
    /// them between tiles: five times the tile's floats, from 12 MP runs (peak RSS 390-418 MB
    /// against 316 MB of program, maps and result with 4 Mi-float tiles).
    var tileBytes: Int { 5 * 4 * parameters.tileFloats }

    /// The network's sides are multiples of this.
    static let sizeMultiple = 4

    /// The bytes of `picture`'s values quantised with `map.quantizer`, reflected at the bottom
    /// and right into the map's larger size.
    static func quantize(_ picture: UnsafeBufferPointer<Float>, width: Int, height: Int, into map: Map) {
        let q = map.quantizer, bytes = map.bytes.baseAddress!, values = picture.baseAddress!
        ParallelFor.ranges(3 * map.height, grain: 8) { rows in
            var quantized = [Float](repeating: 0, count: width)
            for item in rows {
                let c = item / map.height, y = item % map.height
                let source = values + (c * height + ExecutionPlan.reflect(y, height)) * width
                let row = bytes + c * map.plane + y * map.width
                quantized.withUnsafeMutableBufferPointer { v in
                    q.apply(source, v.baseAddress!, count: width)
                    for x in 0..<map.width { row[x] = Map.byte(v[ExecutionPlan.reflect(x, width)], q) }
                }
            }
        }
    }

    /// The output side of a square tile whose input window and output fit `tileFloats`.
    func tileSide(_ layer: QuantizedChain.Layer, outHeight: Int, outWidth: Int) -> Int {
        let stride = layer.convolution.strideY, kernel = layer.convolution.kernelHeight
        var side = max(outHeight, outWidth)
        while side > 8 {
            let rows = min(side, outHeight), columns = min(side, outWidth)
            let floats = layer.inputChannels * ((rows - 1) * stride + kernel) * ((columns - 1) * stride + kernel)
                + layer.outputChannels * rows * columns
            if floats <= parameters.tileFloats { break }
            side = side * 7 / 8
        }
        return max(side, 8)
    }

    /// One layer's convolution over tiles of its output; returns each channel's count of every
    /// level of the raw output (empty when the layer has no norm).
    private func convolve(_ layer: QuantizedChain.Layer, index: Int, input: Map, into out: Map) throws -> [[Int64]] {
        let step = layer.convolution.strideY, kernel = layer.convolution.kernelHeight, scale = layer.upsample
        let side = tileSide(layer, outHeight: out.height, outWidth: out.width)
        // Input bytes to the convolution's input values: the source's level, quantised again
        // with this layer's input quantisation (the identity when both are the same).
        let table = Self.fakeQuantize(input.levels, layer.inputQuantizer)
        let levelsOut = out.quantizer.high - out.quantizer.low + 1
        var counts = [[Int64]](repeating: [Int64](repeating: 0, count: layer.norm == nil ? 0 : levelsOut),
                               count: layer.outputChannels)
        let upHeight = scale * input.height, upWidth = scale * input.width
        for top in stride(from: 0, to: out.height, by: side) {
            for left in stride(from: 0, to: out.width, by: side) {
                let rows = min(side, out.height - top), columns = min(side, out.width - left)
                let inRows = (rows - 1) * step + kernel, inColumns = (columns - 1) * step + kernel
                // Source rows and columns of the window: reflected in the upsampled map, then
                // divided down to the stored one.
                let sourceRows = (0..<inRows).map { ExecutionPlan.reflect(top * step - layer.padding + $0, upHeight) / scale }
                let sourceColumns = (0..<inColumns).map {
                    ExecutionPlan.reflect(left * step - layer.padding + $0, upWidth) / scale
                }
                var window = [Float](repeating: 0, count: layer.inputChannels * inRows * inColumns)
                window.withUnsafeMutableBufferPointer { window in
                    let w = window.baseAddress!, bytes = input.bytes.baseAddress!
                    ParallelFor.ranges(layer.inputChannels * inRows, grain: 16) { items in
                        for item in items {
                            let c = item / inRows, r = item % inRows
                            let row = bytes + c * input.plane + sourceRows[r] * input.width
                            let destination = w + item * inColumns
                            for x in 0..<inColumns { destination[x] = table[Int(row[sourceColumns[x]])] }
                        }
                    }
                }
                let plan = try self.plan(layer, index: index, height: inRows, width: inColumns)
                let result = try backend.run(plan, inputs: [.input: window], normParameters: [], affine: nil,
                                             outputs: [.result])[.result]!
                tilesRun += 1
                let q = out.quantizer, plane = rows * columns
                result.withUnsafeBufferPointer { values in
                    let bytes = out.bytes.baseAddress!
                    for c in 0..<layer.outputChannels {
                        for y in 0..<rows {
                            let row = bytes + c * out.plane + (top + y) * out.width + left
                            let from = values.baseAddress! + c * plane + y * columns
                            for x in 0..<columns { row[x] = Map.byte(from[x], q) }
                            if layer.norm != nil { for x in 0..<columns { counts[c][Int(row[x])] += 1 } }
                        }
                    }
                }
            }
        }
        return counts
    }

    /// The tile graph of one layer: an unpadded convolution of an already padded window, its
    /// ReLU if any, and its quantisation; lowered once per window shape.
    private func plan(_ layer: QuantizedChain.Layer, index: Int, height: Int, width: Int) throws -> ExecutionPlan {
        let key = PlanKey(layer: index, height: height, width: width)
        if let plan = plans[key] { return plan }
        var nodes: [NetworkGraph.Node] = [.init(name: "conv", operation: .convolution(layer.convolution), inputs: [0], output: 1)]
        var last = 1
        if layer.relu {
            nodes.append(.init(name: "relu", operation: .activation(.relu), inputs: [1], output: 2))
            last = 2
        }
        nodes.append(.init(name: "quantize", operation: .fakeQuantize(layer.rawQuantizer), inputs: [last], output: last + 1))
        let graph = NetworkGraph(input: 0, output: last + 1, tensorCount: last + 2, nodes: nodes, constants: chain.constants)
        let plan = try GraphLowering.lower(graph, input: .init(channels: layer.inputChannels, height: height, width: width))
        // Edge tiles add a few shapes per layer; whole passes of one shape reuse theirs.
        if plans.count > 64 { plans.removeAll() }
        plans[key] = plan
        return plan
    }

    /// The norm from the whole map's level counts, applied in place as a table per channel.
    static func normalize(_ map: Map, norm: NetworkGraph.QuantizedInstanceNorm, counts: [[Int64]], gamma: [Float], beta: [Float]) {
        let levels = map.levels, table = norm.table
        let output = norm.quantizers[9]
        for c in 0..<map.channels {
            var scale: Float = 0, shift: Float = 0
            var normalized = [Float](repeating: 0, count: levels.count)
            table.withUnsafeBufferPointer { q in
                counts[c].withUnsafeBufferPointer { n in
                    gs_quantized_instance_norm_parameters_histogram(levels, n.baseAddress!, Int32(levels.count), gamma[c], beta[c],
                                                                    q.baseAddress!, norm.epsilon, &scale, &shift)
                }
                gs_quantized_instance_norm_apply(levels, &normalized, Int64(levels.count), scale, shift, q.baseAddress!,
                                                 norm.relu ? 1 : 0)
            }
            let bytes = normalized.map { Map.byte($0, output) }
            remap(map, channel: c, bytes)
        }
        map.quantizer = output
    }

    /// `map` = quantise(`other` + `map`), elementwise (the residual add), as a table over both bytes.
    static func add(_ other: Map, into map: Map, quantizer: QuantizedChain.Quantizer) {
        precondition(other.channels == map.channels && other.height == map.height && other.width == map.width,
                     "the residual add's maps differ in shape")
        let a = other.levels, b = map.levels
        var sums = [Float](repeating: 0, count: a.count * b.count)
        for i in a.indices { for j in b.indices { sums[i * b.count + j] = a[i] + b[j] } }
        let table = fakeQuantize(sums, quantizer).map { Map.byte($0, quantizer) }
        let count = map.channels * map.plane, chunk = 1 << 16
        let x = other.bytes.baseAddress!, y = map.bytes.baseAddress!, stride = b.count
        ParallelFor.ranges((count + chunk - 1) / chunk) { chunks in
            for item in chunks {
                for i in (item * chunk)..<min(count, (item + 1) * chunk) { y[i] = table[Int(x[i]) * stride + Int(y[i])] }
            }
        }
        map.quantizer = quantizer
    }

    /// The last activation and quantisation, from bytes to the output floats (`width` x
    /// `height` of the map: the padding to a multiple of 4 cropped off).
    static func finish(_ map: Map, activation: Activation, quantizer: QuantizedChain.Quantizer,
                       into output: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        var activated = map.levels
        activated.withUnsafeMutableBufferPointer { v in
            gs_activation(v.baseAddress!, nil, Int64(v.count), Int32(activation.rawValue), 0, 0, 0, v.baseAddress!)
        }
        let table = fakeQuantize(activated, quantizer)
        let x = map.bytes.baseAddress!, y = output.baseAddress!
        ParallelFor.ranges(map.channels * height, grain: 8) { rows in
            for item in rows {
                let c = item / height, row = item % height
                let from = x + c * map.plane + row * map.width, to = y + (c * height + row) * width
                for i in 0..<width { to[i] = table[Int(from[i])] }
            }
        }
    }

    /// Channel `c`'s bytes through `table`.
    private static func remap(_ map: Map, channel c: Int, _ table: [UInt8]) {
        let plane = map.plane, bytes = map.bytes.baseAddress! + c * plane, chunk = 1 << 16
        ParallelFor.ranges((plane + chunk - 1) / chunk) { chunks in
            for item in chunks {
                for i in (item * chunk)..<min(plane, (item + 1) * chunk) { bytes[i] = table[Int(bytes[i])] }
            }
        }
    }
}
