/// A frame's coarse look: the mean luma of each cell of a 16 x 12 grid. Two frames whose
/// signatures differ by more than a threshold show different scenes (a cut, a fast pan, the
/// camera put down), so a result computed on one is not shown on the other.
///
/// On the committed clips (640x480, luma levels 0-255), the mean cell difference between frames
/// 0.5 s apart is at most 22.7 (p99 20.9, median 7.6) while a hand-held camera moves around a
/// picture (Fixtures/live), and 0.2 s apart at most 17.1; a fast pan away from the picture
/// reaches 36 within 0.1 s (Fixtures/live-pan); frames of the two different clips differ by at
/// least 23.2 (median 37.7).
public struct SceneSignature: Sendable, Equatable {
    public static let columns = 16, rows = 12
    /// Cell means in luma levels.
    public let cells: [Float]

    /// From the luma plane, reading every second pixel of every second row (0.1 ms at 640x480).
    public init(_ frame: YUVFrame) {
        let columns = Self.columns, rows = Self.rows
        var sums = [Float](repeating: 0, count: columns * rows)
        var counts = [Int](repeating: 0, count: columns * rows)
        guard frame.width > 0 && frame.height > 0 else { cells = sums; return }
        frame.y.withUnsafeBufferPointer { y in
            for py in stride(from: 0, to: frame.height, by: 2) {
                let row = py * rows / frame.height
                var total: UInt32 = 0, column = 0, n = 0
                for px in stride(from: 0, to: frame.width, by: 2) {
                    let c = px * columns / frame.width
                    if c != column {
                        sums[row * columns + column] += Float(total)
                        counts[row * columns + column] += n
                        total = 0; n = 0; column = c
                    }
                    total += UInt32(y[py * frame.width + px])
                    n += 1
                }
                sums[row * columns + column] += Float(total)
                counts[row * columns + column] += n
            }
        }
        cells = zip(sums, counts).map { $1 > 0 ? $0 / Float($1) : 0 }
    }

    /// Mean absolute difference of the cells, in luma levels.
    public func distance(to other: SceneSignature) -> Float {
        zip(cells, other.cells).map { abs($0 - $1) }.reduce(0, +) / Float(max(1, cells.count))
    }
}
