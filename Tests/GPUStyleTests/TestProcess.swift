import Foundation

/// Runs a program to completion and captures its output (for CLI tests and checksums).
struct ProcessResult {
    let status: Int32
    let stdout: Data
    let stderr: String
}

enum TestProcess {
    /// The directory holding the built products (the gpustyle binary sits beside the test bundle).
    static var productsDirectory: URL { Bundle.main.bundleURL }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    stdin: Data? = nil, in directory: URL? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Feed stdin and read both pipes concurrently so that a child writing while we still
        // write its input (a video filter) cannot deadlock on a full pipe.
        let errorBox = DataBox()
        let group = DispatchGroup()
        let writer = input.fileHandleForWriting
        DispatchQueue.global().async(group: group) {
            if let stdin { try? writer.write(contentsOf: stdin) }
            try? writer.close()
        }
        DispatchQueue.global().async(group: group) { errorBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, stdout: stdoutData,
                             stderr: String(decoding: errorBox.data, as: UTF8.self))
    }

    static func gpustyle(_ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
                         in directory: URL? = nil) throws -> ProcessResult {
        try run(productsDirectory.appendingPathComponent("gpustyle").path, arguments, environment: environment,
                stdin: stdin, in: directory)
    }
}

final class DataBox: @unchecked Sendable {
    var data = Data()
}

enum SHA256Digest {
    /// Hex SHA-256 by coreutils' sha256sum: an implementation independent of ours.
    static func hex(_ data: Data) throws -> String {
        let result = try TestProcess.run("/usr/bin/sha256sum", [], stdin: data)
        return String(decoding: result.stdout.prefix(64), as: UTF8.self)
    }
}
