/// One pass of tiled execution: a run of consecutive network layers over tiles of the last
/// layer's output map. Each tile's plan recomputes exactly the part of every earlier layer of the
/// pass that the tile needs (its halo), reflecting at the map's borders as the whole-image plan
/// does, so tile results are the whole-image results, not approximations of them.
struct TilePass {
    /// Consecutive layers (indices into `StyleNetwork.layers`).
    let layers: ClosedRange<Int>
    /// Normalisation of the pass input before its first layer: the stored raw output of layer
    /// `layer`, normalised with that layer's (already known) affine and activation.
    let inputNorm: (layer: Int, activation: Activation)?
    /// Channels of the pass input.
    let inputChannels: Int
    /// Sizes of every layer's input and output map for the whole (multiple-of-4) image.
    let maps: NetworkMaps

    var lastLayer: Int { layers.upperBound }
    var outputSize: (height: Int, width: Int) { maps.output(lastLayer) }
    var outputChannels: Int { StyleNetwork.layers[lastLayer].outputChannels }

    /// The plan of one tile: `rows` x `columns` of the last layer's output map. Its `input`
    /// buffer takes `inputRows` x `inputColumns` of the pass input; it leaves the last layer's
    /// raw output (before its norm) in `plan.output` and its moments in `.moments`.
    struct Tile {
        let plan: ExecutionPlan
        let rows: Range<Int>
        let columns: Range<Int>
        let inputRows: Range<Int>
        let inputColumns: Range<Int>
    }

    func tile(rows: Range<Int>, columns: Range<Int>) -> Tile {
        // Backwards: the output region each layer must compute, and its padded window.
        var windows: [Int: ExecutionPlan.Pad.Window] = [:]
        var region = (rows: rows, columns: columns)
        for index in layers.reversed() {
            let input = maps.input(index)
            let (rowAxis, sourceRows) = Self.axis(index, output: region.rows, inputSize: input.height)
            let (columnAxis, sourceColumns) = Self.axis(index, output: region.columns, inputSize: input.width)
            windows[index] = .init(rows: rowAxis, columns: columnAxis)
            region = (sourceRows, sourceColumns)
        }
        let inputRows = region.rows, inputColumns = region.columns

        // Forwards: the steps.
        var steps: [ExecutionPlan.Step] = []
        var sizes: [ExecutionPlan.Buffer: Int] = [:]
        func use(_ buffer: ExecutionPlan.Buffer, _ floats: Int) { sizes[buffer] = max(sizes[buffer] ?? 0, floats) }
        let inputShape = ExecutionPlan.DenseShape(channels: inputChannels, height: inputRows.count, width: inputColumns.count)
        use(.input, inputShape.floatCount)
        if let norm = inputNorm {
            steps.append(.instanceNormApply(.init(layer: norm.layer, source: .input, destination: .input, shape: inputShape,
                                          activation: norm.activation, residual: nil)))
        }
        var current = ExecutionPlan.Buffer.input, shape = inputShape
        for (position, index) in layers.enumerated() {
            let layer = StyleNetwork.layers[index]
            let pad = ExecutionPlan.Pad(source: current, destination: .padded, sourceShape: shape, upsample: layer.upsample,
                                        padding: layer.padding, split: layer.stride == 2, window: windows[index]!)
            use(.padded, pad.floatCount)
            steps.append(.pad(pad))
            let destination: ExecutionPlan.Buffer = position % 2 == 0 ? .a : .b
            let convolution = ExecutionPlan.Convolution(layer: index, input: pad, destination: destination,
                                                        outputChannels: layer.outputChannels, kernel: layer.kernel, stride: layer.stride)
            use(destination, convolution.outputShape.floatCount)
            steps.append(.convolution(convolution))
            if index != lastLayer {
                steps.append(.instanceNormApply(.init(layer: index, source: destination, destination: destination,
                                              shape: convolution.outputShape, activation: layer.activation, residual: nil)))
            }
            current = destination
            shape = convolution.outputShape
        }
        precondition(shape.height == rows.count && shape.width == columns.count, "tile geometry does not close")
        let moments = ExecutionPlan.InstanceNormMoments(layer: lastLayer, source: current, shape: shape)
        use(.moments, moments.floatCount)
        steps.append(.instanceNormMoments(moments))
        let plan = ExecutionPlan(steps: steps, bufferFloats: sizes, inputShape: inputShape, output: current, outputShape: shape,
                                 outputFloats: shape.floatCount).fusingPads()
        return Tile(plan: plan, rows: rows, columns: columns, inputRows: inputRows, inputColumns: inputColumns)
    }

    /// Along one axis: the padded window layer `index` reads to produce `output`, and the rows of
    /// its (not upsampled) input map that the window copies.
    static func axis(_ index: Int, output: Range<Int>, inputSize: Int) -> (ExecutionPlan.Pad.Window.Axis, Range<Int>) {
        let layer = StyleNetwork.layers[index]
        let scale = layer.upsample ? 2 : 1
        let start = output.lowerBound * layer.stride - layer.padding
        let end = (output.upperBound - 1) * layer.stride - layer.padding + layer.kernel
        var low = Int.max, high = Int.min
        for logical in start..<end {
            let row = ExecutionPlan.reflect(logical, scale * inputSize) / scale
            low = min(low, row)
            high = max(high, row)
        }
        return (.init(sourceStart: low, fullSize: inputSize, start: start, size: end - start), low..<(high + 1))
    }
}

/// Input and output map sizes of every layer for one (multiple-of-4) image size.
struct NetworkMaps {
    private var inputs: [(height: Int, width: Int)] = []
    private var outputs: [(height: Int, width: Int)] = []

    init(height: Int, width: Int) {
        var h = height, w = width
        for layer in StyleNetwork.layers {
            inputs.append((h, w))
            let scale = layer.upsample ? 2 : 1
            h = (scale * h + 2 * layer.padding - layer.kernel) / layer.stride + 1
            w = (scale * w + 2 * layer.padding - layer.kernel) / layer.stride + 1
            outputs.append((h, w))
        }
    }

    func input(_ layer: Int) -> (height: Int, width: Int) { inputs[layer] }
    func output(_ layer: Int) -> (height: Int, width: Int) { outputs[layer] }
}
