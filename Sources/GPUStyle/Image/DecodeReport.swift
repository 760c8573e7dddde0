/// What decoding found out about a file beyond its pixels: the format, the orientation it
/// applied, what it did with an embedded colour profile, and the problems it went past. The CLI
/// prints `summary` under `--verbose`; the pixels are already oriented and in sRGB.
public struct DecodeReport: Sendable, Equatable {
    /// How an embedded ICC profile was handled.
    public enum Colour: Sendable, Equatable {
        /// No profile: the samples are taken as sRGB, as every viewer does.
        case untagged
        /// A profile that maps colours to themselves in sRGB (within one 8-bit level).
        case sRGB(profile: String)
        /// Converted from this profile to sRGB (LittleCMS, relative colorimetric).
        case converted(from: String)
        /// Unreadable or not matching the samples' colour space: samples used as they are.
        case ignored(profile: String)
    }

    /// "PNG", "JPEG", ...
    public var format: String
    /// The size as stored, before the orientation was applied.
    public var storedWidth: Int
    public var storedHeight: Int
    /// The EXIF orientation that was applied (1 = none).
    public var orientation: Int
    public var colour: Colour
    /// The first problem decoding went past (a broken ancillary chunk, an ignored profile),
    /// or nil; `warningCount` counts them all.
    public var firstWarning: String?
    public var warningCount: Int

    /// One line: "PNG 512x512, ICC profile sRGB IEC61966-2.1 (sRGB already); 1 warning: iCCP: known incorrect sRGB profile".
    public var summary: String {
        var parts = ["\(format) \(storedWidth)x\(storedHeight)"]
        if orientation != 1 { parts.append("EXIF orientation \(orientation) applied") }
        switch colour {
        case .untagged: break
        case .sRGB(let profile): parts.append("ICC profile \(Self.quoted(profile)) (sRGB already)")
        case .converted(let profile): parts.append("converted to sRGB from ICC profile \(Self.quoted(profile))")
        case .ignored(let profile): parts.append("ICC profile \(Self.quoted(profile)) ignored")
        }
        var line = parts.joined(separator: ", ")
        if let firstWarning {
            let more = warningCount > 1 ? " (and \(warningCount - 1) more)" : ""
            line += "; \(warningCount == 1 ? "1 warning" : "\(warningCount) warnings"): \(PrintableText.escaping(firstWarning))\(more)"
        }
        return line
    }

    private static func quoted(_ name: String) -> String {
        name.isEmpty ? "(unnamed)" : "'\(PrintableText.escaping(name))'"
    }
}
