#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Text on standard output with write errors reported: Swift's `print` goes through a stdio
/// buffer and drops them, so `gpustyle detect > /dev/full` would exit 0 having written nothing.
/// Unbuffered: each call is written at once, so nothing is pending at exit.
public enum StandardOutput {
    /// Writes `line` and a newline; a failure is an `OutputError` ("stdout: cannot write: No
    /// space left on device").
    public static func print(_ line: String) throws {
        try write(line + "\n")
    }

    public static func write(_ text: String) throws {
        let file = try OutputPath("-").open()
        try file.write(Data(text.utf8))
    }
}
