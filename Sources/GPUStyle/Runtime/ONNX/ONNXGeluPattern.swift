import Foundation

/// GELU as exporters write it out (Paddle's and torch's exporters before opset 20, which has
/// no Gelu op): y = (x * (erf(x / sqrt 2) + 1)) * 0.5, five nodes
///
///     Div(x, 1.4142135) -> Erf -> Add(·, 1) -> Mul(x, ·) -> Mul(·, 0.5)
///
/// imported as one `.gelu` activation (fused into the convolution before it by `GraphLowering`).
/// PP-OCRv6's detector has 13 such chains and its recogniser 10; written out they would be five
/// passes over each map instead of none.
extension ONNXGraphBuilder {
    /// How far the chain's constants may be from 2^0.5, 1 and 0.5 (exporters write them in float32).
    static let geluConstantTolerance: Float = 1e-5

    /// The chain starting at the Div node `start`, when every intermediate value is read by the
    /// next node of the chain only: its input name, its last node and the nodes before it.
    func geluChain(startingAt start: Int) -> (input: String, end: Int, members: Set<Int>)? {
        let nodes = model.graph.node
        let div = nodes[start]
        guard div.opType == "Div", div.input.count == 2, div.output.count == 1,
              isScalar(div.input[1], Float(2).squareRoot()) else { return nil }
        let x = div.input[0]
        guard values[x] != nil else { return nil }
        /// The one node reading `name`, if it is an `op` node with one output.
        func only(_ name: String, _ op: String) -> Int? {
            guard readers[name] == 1, let readers = consumers[name], readers.count == 1 else { return nil }
            let index = readers[0]
            guard nodes[index].opType == op, nodes[index].output.count == 1, nodes[index].input.count == (op == "Erf" ? 1 : 2)
            else { return nil }
            return index
        }
        func other(_ node: Onnx_NodeProto, than name: String) -> String? {
            let rest = node.input.filter { $0 != name }
            return rest.count == 1 ? rest[0] : nil
        }
        guard let erf = only(div.output[0], "Erf"),
              let add = only(nodes[erf].output[0], "Add"),
              let one = other(nodes[add], than: nodes[erf].output[0]), isScalar(one, 1),
              let mul = only(nodes[add].output[0], "Mul"),
              other(nodes[mul], than: nodes[add].output[0]) == x,
              let half = only(nodes[mul].output[0], "Mul"),
              let h = other(nodes[half], than: nodes[mul].output[0]), isScalar(h, 0.5) else { return nil }
        return (x, half, [start, erf, add, mul])
    }

    /// Whether `name` is a constant of one value within `geluConstantTolerance` of `value`.
    private func isScalar(_ name: String, _ value: Float) -> Bool {
        guard let t = constants[name], t.count == 1 else { return false }
        return abs(t.floats[0] - value) <= Self.geluConstantTolerance
    }
}
