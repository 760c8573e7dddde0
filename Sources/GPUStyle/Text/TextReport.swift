import Foundation

/// What `gpustyle text` prints and draws (and `analyze`'s text request).
public enum TextReport {
    /// One line per text line: `#1 "OPEN 24h" (confidence 0.97): (x, y) (x, y) (x, y) (x, y)`,
    /// corners TL, TR, BR, BL; detection only: the detector's score. Under the file's name when
    /// there are several files.
    public static func text(_ lines: [TextLine], file: String, showFile: Bool, detectOnly: Bool) -> String {
        let indent = showFile ? "  " : ""
        var out: [String] = showFile ? ["\(PrintableText.escaping(file)):"] : []
        if lines.isEmpty { out.append(indent + "no text found") }
        for (index, line) in lines.enumerated() {
            let corners = line.quad.corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " ")
            let what = detectOnly ? String(format: "text (score %.2f)", Double(line.detectionScore))
                                  : String(format: "%@ (confidence %.2f)", quoted(line.string), Double(line.confidence))
            out.append("\(indent)#\(index + 1) \(what): \(corners)")
        }
        return out.joined(separator: "\n")
    }

    /// The string in double quotes, control characters escaped (a read line is untrusted text).
    static func quoted(_ string: String) -> String {
        "\"" + PrintableText.escaping(string).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `{"file", "width", "height", "lines": [...]}` on one line (`items`).
    public static func json(_ lines: [TextLine], file: String, width: Int, height: Int, detectOnly: Bool) -> String {
        let object: [String: Any] = ["file": file, "width": width, "height": height, "lines": items(lines, detectOnly: detectOnly)]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The "lines" array: `{"quad": [[x, y] x 4], "score": detector's, "confidence", "string",
    /// "characters": [{"quad", "character"}]}` per line, pixels of the upright photo with the
    /// origin at the top-left corner, corners TL, TR, BR, BL in reading direction; with
    /// `detectOnly` only "quad" and "score".
    public static func items(_ lines: [TextLine], detectOnly: Bool) -> [[String: Any]] {
        func corners(_ q: Quad) -> [[Double]] { q.corners.map { [rounded($0.x), rounded($0.y)] } }
        return lines.map { line in
            var item: [String: Any] = ["quad": corners(line.quad), "score": rounded(Double(line.detectionScore))]
            if !detectOnly {
                item["confidence"] = rounded(Double(line.confidence))
                item["string"] = line.string
                item["characters"] = line.characters.map { ["quad": corners($0.quad), "character": String($0.character)] as [String: Any] }
            }
            return item
        }
    }

    /// Three decimals: a thousandth of a pixel is below anything the models resolve.
    static func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

    /// The overlays' colours (red, green, blue in [0, 1]): lines blue, characters green (also
    /// `gpustyle live --text`'s, on Y4M frames).
    public static let lineColor: (Float, Float, Float) = (0.2, 0.45, 1)
    public static let characterColor: (Float, Float, Float) = (0.1, 0.9, 0.2)

    /// Line quads in blue, character boxes in green (as the seed's sample draws them), and each
    /// line's text above its top-left corner.
    public static func overlay(_ lines: [TextLine], on image: Image, renderer: TextRenderer?) throws -> Image {
        var out = QuadOverlay.draw(lines.map(\.quad), on: image, thickness: 2, color: lineColor)
        out = QuadOverlay.draw(lines.flatMap { $0.characters.map(\.quad) }, on: out, thickness: 1, color: characterColor)
        guard let renderer else { return out }
        let style = LabelStyle.scaled(toHeight: image.height)
        for line in lines where !line.string.isEmpty {
            let bitmap = try renderer.render(line.string, pixelSize: style.pixelSize)
            let corner = line.quad.topLeft
            let height = bitmap.height + 2 * style.padding
            LabelDrawing.draw(bitmap, on: &out, x: Int(corner.x.rounded()), y: Int(corner.y.rounded()) - height - 2, style: style)
        }
        return out
    }
}
