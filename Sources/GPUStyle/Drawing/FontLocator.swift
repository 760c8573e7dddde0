import Foundation

/// Where the labels' font comes from: DejaVu Sans (Debian's fonts-dejavu-core) at its usual
/// places, else whatever fontconfig's `fc-match` picks for it.
public enum FontLocator {
    /// DejaVu Sans on Debian and Ubuntu, Arch, and Fedora.
    public static let candidates = [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    ]

    /// The path of a sans-serif font; `TextError.noFont` when there is none.
    public static func defaultFont() throws -> String {
        if let path = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) { return path }
        if let path = fontconfigMatch("DejaVu Sans:style=Book"), FileManager.default.isReadableFile(atPath: path) { return path }
        throw TextError.noFont
    }

    /// `fc-match -f %{file} pattern`, or nil when fontconfig's tool is not installed or fails.
    static func fontconfigMatch(_ pattern: String) -> String? {
        // Fixed places rather than $PATH: the library reads no environment variables, and
        // fontconfig's tools come with the system's package manager.
        let directories = ["/usr/bin", "/bin", "/usr/local/bin"]
        guard let tool = directories.map({ "\($0)/fc-match" }).first(where: FileManager.default.isExecutableFile(atPath:)) else {
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-f", "%{file}", pattern]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let path = String(data: data, encoding: .utf8), !path.isEmpty else { return nil }
        return path
    }
}

public enum TextError: Error, CustomStringConvertible, Equatable {
    /// No font file was found (`FontLocator`).
    case noFont
    /// FreeType could not open or use a font file.
    case font(path: String, reason: String)

    public var description: String {
        switch self {
        case .noFont:
            return "no font found for the labels: install fonts-dejavu-core (tools/install-deps) or give a font file"
        case .font(let path, let reason):
            return "\(path): \(reason)"
        }
    }
}
