/// Convolution weights repacked for conv2d.comp, which reads them from a uniform buffer (at
/// most `maxChunkBytes`, 64 KiB on lavapipe, per binding).
///
/// Within a chunk the layout is [group][ci][K][K] vec4s, a group being four output channels
/// side by side (one vec4 load feeds four accumulators). Output channels are zero-padded to a
/// multiple of 8 so an 8-channel block never reads past its chunk. A layer too large for one
/// binding is split into chunks of `groupsPerChunk` groups x `inputsPerChunk` input channels,
/// each contiguous; the network's layers (at most 36 KiB) are one chunk each.
struct VulkanPackedWeights {
    struct Layer {
        let outputChannels: Int
        let inputChannels: Int
        let kernel: Int
        let groupsPerChunk: Int
        let inputsPerChunk: Int
        /// Byte offset of each chunk, [output chunk][input chunk] (256-byte aligned).
        let chunkOffsets: [[Int]]

        var groups: Int { roundUp(outputChannels, VulkanPackedWeights.outputChannelPadding) / 4 }

        func chunkBytes(outputChunk: Int, inputChunk: Int) -> Int {
            let g = min(groupsPerChunk, groups - outputChunk * groupsPerChunk)
            let ci = min(inputsPerChunk, inputChannels - inputChunk * inputsPerChunk)
            return 16 * g * ci * kernel * kernel
        }
    }

    let layers: [Layer]
    let floats: [Float]

    static let outputChannelPadding = 8

    init(_ weights: [ConvolutionWeights], maxChunkBytes: Int) {
        var layers: [Layer] = []
        var floats: [Float] = []
        for w in weights {
            let taps = w.kernel * w.kernel
            let groups = roundUp(w.outputChannels, Self.outputChannelPadding) / 4
            let pairs = max(1, maxChunkBytes / (16 * taps))  // (group, input channel) pairs per chunk
            // Whole layer when it fits; otherwise an even number of groups (8-channel blocks stay
            // in one chunk) and as many input channels as fit with them.
            var groupsPerChunk = min(groups, pairs)
            if groupsPerChunk < groups { groupsPerChunk = max(2, groupsPerChunk / 2 * 2) }
            let inputsPerChunk = max(1, min(w.inputChannels, pairs / groupsPerChunk))
            var offsets: [[Int]] = []
            for g0 in stride(from: 0, to: groups, by: groupsPerChunk) {
                var row: [Int] = []
                for c0 in stride(from: 0, to: w.inputChannels, by: inputsPerChunk) {
                    floats += [Float](repeating: 0, count: roundUp(floats.count, 64) - floats.count)  // 256-byte alignment
                    row.append(4 * floats.count)
                    let g1 = min(groups, g0 + groupsPerChunk), c1 = min(w.inputChannels, c0 + inputsPerChunk)
                    for g in g0..<g1 {
                        for ci in c0..<c1 {
                            for tap in 0..<taps {
                                for lane in 0..<4 {
                                    let co = 4 * g + lane
                                    floats.append(co < w.outputChannels ? w.values[(co * w.inputChannels + ci) * taps + tap] : 0)
                                }
                            }
                        }
                    }
                }
                offsets.append(row)
            }
            layers.append(Layer(outputChannels: w.outputChannels, inputChannels: w.inputChannels, kernel: w.kernel,
                                groupsPerChunk: groupsPerChunk, inputsPerChunk: inputsPerChunk, chunkOffsets: offsets))
        }
        self.layers = layers
        self.floats = floats
    }
}
