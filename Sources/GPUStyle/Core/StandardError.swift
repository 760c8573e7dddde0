import Foundation

/// Writes one line to standard error (diagnostics never go to stdout, which may carry an image).
public func printToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
