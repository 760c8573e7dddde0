import Foundation

/// gpustyle's model format (`.gpsm`): a network graph, its weights and what a request needs to
/// use it (labels, input size, preprocessing), in one file that is read without a protobuf
/// library. Built-in models are embedded in the binary in this format; `gpustyle convert-model`
/// writes it from ONNX.
///
/// Layout (little-endian): magic `GPSM`, `UInt32` version 1, `UInt32` header length, the header
/// (UTF-8 JSON, `Header` below), zero bytes to a multiple of 4, then the constants one after
/// another in the header's order, each float32 or float16 (`ConstantInfo.half`), each padded to
/// a multiple of 4 bytes.
public struct ModelFile: Sendable {
    public var graph: NetworkGraph
    public var metadata: Metadata
    /// Constants stored as float16 (the others float32).
    public var halfConstants: Set<Int>

    /// What a request needs besides the graph.
    public struct Metadata: Codable, Sendable, Equatable {
        public var name: String
        /// The fixed input the model was made for (nil: any size the graph accepts).
        public var input: NetworkGraph.Shape?
        /// One name per output class (classifiers).
        public var labels: [String]?
        /// Per-channel mean and standard deviation of inputs scaled to [0, 1] (ImageNet's for
        /// torchvision models).
        public var mean: [Float]?
        public var std: [Float]?
        public init(name: String, input: NetworkGraph.Shape? = nil, labels: [String]? = nil, mean: [Float]? = nil,
                    std: [Float]? = nil) {
            self.name = name
            self.input = input
            self.labels = labels
            self.mean = mean
            self.std = std
        }
    }

    public init(graph: NetworkGraph, metadata: Metadata, halfConstants: Set<Int> = []) {
        self.graph = graph
        self.metadata = metadata
        self.halfConstants = halfConstants
    }

    public static let magic = Array("GPSM".utf8)
    public static let version: UInt32 = 1

    struct ConstantInfo: Codable {
        var name: String
        var count: Int
        var half: Bool
    }

    struct Header: Codable {
        var metadata: Metadata
        var input: Int
        var output: Int
        var tensorCount: Int
        var nodes: [NetworkGraph.Node]
        var constants: [ConstantInfo]
        var auxiliaryInput: NetworkGraph.AuxiliaryInput?
    }

    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public func serialized() throws -> Data {
        let header = Header(metadata: metadata, input: graph.input, output: graph.output, tensorCount: graph.tensorCount,
                            nodes: graph.nodes, constants: graph.constants.values.indices.map {
                                ConstantInfo(name: graph.constants.names[$0], count: graph.constants[$0].count,
                                             half: halfConstants.contains($0))
                            }, auxiliaryInput: graph.auxiliaryInput)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(header)
        var data = Data(Self.magic)
        func append(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func pad() { while data.count % 4 != 0 { data.append(0) } }
        append(Self.version)
        append(UInt32(json.count))
        data.append(json)
        pad()
        for (index, values) in graph.constants.values.enumerated() {
            if halfConstants.contains(index) {
                values.map { Float16($0).bitPattern.littleEndian }.withUnsafeBytes { data.append(contentsOf: $0) }
            } else {
                values.map { $0.bitPattern.littleEndian }.withUnsafeBytes { data.append(contentsOf: $0) }
            }
            pad()
        }
        return data
    }

    public init(data: Data) throws {
        func fail(_ why: String) -> FormatError { FormatError(description: why) }
        let bytes = [UInt8](data)
        guard bytes.count >= 12, Array(bytes[0..<4]) == Self.magic else { throw fail("not a gpustyle model (.gpsm) file") }
        func uint32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        guard uint32(4) == Self.version else { throw fail("unsupported .gpsm version \(uint32(4))") }
        let headerLength = Int(uint32(8))
        guard headerLength <= bytes.count - 12 else { throw fail("truncated model file (header)") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[12..<12 + headerLength]))
        } catch {
            throw fail("malformed model header: \(error)")
        }
        var offset = (12 + headerLength + 3) / 4 * 4
        var values: [[Float]] = []
        for constant in header.constants {
            let width = constant.half ? 2 : 4
            guard constant.count >= 0, constant.count <= (bytes.count - offset) / width else {
                throw fail("truncated model file (constant \(constant.name))")
            }
            let count = constant.count
            let start = offset
            values.append(bytes.withUnsafeBytes { raw in
                if constant.half {
                    return (0..<count).map { i in
                        Float(Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: start + 2 * i, as: UInt16.self))))
                    }
                }
                return (0..<count).map { i in
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self)))
                }
            })
            offset += (width * count + 3) / 4 * 4
        }
        graph = NetworkGraph(input: header.input, output: header.output, tensorCount: header.tensorCount,
                             nodes: header.nodes, constants: ModelConstants(values: values, names: header.constants.map(\.name)))
        graph.auxiliaryInput = header.auxiliaryInput
        metadata = header.metadata
        halfConstants = Set(header.constants.indices.filter { header.constants[$0].half })
    }
}
