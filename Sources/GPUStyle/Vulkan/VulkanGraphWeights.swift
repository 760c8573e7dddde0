/// How a graph convolution's weights are laid out for the uniform-buffer shaders
/// (conv2d_graph_pointwise.comp, conv2d_graph_general.comp, conv2d_graph_depthwise.comp,
/// conv2d_graph_winograd.comp): a
/// sequence of pieces of at most `maxPieceFloats`, each starting on a 256-byte boundary (every
/// device's uniform-buffer offset alignment divides 256, and the pool aligns to 256), one piece
/// bound per dispatch.
///
/// Dense layers (pointwise, general): output channels in blocks of `co` (zero padded), input
/// channels in chunks of `cinChunk` so one block's chunk fits a piece; piece (chunk, group)
/// holds `blocksPerPiece` blocks as [block][cin of the chunk][kh][kw][co] floats. Depthwise:
/// [channel][kh * kw padded to 4] floats, `blocksPerPiece` channels per piece. Winograd: as
/// dense layers with the 16 transform-domain positions of F(2x2, 3x3) for taps
/// (`VulkanBackend.winogradWeights`).
///
/// Everything here depends on the layer's channels and kernel only, never on the map's size,
/// so a tiled run sums every output in the same order as a whole-image one.
struct VulkanGraphWeights: Hashable {
    /// A uniform-buffer binding's most (64 KiB, conv2d.comp's `weights[4096]`).
    static let maxPieceFloats = 16384
    /// Floats of a 256-byte boundary.
    static let alignmentFloats = 64

    enum Kind: Hashable { case pointwise, general, depthwise, winograd }

    let kind: Kind
    let inputs: Int
    let outputs: Int
    let taps: Int
    /// Output channels per block (dense: 4 or 8; depthwise: 1).
    let co: Int
    let cinChunk: Int
    let blocksPerPiece: Int

    init(_ conv: ExecutionPlan.Conv2D, kind: Kind) {
        self.kind = kind
        inputs = conv.input.channels / conv.groups
        outputs = conv.output.channels
        taps = kind == .winograd ? VulkanBackend.winogradPositions : conv.kernelHeight * conv.kernelWidth
        if kind == .depthwise {
            co = 1
            cinChunk = 1
            blocksPerPiece = Self.maxPieceFloats / Self.depthwiseStride(taps: taps)
        } else {
            // 8 output channels per invocation (two vec4s per weight load) unless the layer
            // has fewer; 4 when one 8-channel block of a single input channel's taps would
            // not fit. 16 measured the same on MobileNetV2's 1x1 layers (6.6 against 6.5
            // GFLOP/s, lavapipe on AMD EPYC Zen 4) and pads small layers more.
            co = kind == .winograd ? (outputs > 4 ? VulkanBackend.winogradOutputBlock : 4)
                : outputs > 4 && 8 * taps <= Self.maxPieceFloats ? 8 : 4
            cinChunk = min(inputs, Self.maxPieceFloats / (taps * co))
            blocksPerPiece = max(1, Self.maxPieceFloats / (cinChunk * taps * co))
        }
    }

    /// `layout` as another kind with the same sizes (Winograd's packing is the general one's).
    private init(copying layout: VulkanGraphWeights, kind: Kind) {
        self.kind = kind
        inputs = layout.inputs
        outputs = layout.outputs
        taps = layout.taps
        co = layout.co
        cinChunk = layout.cinChunk
        blocksPerPiece = layout.blocksPerPiece
    }

    /// Whether the uniform-buffer shaders take this layer (the rest run conv2d_graph.comp).
    static func fits(_ conv: ExecutionPlan.Conv2D) -> Bool {
        4 * conv.kernelHeight * conv.kernelWidth <= maxPieceFloats
    }

    static func depthwiseStride(taps: Int) -> Int { (taps + 3) / 4 * 4 }

    var blocks: Int { (outputs + co - 1) / co }
    var cinChunks: [Range<Int>] { stride(from: 0, to: inputs, by: cinChunk).map { $0..<min(inputs, $0 + cinChunk) } }
    var blockGroups: [Range<Int>] {
        stride(from: 0, to: blocks, by: blocksPerPiece).map { $0..<min(blocks, $0 + blocksPerPiece) }
    }

    private func round(_ floats: Int) -> Int { (floats + Self.alignmentFloats - 1) / Self.alignmentFloats * Self.alignmentFloats }

    /// One dispatch's weights: where they start (floats) and how many there are.
    struct Piece {
        let cin: Range<Int>
        let blocks: Range<Int>
        let offset: Int
        let floats: Int
    }

    /// The pieces in dispatch order: input-channel chunks outermost (later chunks continue from
    /// the sums of earlier ones).
    var pieces: [Piece] {
        var result: [Piece] = []
        var offset = 0
        for cin in kind == .depthwise ? [0..<1] : cinChunks {
            for blocks in blockGroups {
                let floats = kind == .depthwise ? blocks.count * Self.depthwiseStride(taps: taps) : blocks.count * cin.count * taps * co
                result.append(Piece(cin: cin, blocks: blocks, offset: offset, floats: floats))
                offset += round(floats)
            }
        }
        return result
    }

    /// The pieces grouped for dispatches of up to `piecesPerDispatch` pieces of one
    /// input-channel chunk, in dispatch order. Every piece but a chunk's last holds
    /// `blocksPerPiece` blocks, so a dispatch's block b is in its piece b / blocksPerPiece.
    func dispatchGroups(piecesPerDispatch: Int) -> [[Piece]] {
        var groups: [[Piece]] = []
        for piece in pieces {
            if let last = groups.last, last[0].cin == piece.cin && last.count < piecesPerDispatch {
                groups[groups.count - 1].append(piece)
            } else {
                groups.append([piece])
            }
        }
        return groups
    }

    var totalFloats: Int { pieces.last.map { $0.offset + $0.floats } ?? 0 }

    /// The ONNX weights [out][in][kh][kw] in this layout (Winograd: transformed first).
    func pack(_ weights: [Float]) -> [Float] {
        if kind == .winograd {
            return Self(copying: self, kind: .general).pack(VulkanBackend.winogradWeights(weights, outputs: outputs, inputs: inputs))
        }
        precondition(weights.count == outputs * inputs * taps, "graph weights: wrong size")
        var packed = [Float](repeating: 0, count: totalFloats)
        for piece in pieces {
            var i = piece.offset
            if kind == .depthwise {
                for channel in piece.blocks {
                    for t in 0..<taps { packed[i + t] = weights[channel * taps + t] }
                    i += Self.depthwiseStride(taps: taps)
                }
                continue
            }
            for block in piece.blocks {
                for ci in piece.cin {
                    for t in 0..<taps {
                        for c in 0..<co {
                            let o = block * co + c
                            if o < outputs { packed[i] = weights[(o * inputs + ci) * taps + t] }
                            i += 1
                        }
                    }
                }
            }
        }
        return packed
    }
}
