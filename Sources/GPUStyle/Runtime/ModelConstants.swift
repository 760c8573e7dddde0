/// A model's weights, by index: immutable once made, shared by the graph, its plans and the
/// backends (which prepare each constant once per `ModelConstants` object: packed for the CPU
/// kernels, uploaded for Vulkan).
public final class ModelConstants: Sendable {
    public let values: [[Float]]
    public let names: [String]

    public init(values: [[Float]], names: [String]? = nil) {
        self.values = values
        self.names = names ?? values.indices.map { "constant \($0)" }
        precondition(self.names.count == values.count, "one name per constant")
    }

    public var count: Int { values.count }
    public subscript(index: Int) -> [Float] { values[index] }

    /// A new set with `extra` appended (indices of the existing constants are kept).
    public func appending(_ extra: [[Float]], names extraNames: [String]) -> ModelConstants {
        ModelConstants(values: values + extra, names: names + extraNames)
    }
}
