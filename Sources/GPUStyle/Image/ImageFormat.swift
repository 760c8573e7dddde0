import Foundation

/// Container formats recognised by their leading bytes (extensions lie).
enum ImageFormat {
    case png
    case jpeg

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init?(sniffing data: Data) {
        if data.starts(with: Self.pngSignature) {
            self = .png
        } else if data.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else {
            return nil
        }
    }
}

/// Width and height from a PNG's IHDR, read without libpng so absurd headers
/// can be refused before any decoder state or pixel memory exists.
struct PNGHeader {
    let width: Int
    let height: Int

    /// nil when the IHDR is not where the PNG spec puts it; libpng then
    /// reports the precise problem.
    init?(_ data: Data) {
        // signature (8) + length (4) + "IHDR" (4) + width (4) + height (4)
        guard data.count >= 24 else { return nil }
        let bytes = [UInt8](data.prefix(24))
        guard bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        func bigEndian(_ at: Int) -> Int {
            bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        width = bigEndian(16)
        height = bigEndian(20)
    }
}
