import Foundation

/// Container formats recognised by their leading bytes (extensions lie). The C reader sniffs
/// files itself; this is for standard input, checked before it is read whole.
enum ImageFormat {
    case png
    case jpeg

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// Bytes needed to tell the formats apart.
    static let signatureLength = 8

    init?(sniffing data: Data) {
        if data.starts(with: Self.pngSignature) {
            self = .png
        } else if data.starts(with: Self.jpegSignature) {
            self = .jpeg
        } else {
            return nil
        }
    }
}
