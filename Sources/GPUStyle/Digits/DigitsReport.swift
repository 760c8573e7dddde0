import Foundation

/// How `gpustyle digits` tells what the notes say: a line per note for people, JSON for programs,
/// and an overlay (each note outlined and labelled).
public enum DigitsReport {
    /// What a note's label says: the digit, "?" when unsure, or "blank".
    public static func label(_ note: NoteReading) -> String {
        switch note.content {
        case .digit(let digit): "\(digit)"
        case .unsure: "?"
        case .blank: "blank"
        }
    }

    /// The label drawn on a note: "7 98%" (the digit and its confidence), "?" or "blank".
    public static func overlayText(_ note: NoteReading) -> String {
        var text = label(note)
        if case .digit = note.content, let confidence = note.confidence {
            text += String(format: " %.0f%%", Double(confidence) * 100)
        }
        return text
    }

    static func cornerList(_ quad: Quad) -> String {
        quad.corners.map { String(format: "(%.1f, %.1f)", $0.x, $0.y) }.joined(separator: " ")
    }

    /// `#1 7 (confidence 0.98): (x, y) (x, y) (x, y) (x, y)` per note, corners top-left first
    /// and clockwise; under the file's name when there are several files.
    public static func text(_ notes: [NoteReading], file: String, showFile: Bool) -> String {
        var lines: [String] = showFile ? ["\(PrintableText.escaping(file)):"] : []
        if notes.isEmpty { lines.append((showFile ? "  " : "") + "no note found") }
        for (index, note) in notes.enumerated() {
            let what: String
            switch note.content {
            case .blank: what = "blank"
            case .digit, .unsure: what = String(format: "%@ (confidence %.2f)", label(note), Double(note.confidence ?? 0))
            }
            lines.append("\(showFile ? "  " : "")#\(index + 1) \(what): \(cornerList(note.quad))")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"file", "width", "height", "notes": [{"corners": [[x, y] × 4], "digit", "blank",
    /// "confidence", "top3": [{"digit", "confidence"}]}]}` on one line. `digit` is null when
    /// the note is blank or unsure; `confidence` (the top digit's probability) null when blank.
    public static func json(_ notes: [NoteReading], file: String, width: Int, height: Int) -> String {
        let object: [String: Any] = ["file": file, "width": width, "height": height, "notes": items(notes)]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The "notes" array of `json` (also `gpustyle analyze`'s).
    public static func items(_ notes: [NoteReading]) -> [[String: Any]] {
        notes.map { note in
            var digit: Any = NSNull()
            if case .digit(let d) = note.content { digit = d }
            return [
                "corners": note.quad.corners.map { [$0.x, $0.y] },
                "digit": digit,
                "blank": note.content == .blank,
                "confidence": note.confidence.map { Double($0) } ?? NSNull(),
                "top3": note.top.map { ["digit": $0.digit, "confidence": Double($0.probability)] as [String: Any] },
            ]
        }
    }

    /// The photo with each note outlined and its label ("7 98%", "?", "blank") drawn at its
    /// top-left corner, text in `renderer`'s font, sized to the photo.
    public static func overlay(_ notes: [NoteReading], on image: Image, renderer: TextRenderer) throws -> Image {
        var out = QuadOverlay.draw(notes.map(\.quad), on: image)
        let style = LabelStyle.scaled(toHeight: image.height)
        for note in notes {
            let bitmap = try renderer.render(overlayText(note), pixelSize: style.pixelSize)
            // Above the note's top-left corner, so the label covers the note's ink as little as possible.
            let corner = note.quad.topLeft
            let height = bitmap.height + 2 * style.padding
            LabelDrawing.draw(bitmap, on: &out, x: Int(corner.x.rounded()), y: Int(corner.y.rounded()) - height - 2, style: style)
        }
        return out
    }
}
