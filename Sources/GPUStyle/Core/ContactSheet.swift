/// Lays out images in a grid on a white page, each labelled with a number drawn from a tiny
/// built-in bitmap font (no font files needed).
public enum ContactSheet {
    public static func make(cells: [(label: String, image: Image)], columns: Int, gap: Int = 6) -> Image {
        let cellW = cells.map(\.image.width).max() ?? 1, cellH = cells.map(\.image.height).max() ?? 1
        let rows = (cells.count + columns - 1) / columns
        let width = columns * cellW + (columns + 1) * gap, height = rows * cellH + (rows + 1) * gap
        var rgb = [Float](repeating: 1, count: 3 * width * height)
        for (index, cell) in cells.enumerated() {
            let left = gap + (index % columns) * (cellW + gap), top = gap + (index / columns) * (cellH + gap)
            let image = cell.image
            for c in 0..<3 {
                for y in 0..<image.height {
                    for x in 0..<image.width {
                        rgb[(c * height + top + y) * width + left + x] = image.rgb[(c * image.height + y) * image.width + x]
                    }
                }
            }
            drawLabel(cell.label, into: &rgb, width: width, height: height, left: left + 2, top: top + 2)
        }
        return Image(width: width, height: height, rgb: rgb, alpha: nil)
    }

    /// 3x5 glyphs, one row per 3-bit number, for the characters labels use.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [7, 5, 5, 5, 7], "1": [2, 6, 2, 2, 7], "2": [7, 1, 7, 4, 7], "3": [7, 1, 7, 1, 7],
        "4": [5, 5, 7, 1, 1], "5": [7, 4, 7, 1, 7], "6": [7, 4, 7, 5, 7], "7": [7, 1, 1, 1, 1],
        "8": [7, 5, 7, 5, 7], "9": [7, 5, 7, 1, 7], "-": [0, 0, 7, 0, 0],
    ]

    private static func drawLabel(_ label: String, into rgb: inout [Float], width: Int, height: Int, left: Int, top: Int) {
        let scale = 3
        let boxW = (label.count * 4 + 1) * scale, boxH = 7 * scale
        func paint(_ x: Int, _ y: Int, _ value: Float) {
            guard x < width, y < height else { return }
            for c in 0..<3 { rgb[(c * height + y) * width + x] = value }
        }
        for y in 0..<boxH { for x in 0..<boxW { paint(left + x, top + y, 0) } }
        for (i, character) in label.enumerated() {
            guard let rows = glyphs[character] else { continue }
            for (row, bits) in rows.enumerated() {
                for column in 0..<3 where bits & (4 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            paint(left + ((1 + i * 4 + column) * scale) + dx, top + (1 + row) * scale + dy, 1)
                        }
                    }
                }
            }
        }
    }
}
