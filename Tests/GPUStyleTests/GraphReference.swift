import Foundation
@testable import GPUStyle

/// A naive, loop-per-formula evaluator of a `NetworkGraph` (test only, Double accumulation),
/// independent of the CPU and Vulkan kernels: it checks what an importer builds against torch.
enum GraphReference {
    typealias Shape = NetworkGraph.Shape

    struct Tensor {
        var shape: Shape
        var values: [Float]
        subscript(c: Int, y: Int, x: Int) -> Float { values[(c * shape.height + y) * shape.width + x] }
    }

    /// `mix`: the style weights conditional instance norms mix their γ and β rows by.
    static func run(_ graph: NetworkGraph, input: Tensor, mix: [Float] = []) throws -> Tensor {
        var tensors = [Tensor?](repeating: nil, count: graph.tensorCount)
        tensors[graph.input] = input
        for node in graph.nodes {
            let xs = node.inputs.map { tensors[$0]! }
            tensors[node.output] = try evaluate(node.operation, xs, graph.constants, mix: mix)
        }
        return tensors[graph.output]!
    }

    static func activate(_ v: Float, _ f: NetworkGraph.ActivationFunction, channel: Int, _ k: ModelConstants) -> Float {
        switch f.kind {
        case .identity: v
        case .relu: max(v, 0)
        case .sigmoid: 1 / (1 + exp(-v))
        case .relu6: min(max(v, 0), 6)
        case .leakyRelu: v >= 0 ? v : f.alpha * v
        case .hardSigmoid: max(0, min(1, f.alpha * v + f.beta))
        case .hardSwish: v * min(max(v + 3, 0), 6) / 6
        case .prelu: v >= 0 ? v : k[f.slopes!][channel] * v
        case .gelu: Float(0.5 * Double(v) * (1 + erf(Double(v) / 2.0.squareRoot())))
        }
    }

    /// Zero or reflection padded map value at (y, x), which may lie outside the map.
    static func padded(_ t: Tensor, _ c: Int, _ y: Int, _ x: Int, _ mode: NetworkGraph.PaddingMode) -> Float {
        let (h, w) = (t.shape.height, t.shape.width)
        if mode == .zero { return y < 0 || y >= h || x < 0 || x >= w ? 0 : t[c, y, x] }
        let ry = y < 0 ? -y : (y >= h ? 2 * (h - 1) - y : y)
        let rx = x < 0 ? -x : (x >= w ? 2 * (w - 1) - x : x)
        return t[c, ry, rx]
    }

    static func convolution(_ t: Tensor, _ c: NetworkGraph.Convolution, _ k: ModelConstants) -> Tensor {
        let inC = t.shape.channels, groups = c.groups, perGroup = inC / groups, outPerGroup = c.outputChannels / groups
        let h = (t.shape.height + c.padding.top + c.padding.bottom - c.kernelHeight) / c.strideY + 1
        let w = (t.shape.width + c.padding.left + c.padding.right - c.kernelWidth) / c.strideX + 1
        let weights = k[c.weights], bias = c.bias.map { k[$0] }
        var out = [Float](repeating: 0, count: c.outputChannels * h * w)
        for o in 0..<c.outputChannels {
            let g = o / outPerGroup
            for y in 0..<h {
                for x in 0..<w {
                    var sum = Double(bias?[o] ?? 0)
                    for i in 0..<perGroup {
                        for ky in 0..<c.kernelHeight {
                            for kx in 0..<c.kernelWidth {
                                let v = padded(t, g * perGroup + i, y * c.strideY + ky - c.padding.top,
                                               x * c.strideX + kx - c.padding.left, c.paddingMode)
                                sum += Double(v) * Double(weights[((o * perGroup + i) * c.kernelHeight + ky) * c.kernelWidth + kx])
                            }
                        }
                    }
                    out[(o * h + y) * w + x] = activate(Float(sum), c.activation, channel: o, k)
                }
            }
        }
        return Tensor(shape: Shape(channels: c.outputChannels, height: h, width: w), values: out)
    }

