import CImageShims
import Foundation

/// Container formats recognised by their leading bytes (extensions lie). The C reader sniffs
/// files itself (reader.c, with the same rules); this is for standard input, checked before
/// it is read whole.
enum ImageFormat {
    case png
    case jpeg
    /// HEIF with HEVC images (HEIC), or AV1 images (AVIF): both decoded by libheif.
    case heif
    case webp

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// HEIF image brands libheif 1.15 decodes (HEVC, generic, AV1), as in reader.c.
    static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs",
                                          "mif1", "msf1", "avif", "avis"]

    /// Bytes looked at to tell the formats apart: an ftyp box's first compatible brands.
    static let signatureLength = 64

    /// The one line for input that is none of them.
    static let notAnImage = "not a PNG, JPEG, HEIC, AVIF or WebP image"

    init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(Self.signatureLength))
        if bytes.starts(with: Self.pngSignature) {
            self = .png
        } else if bytes.starts(with: Self.jpegSignature) {
            self = .jpeg
        } else if bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) {
            self = .webp
        } else if Self.hasHEIFBrand(bytes) {
            self = .heif
        } else {
            return nil
        }
    }

    /// An ftyp box whose major brand or a compatible brand (within `bytes`) is a HEIF image brand.
    private static func hasHEIFBrand(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = declared >= 16 && declared <= bytes.count ? declared : bytes.count
        // The major brand at 8, the minor version at 12, compatible brands from 16.
        let offsets = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        return offsets.contains { heifBrands.contains(String(decoding: bytes[$0..<$0 + 4], as: UTF8.self)) }
    }

    /// The format's name in messages, from the C reader's GPS_FORMAT_*.
    static func name(_ format: Int32) -> String {
        switch format {
        case GPS_FORMAT_JPEG: return "JPEG"
        case GPS_FORMAT_HEIC: return "HEIC"
        case GPS_FORMAT_AVIF: return "AVIF"
        case GPS_FORMAT_WEBP: return "WebP"
        default: return "PNG"
        }
    }
}
