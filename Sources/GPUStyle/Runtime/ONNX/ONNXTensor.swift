import Foundation

/// A constant read from an ONNX file (an initializer or a `Constant` node's value): its dims and
/// its values as floats, plus the exact integers for integer tensors (shapes, pads, axes).
struct ONNXTensor {
    var dims: [Int]
    var floats: [Float]
    var ints: [Int]?
    /// The ONNX element type (TensorProto.DataType; 1, float32, for values made at import).
    var elementType = 1

    var count: Int { floats.count }

    /// Values per ONNX element type (TensorProto.DataType numbers).
    private static let float = 1, int32 = 6, int64 = 7, float16 = 10, double = 11, int8 = 3, uint8 = 2, bool = 9
    /// No constant of a model this runtime can run comes near this; it bounds what a corrupt
    /// file can make us allocate.
    static let maximumElements = 1 << 30

    /// Decodes `raw_data` or the typed repeated fields; `what` names the tensor in errors.
    init(_ proto: Onnx_TensorProto, what: String) throws {
        func bad(_ why: String) -> ONNXImportError { ONNXImportError("\(what): \(why)") }
        if proto.hasDataLocation, proto.dataLocation == .external {
            throw bad("its data is in an external file, which is not supported (save the model with its weights inside)")
        }
        var count = 1
        for dim in proto.dims {
            guard dim >= 0, dim <= Int64(Self.maximumElements) else { throw bad("dimension \(dim)") }
            count *= Int(dim)
            guard count <= Self.maximumElements else { throw bad("more than \(Self.maximumElements) elements") }
        }
        dims = proto.dims.map { Int($0) }
        elementType = Int(proto.dataType)
        let raw = proto.hasRawData ? proto.rawData : nil
        func rawValues<T>(_ size: Int, _ decode: (UnsafeRawBufferPointer, Int) -> T) throws -> [T]? {
            guard let raw else { return nil }
            guard raw.count == count * size else {
                throw bad("raw_data holds \(raw.count) bytes, expected \(count * size) for \(count) values")
            }
            return raw.withUnsafeBytes { bytes in (0..<count).map { decode(bytes, $0 * size) } }
        }
        func checked<T>(_ values: [T]) throws -> [T] {
            guard values.count == count else { throw bad("holds \(values.count) values, expected \(count)") }
            return values
        }
        switch Int(proto.dataType) {
        case Self.float:
            floats = try checked(try rawValues(4) { Float(bitPattern: UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: $1, as: UInt32.self))) }
                                 ?? proto.floatData)
        case Self.float16:
            let bits = try checked(try rawValues(2) { UInt16(littleEndian: $0.loadUnaligned(fromByteOffset: $1, as: UInt16.self)) }
                                   ?? proto.int32Data.map { UInt16(truncatingIfNeeded: $0) })
            floats = bits.map(Self.halfToFloat)
        case Self.double:
            floats = try checked(try rawValues(8) { Double(bitPattern: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: $1, as: UInt64.self))) }
                                 ?? proto.doubleData).map { Float($0) }
        case Self.int64:
            let values = try checked(try rawValues(8) { Int64(littleEndian: $0.loadUnaligned(fromByteOffset: $1, as: Int64.self)) }
                                     ?? proto.int64Data)
            ints = values.map { Int($0) }
            floats = values.map { Float($0) }
        case Self.int32, Self.int8, Self.uint8, Self.bool:
            let type = Int(proto.dataType)
            let size = type == Self.int32 ? 4 : 1
            let values: [Int] = try checked(try rawValues(size) { bytes, offset -> Int in
                switch type {
                case Self.int32: Int(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
                case Self.int8: Int(bytes.load(fromByteOffset: offset, as: Int8.self))
                default: Int(bytes.load(fromByteOffset: offset, as: UInt8.self))
                }
            } ?? proto.int32Data.map { Int($0) })
            ints = values
            floats = values.map { Float($0) }
        default:
            throw bad("element type \(proto.dataType) is not supported (float32, float16, double and integers are)")
        }
    }

    init(dims: [Int], floats: [Float], ints: [Int]? = nil) {
        self.dims = dims
        self.floats = floats
        self.ints = ints
    }

    /// IEEE 754 binary16 bits to Float (subnormals, infinities and NaN included).
    static func halfToFloat(_ h: UInt16) -> Float {
        let sign = UInt32(h >> 15) << 31
        let exponent = Int(h >> 10) & 0x1f
        let mantissa = UInt32(h & 0x3ff)
        if exponent == 0x1f { return Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13)) }
        if exponent == 0 {
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        }
        return Float(bitPattern: sign | (UInt32(exponent + 112) << 23) | (mantissa << 13))
    }
}

/// A model that cannot be read or run: says which file and why (every unsupported op at once).
public struct ONNXImportError: Error, CustomStringConvertible, Equatable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
