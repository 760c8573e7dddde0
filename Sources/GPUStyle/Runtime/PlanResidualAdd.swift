/// A residual add fused into the 1x1 convolution just before it: both backends run the add as
/// the convolution's epilogue (the sum plus the bias, through the convolution's activation, plus
/// the other operand, then the add's fake quantisation) and skip the add step. The Vulkan
/// backend (`VulkanBackend.fusedAdd`, conv2d_graph_pointwise.glsl's ADD) and the CPU backend
/// (`gs_conv2d_params.residual`) decide it here, each adding what its own kernels need.
extension ExecutionPlan {
    /// The add step that `next` is when it can be the epilogue of the convolution `conv`: `conv`
    /// is a 1x1 convolution without fake quantisation of its own, the add takes its output and
    /// has no activation nor the output twice (x + x), and the add's output neither overlaps the convolution's input (other
    /// threads or workgroups still read it) nor partly overlaps its operands (an in-place add
    /// reads each float before it is written).
    public static func fusableResidualAdd(_ conv: Conv2D, _ next: Step?) -> Add? {
        guard case .add(let add)? = next, add.activation == .identity, add.a == conv.output || add.b == conv.output,
              add.a != add.b, conv.quantize == nil, conv.isPointwise else { return nil }
        guard !add.output.overlaps(conv.input),
              [add.a, add.b].allSatisfy({ $0 == add.output || !$0.overlaps(add.output) }) else { return nil }
        return add
    }

    /// Whether a step after `step` (or the caller, through `outputs`) may read any float of
    /// `region` as it is now: the later steps are followed until they have overwritten all of
    /// it. A step whose regions are unknown (`graphRegions` nil) counts as reading it.
    public func reads(_ region: Region, after step: Int, downloading outputs: [Buffer]) -> Bool {
        if outputs.contains(region.buffer) { return true }
        var live = [region.offset..<region.offset + region.floatCount]
        for later in steps.dropFirst(step + 1) {
            guard let regions = later.graphRegions else { return true }
            func touches(_ r: Region) -> Bool {
                r.buffer == region.buffer && live.contains { $0.overlaps(r.offset..<r.offset + r.floatCount) }
            }
            if regions.reads.contains(where: touches) { return true }
            let written = regions.writes
            guard written.buffer == region.buffer else { continue }
            let w = written.offset..<written.offset + written.floatCount
            live = live.flatMap { piece -> [Range<Int>] in
                guard piece.overlaps(w) else { return [piece] }
                return [piece.lowerBound..<max(piece.lowerBound, w.lowerBound), min(piece.upperBound, w.upperBound)..<piece.upperBound]
                    .filter { !$0.isEmpty }
            }
            if live.isEmpty { return false }
        }
        return false
    }
}

extension ExecutionPlan.Region {
    /// Whether the two regions share a float.
    func overlaps(_ other: ExecutionPlan.Region) -> Bool {
        buffer == other.buffer && offset < other.offset + other.floatCount && other.offset < offset + floatCount
    }
}
