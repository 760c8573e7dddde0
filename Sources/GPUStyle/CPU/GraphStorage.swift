/// The plan buffers of one CPU run as the graph-step kernels see them: a region's first float.
struct GraphStorage {
    let buffers: [ExecutionPlan.Buffer: UnsafeMutablePointer<Float>]
    let constants: ModelConstants?

    func pointer(_ region: ExecutionPlan.Region) -> UnsafeMutablePointer<Float> { buffers[region.buffer]! + region.offset }

    /// Calls `body` with the activation's PReLU slopes (empty for other kinds).
    func withSlopes<R>(_ function: NetworkGraph.ActivationFunction, _ body: (UnsafeBufferPointer<Float>) -> R) -> R {
        guard function.kind == .prelu, let index = function.slopes, let constants else {
            precondition(function.kind != .prelu, "PReLU without its slope constant")
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return constants[index].withUnsafeBufferPointer(body)
    }
}

/// Runs `body(channel, floats)` over `channels` planes of `plane` floats split into pieces of at
/// most `grain` floats, on all cores: the elementwise steps' parallel loop.
func forEachPlanePiece(channels: Int, plane: Int, grain: Int = 1 << 14, _ body: (_ channel: Int, _ floats: Range<Int>) -> Void) {
    ParallelFor.ranges(channels * plane, grain: grain) { range in forEachRowRun(range, rows: plane, body) }
}
