import Foundation

/// How `gpustyle classify` prints an answer: text for people, JSON for programs.
public enum ClassificationReport {
    /// `  45.1 %  tabby cat (281)` per class, under the file's name when there are several files.
    public static func text(_ classifications: [Classification], file: String, showFile: Bool) -> String {
        var lines: [String] = showFile ? ["\(PrintableText.escaping(file)):"] : []
        for c in classifications {
            lines.append(String(format: "%@%6.2f %%  %@ (%d)", showFile ? "  " : "", Double(c.confidence) * 100,
                                PrintableText.escaping(c.label), c.index))
        }
        return lines.joined(separator: "\n")
    }

    /// `{"file": ..., "classifications": [{"index", "label", "confidence"}]}` on one line (one
    /// line per file: JSON Lines when there are several).
    /// Throws for a confidence that is not a number (JSON has none): a model that makes one is
    /// broken, and an empty answer would hide it.
    public static func json(_ classifications: [Classification], file: String) throws -> String {
        struct Answer: Encodable {
            let file: String
            let classifications: [Classification]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(Answer(file: file, classifications: classifications)), as: UTF8.self)
    }

    /// The "classifications" array of `json`, as JSON objects (for `gpustyle analyze`): the same
    /// numbers `json` prints (a confidence written as the Float it is, shortest form).
    public static func items(_ classifications: [Classification]) throws -> Any {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try JSONSerialization.jsonObject(with: encoder.encode(classifications))
    }
}
