import Foundation

/// A painting's style vector saved for reuse (`--save-style v.json`, then `--style-vector
/// v.json`): predicting it takes a decode and 20-30 ms of network; a saved vector takes neither
/// and gives every later run the same numbers.
///
///     {"format": "gpustyle style vector", "version": 1, "predictor": "arbitrary_predict",
///      "sources": ["painting.jpg"], "vector": [100 numbers]}
///
/// `sources` names the paintings blended into the vector (information only).
public struct StyleVectorFile: Codable, Sendable, Equatable {
    public static let format = "gpustyle style vector"
    public static let version = 1

    public var format: String
    public var version: Int
    public var predictor: String
    public var sources: [String]
    public var vector: [Float]

    public init(sources: [String], vector: [Float]) {
        format = Self.format
        version = Self.version
        predictor = ArbitraryStyle.builtInPredictor
        self.sources = sources
        self.vector = vector
    }

    /// A file that is not a style vector, or not one this version can use: the message names it.
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Reads and checks a vector file (its format, version, predictor, 100 finite values).
    public static func read(path: String) throws -> StyleVectorFile {
        func fail(_ why: String) -> ReadError { ReadError(description: "\(path): \(why)") }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw fail("cannot read: \((error as NSError).localizedDescription)")
        }
        // A style vector file is a few kilobytes; refuse to parse something much larger.
        guard data.count <= 1 << 20 else { throw fail("not a style vector file (\(data.count) bytes)") }
        let file: StyleVectorFile
        do { file = try JSONDecoder().decode(StyleVectorFile.self, from: data) } catch {
            throw fail("not a style vector file (expected JSON with format \"\(format)\", as --save-style writes)")
        }
        guard file.format == format else { throw fail("format is \"\(file.format)\", expected \"\(format)\"") }
        guard file.version == version else { throw fail("version \(file.version); this gpustyle reads version \(version)") }
        guard file.predictor == ArbitraryStyle.builtInPredictor else {
            throw fail("made by predictor \"\(file.predictor)\", expected \"\(ArbitraryStyle.builtInPredictor)\"")
        }
        guard file.vector.count == ArbitraryStyle.vectorLength, file.vector.allSatisfy({ $0.isFinite }) else {
            throw fail("expected \(ArbitraryStyle.vectorLength) finite numbers in \"vector\", found \(file.vector.count)")
        }
        return file
    }

    /// Writes the file as every output is written (a temporary file renamed into place; a FIFO
    /// or standard output written directly).
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0a)
        try OutputPath(path).write(data)
    }
}
