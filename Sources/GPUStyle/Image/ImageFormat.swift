import CImageShims
import Foundation

/// Container formats recognised by their leading bytes (extensions lie), by the C reader's one
/// rule (gps_sniff_format); files are sniffed by the reader itself, this is for standard input,
/// checked before it is read whole.
enum ImageFormat {
    case png
    case jpeg
    /// HEIF with HEVC images (HEIC), or AV1 images (AVIF): both decoded by libheif.
    case heif
    case webp

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Bytes looked at to tell the formats apart: an ftyp box's first compatible brands.
    static let signatureLength = 64

    /// The one line for input that is none of them.
    static let notAnImage = "not a PNG, JPEG, HEIC, AVIF or WebP image"

    /// The C reader's rule (gps_sniff_format), so stdin and files are told apart alike.
    init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(Self.signatureLength))
        switch bytes.withUnsafeBufferPointer({ gps_sniff_format($0.baseAddress, $0.count) }) {
        case GPS_FORMAT_PNG: self = .png
        case GPS_FORMAT_JPEG: self = .jpeg
        case GPS_FORMAT_HEIC, GPS_FORMAT_AVIF: self = .heif
        case GPS_FORMAT_WEBP: self = .webp
        default: return nil
        }
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
