/// Text from outside (file names above all) made safe to print on a terminal.
public enum PrintableText {
    /// `text` with control characters (C0, DEL, C1) written as `\xNN` / `\u{NNNN}` escapes, so a
    /// file named `"\u{1B}[31m"` or one with a newline in it cannot recolour the terminal or split
    /// a one-line error in two. Printable text, backslashes included, is kept as is: escaping
    /// twice changes nothing.
    public static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if !isControl(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar.value < 0x100 {
                out += "\\x" + hex(scalar.value, digits: 2)
            } else {
                out += "\\u{" + hex(scalar.value, digits: 4) + "}"
            }
        }
        return out
    }

    /// C0 controls, DEL, C1 controls (0x9B is a one-byte CSI on some terminals), and the line
    /// and paragraph separators.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