    static func evaluate(_ op: NetworkGraph.Operation, _ xs: [Tensor], _ k: ModelConstants, mix: [Float] = []) throws -> Tensor {
        let t = xs[0], s = t.shape
        func map(_ shape: Shape, _ f: (Int, Int, Int) -> Float) -> Tensor {
            var values: [Float] = []
            values.reserveCapacity(shape.elementCount)
            for c in 0..<shape.channels { for y in 0..<shape.height { for x in 0..<shape.width { values.append(f(c, y, x)) } } }
            return Tensor(shape: shape, values: values)
        }
        switch op {
        case .convolution(let c):
            return convolution(t, c, k)
        case .transposedConvolution(let tc):
            let w = k[tc.weights], bias = tc.bias.map { k[$0] }
            return map(Shape(channels: tc.outputChannels, height: 2 * s.height, width: 2 * s.width)) { o, y, x in
                var sum = Double(bias?[o] ?? 0)
                for i in 0..<s.channels {
                    sum += Double(t[i, y / 2, x / 2]) * Double(w[((i * tc.outputChannels + o) * 2 + y % 2) * 2 + x % 2])
                }
                return activate(Float(sum), tc.activation, channel: o, k)
            }
        case .activation(let f):
            return map(s) { c, y, x in activate(t[c, y, x], f, channel: c, k) }
        case .add(let f):
            return map(s) { c, y, x in activate(t[c, y, x] + xs[1][c, y, x], f, channel: c, k) }
        case .channelMultiply:
            return map(s) { c, y, x in t[c, y, x] * xs[1][c, 0, 0] }
        case .globalAveragePool:
            return map(Shape(channels: s.channels, height: 1, width: 1)) { c, _, _ in
                var sum = 0.0
                for y in 0..<s.height { for x in 0..<s.width { sum += Double(t[c, y, x]) } }
                return Float(sum / Double(s.height * s.width))
            }
        case .maxPool(let p):
            let h = (s.height + p.padding.top + p.padding.bottom - p.kernel) / p.stride + 1
            let w = (s.width + p.padding.left + p.padding.right - p.kernel) / p.stride + 1
            return map(Shape(channels: s.channels, height: h, width: w)) { c, y, x in
                var best = -Float.infinity
                for ky in 0..<p.kernel {
                    for kx in 0..<p.kernel {
                        let sy = y * p.stride + ky - p.padding.top, sx = x * p.stride + kx - p.padding.left
                        if sy >= 0, sy < s.height, sx >= 0, sx < s.width { best = max(best, t[c, sy, sx]) }
                    }
                }
                return best
            }
        case .fullyConnected(let weights, let bias, let outputs):
            let w = k[weights], b = bias.map { k[$0] }, n = s.elementCount
            return map(Shape(channels: outputs, height: 1, width: 1)) { o, _, _ in
                var sum = Double(b?[o] ?? 0)
                for i in 0..<n { sum += Double(w[o * n + i]) * Double(t.values[i]) }
                return Float(sum)
            }
        case .softmax:
            return map(s) { c, y, x in
                let top = (0..<s.channels).map { t[$0, y, x] }.max()!
                let total = (0..<s.channels).reduce(0.0) { $0 + exp(Double(t[$1, y, x] - top)) }
                return Float(exp(Double(t[c, y, x] - top)) / total)
            }
        case .concat:
            let starts = xs.reduce(into: [0]) { $0.append($0.last! + $1.shape.channels) }
            return map(Shape(channels: starts.last!, height: s.height, width: s.width)) { c, y, x in
                let part = starts.lastIndex { $0 <= c }!
                return xs[part][c - starts[part], y, x]
            }
        case .resize(let mode, let scale):
            return map(Shape(channels: s.channels, height: scale * s.height, width: scale * s.width)) { c, y, x in
                if mode == .nearest { return t[c, y / scale, x / scale] }
                // Half-pixel centres, clamped at the edges.
                func source(_ d: Int, _ size: Int) -> (Int, Int, Double) {
                    let p = max((Double(d) + 0.5) / Double(scale) - 0.5, 0)
                    let i = min(Int(p), size - 1)
                    return (i, min(i + 1, size - 1), p - Double(i))
                }
                let (y0, y1, fy) = source(y, s.height), (x0, x1, fx) = source(x, s.width)
                let top = Double(t[c, y0, x0]) * (1 - fx) + Double(t[c, y0, x1]) * fx
                let bottom = Double(t[c, y1, x0]) * (1 - fx) + Double(t[c, y1, x1]) * fx
                return Float(top * (1 - fy) + bottom * fy)
            }
        case .pad(let p, let mode):
            return map(Shape(channels: s.channels, height: s.height + p.top + p.bottom, width: s.width + p.left + p.right)) { c, y, x in
                padded(t, c, y - p.top, x - p.left, mode)
            }
        case .fakeQuantize(let q):
            // The ONNX formulas, with Foundation's rounding rather than the kernels' rint.
            return map(s) { c, y, x in
                let v = (t[c, y, x] / q.scale).rounded(.toNearestOrEven) + Float(q.zeroPoint)
                return (min(max(v, Float(q.low)), Float(q.high)) - Float(q.zeroPoint)) * q.scale
            }
        case .quantizedInstanceNorm(let n):
            func fq(_ v: Float, _ k: Int) -> Float {
                let q = n.quantizers[k]
                let t = (v / q.scale).rounded(.toNearestOrEven) + Float(q.zeroPoint)
                return (min(max(t, Float(q.low)), Float(q.high)) - Float(q.zeroPoint)) * q.scale
            }
            let plane = s.height * s.width
            var out = t
            for c in 0..<s.channels {
                let values = t.values[(c * plane)..<((c + 1) * plane)]
                let m = fq(Float(values.reduce(0.0) { $0 + Double($1) } / Double(plane)), 0)
                let v = fq(Float(values.reduce(0.0) { $0 + Double(fq(($1 - m) * ($1 - m), 1)) } / Double(plane)), 2)
                let r = fq(1 / fq(v + n.epsilon, 3).squareRoot(), 4)
                let g = fq(r * xs[1].values[c], 5)
                let b = fq(xs[2].values[c] - fq(m * g, 6), 7)
                for i in c * plane..<(c + 1) * plane {
                    let y = fq(t.values[i] * g, 8) + b
                    out.values[i] = fq(n.relu ? max(y, 0) : y, 9)
                }
            }
            return out
        case .instanceNorm(let n):
            // Two passes in Double: the mean, then the biased variance about it.
            let count = Double(s.height * s.width)
            var scales: [Double] = [], shifts: [Double] = []
            for c in 0..<s.channels {
                var sum = 0.0
                for y in 0..<s.height { for x in 0..<s.width { sum += Double(t[c, y, x]) } }
                let mean = sum / count
                var squares = 0.0
                for y in 0..<s.height { for x in 0..<s.width { squares += (Double(t[c, y, x]) - mean) * (Double(t[c, y, x]) - mean) } }
                var gamma = 0.0, beta = 0.0
                for (style, weight) in mix.enumerated() {
                    gamma += Double(weight) * Double(k[n.gamma][style * s.channels + c])
                    beta += Double(weight) * Double(k[n.beta][style * s.channels + c])
                }
                let scale = gamma / (squares / count + Double(StyleNetwork.instanceNormEpsilon)).squareRoot()
                scales.append(scale)
                shifts.append(beta - mean * scale)
            }
            return map(s) { c, y, x in activate(Float(Double(t[c, y, x]) * scales[c] + shifts[c]), n.activation, channel: c, k) }
        }
    }
}
