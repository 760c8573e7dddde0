import Foundation
@testable import GPUStyle

/// A valid 8-bit grey PNG of any size, all black, in a few hundred KB however large: its
/// zlib stream is one fixed-Huffman deflate block of a zero literal followed by
/// length-258/distance-1 copies (13 bits per 258 bytes). For the out-of-memory tests, which
/// need an image whose float planes do not fit but whose file does.
enum SolidPNG {
    static func make(width: UInt32, height: UInt32) -> [UInt8] {
        let raw = Int(height) * (Int(width) + 1)  // each row: filter byte 0, then the samples
        var bits = BitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman
        bits.writeCode(0b0011_0000, length: 8)  // literal 0
        var left = raw - 1
        while left >= 258 {
            bits.writeCode(0b1100_0101, length: 8)  // length code 285 = 258, no extra bits
            bits.writeCode(0, length: 5)  // distance code 0 = 1
            left -= 258
        }
        for _ in 0..<left { bits.writeCode(0b0011_0000, length: 8) }
        bits.writeCode(0, length: 7)  // end of block (256)
        // Adler-32 of `raw` zero bytes: s1 stays 1, s2 gains 1 per byte.
        let adler = UInt32(raw % 65521) << 16 | 1
        let zlib = [0x78, 0x01] + bits.bytes + PNGBytes.bigEndian(adler)
        let ihdr = PNGBytes.bigEndian(width) + PNGBytes.bigEndian(height) + [8, 0, 0, 0, 0]  // 8-bit grey
        return ImageFormat.pngSignature + PNGBytes.chunk("IHDR", ihdr) + PNGBytes.chunk("IDAT", zlib)
            + PNGBytes.chunk("IEND", [])
    }

    /// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        mutating func write(_ value: UInt32, count: Int) {
            for i in 0..<count { put(value >> i & 1) }
        }

        mutating func writeCode(_ code: UInt32, length: Int) {
            for i in stride(from: length - 1, through: 0, by: -1) { put(code >> i & 1) }
        }

        private mutating func put(_ bit: UInt32) {
            if used == 8 {
                bytes.append(0)
                used = 0
            }
            bytes[bytes.count - 1] |= UInt8(bit) << used
            used += 1
        }
    }
}
