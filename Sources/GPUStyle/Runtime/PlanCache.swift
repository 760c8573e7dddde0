/// A model's plans by input size, for networks run on frames of a few sizes (a live video repeats
/// one; the face detector's pyramid runs several): each size is lowered once
/// (`GraphLowering.lower`), and all are dropped when `capacity` sizes are held.
struct PlanCache {
    let graph: NetworkGraph
    let channels: Int
    static let capacity = 8
    private var plans: [Size: ExecutionPlan] = [:]

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    init(graph: NetworkGraph, channels: Int = 3) {
        self.graph = graph
        self.channels = channels
    }

    /// The plan for a `width` x `height` input.
    mutating func plan(width: Int, height: Int) throws -> ExecutionPlan {
        let size = Size(width: width, height: height)
        if let plan = plans[size] { return plan }
        if plans.count >= Self.capacity { plans.removeAll() }
        let plan = try GraphLowering.lower(graph, input: .init(channels: channels, height: height, width: width))
        plans[size] = plan
        return plan
    }
}
