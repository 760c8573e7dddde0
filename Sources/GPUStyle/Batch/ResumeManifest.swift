#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What makes a folder run resumable: for each output finished in a folder, a small record of
/// what it was made from, so that a run started again skips it.
///
/// The records live in `FOLDER/.gpustyle-manifest/`, one JSON file per output (written like
/// every output: a temporary file, flushed, renamed into place), so that the tasks of a job
/// array writing into one folder never share a file. An output counts as finished when its
/// record exists and still matches:
/// - the same options (`optionsKey`: what changes the output's pixels or report, and the
///   program's version);
/// - the same input bytes (size and SHA-256, read again each time: a photo replaced by another
///   with the same name and size is redone);
/// - the output itself as it was recorded (a regular file of the recorded size and modification
///   time: one edited or replaced since is redone).
///
/// The record is written after the output was renamed into place, so a run killed between the
/// two redoes that one output; a partial output can never be taken for a finished one, since
/// outputs appear only by rename. A killed run's temporary files (`.NAME.partial-…`) are
/// removed by `removeLeftovers` when its outputs are next taken up.
public struct ResumeManifest: Sendable {
    /// The folder of the records, inside the output folder.
    public static let folderName = ".gpustyle-manifest"

    public let outputFolder: String
    public let optionsKey: String

    public init(outputFolder: String, optionsKey: String) {
        self.outputFolder = outputFolder
        self.optionsKey = optionsKey
    }

    /// One output's record.
    public struct Record: Codable, Equatable, Sendable {
        public var output: String
        public var source: String
        public var sourceBytes: Int
        public var sourceSHA256: String
        public var options: String
        public var outputBytes: Int
        public var outputModified: Int64
    }

    /// An input as the record keeps it.
    public struct Source: Equatable, Sendable {
        public let path: String
        public let bytes: Int
        public let sha256: String

        /// Reads the whole file once.
        public static func of(_ path: String) throws -> Source {
            let (digest, bytes) = try SHA256.ofFile(path)
            return Source(path: path, bytes: bytes, sha256: digest)
        }
    }

    var recordFolder: String { (outputFolder as NSString).appendingPathComponent(Self.folderName) }

    /// The record's file: the output's name + `.json`, or, for a name too long to take the
    /// suffix, its SHA-256.
    func recordPath(_ output: String) -> String {
        var name = output + ".json"
        if name.utf8.count > Int(NAME_MAX) - 40 {
            var hash = SHA256()
            hash.update(Data(output.utf8))
            name = "sha256-" + hash.finalize() + ".json"
        }
        return (recordFolder as NSString).appendingPathComponent(name)
    }

    /// Whether `output` (a name in the output folder) is finished from `source` with these
    /// options. Reads the input only when everything else matches.
    public func isFinished(output: String, source path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: recordPath(output)),
              let record = try? JSONDecoder().decode(Record.self, from: data),
              record.output == output, record.options == optionsKey,
              let now = Self.fileStatus((outputFolder as NSString).appendingPathComponent(output)),
              now.bytes == record.outputBytes, now.modified == record.outputModified,
              let input = Self.fileStatus(path), input.bytes == record.sourceBytes,
              let source = try? Source.of(path) else { return false }
        return source.bytes == record.sourceBytes && source.sha256 == record.sourceSHA256
    }

    /// Records `output` (just renamed into place) as made from `source`.
    public func markFinished(output: String, source: Source) throws {
        let outputPath = (outputFolder as NSString).appendingPathComponent(output)
        guard let status = Self.fileStatus(outputPath) else {
            throw OutputError(outputPath, "is not there after writing it", isUserError: false)
        }
        let record = Record(output: output, source: source.path, sourceBytes: source.bytes, sourceSHA256: source.sha256,
                            options: optionsKey, outputBytes: status.bytes, outputModified: status.modified)
        try createRecordFolder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try OutputPath(recordPath(output)).write(try encoder.encode(record) + Data("\n".utf8))
    }

    /// Forgets `output` (before redoing it, so that a run killed while writing it cannot find
    /// an old record next to a new output).
    public func forget(output: String) {
        unlink(recordPath(output))
    }

    /// Removes the temporary files a killed run left for these outputs (`.NAME.partial-*` in the
    /// output folder, and for their records). Only these outputs' files: other tasks of the
    /// array may be writing theirs. Lists each folder once.
    public func removeLeftovers(of outputs: Set<String>) {
        let records = Set(outputs.map { (recordPath($0) as NSString).lastPathComponent })
        for (folder, names) in [(outputFolder, outputs), (recordFolder, records)] {
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for entry in entries where entry.hasPrefix(".") {
                guard let range = entry.range(of: ".partial-", options: .backwards) else { continue }
                let name = String(entry[entry.index(after: entry.startIndex)..<range.lowerBound])
                if names.contains(name) { unlink((folder as NSString).appendingPathComponent(entry)) }
            }
        }
    }

    private func createRecordFolder() throws {
        if mkdir(recordFolder, 0o777) != 0 && errno != EEXIST {
            throw OutputError(recordFolder, "cannot create the folder of finished outputs", errno: errno)
        }
    }

    /// Size and modification time (ns) of a regular file, following links.
    static func fileStatus(_ path: String) -> (bytes: Int, modified: Int64)? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int(status.st_size), Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
    }
}
