import Foundation

/// A named float32 tensor as stored in a `.gpsw` file.
public struct NamedTensor: Sendable {
    public let name: String
    public let shape: [Int]
    public let values: [Float]
}

/// Reader for gpustyle's tensor file format (`tools/gpsw.py` writes it).
///
/// Layout, little-endian `UInt32` integers: magic `GPSW`, version 1, tensor count, then per
/// tensor: name length, UTF-8 name, rank, dims, float32 values in C order.
public enum TensorFile {
    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func parse(_ data: Data) throws -> [String: NamedTensor] {
        var reader = ByteReader(data: data)
        guard try reader.bytes(4) == Array("GPSW".utf8) else { throw FormatError(description: "not a GPSW tensor file") }
        let version = try reader.uint32()
        guard version == 1 else { throw FormatError(description: "unsupported GPSW version \(version)") }
        let count = try reader.uint32()
        var tensors: [String: NamedTensor] = [:]
        for _ in 0..<count {
            let nameLength = Int(try reader.uint32())
            guard let name = String(bytes: try reader.bytes(nameLength), encoding: .utf8) else {
                throw FormatError(description: "tensor name is not UTF-8")
            }
            let rank = Int(try reader.uint32())
            guard rank <= 8 else { throw FormatError(description: "tensor \(name) has rank \(rank)") }
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try reader.uint32())) }
            let count = shape.reduce(1, *)
            let values = try reader.floats(count)
            tensors[name] = NamedTensor(name: name, shape: shape, values: values)
        }
        return tensors
    }
}

private struct ByteReader {
    let data: Data
    var offset = 0

    mutating func bytes(_ n: Int) throws -> [UInt8] {
        guard n >= 0, offset + n <= data.count else { throw TensorFile.FormatError(description: "truncated tensor file") }
        defer { offset += n }
        let start = data.startIndex + offset
        return Array(data[start..<start + n])
    }

    mutating func uint32() throws -> UInt32 {
        let b = try bytes(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    mutating func floats(_ n: Int) throws -> [Float] {
        guard n >= 0, n <= (data.count - offset) / 4 else { throw TensorFile.FormatError(description: "truncated tensor file") }
        let start = data.startIndex + offset
        offset += 4 * n
        return [Float](unsafeUninitializedCapacity: n) { buffer, initialized in
            data.copyBytes(to: UnsafeMutableRawBufferPointer(buffer), from: start..<start + 4 * n)
            // The format is little-endian, as is every platform Swift on Linux supports.
            initialized = n
        }
    }
}
