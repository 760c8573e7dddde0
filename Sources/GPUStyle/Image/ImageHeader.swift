import CImageShims
import Foundation

/// What an image file's header says, read without decoding a pixel: the format, the size
/// (HEIF: after irot/imir), and the colour information colour management needs (the ICC
/// profile, or HEIF's nclx code points).
struct ImageHeader: Equatable {
    /// HEIF's nclx colour description (ITU-T H.273 code points, see gps_cicp).
    struct CICP: Equatable {
        var colourPrimaries: Int
        var transferCharacteristics: Int
        var matrixCoefficients: Int
        var fullRange: Bool
    }

    var format: String
    var width: Int
    var height: Int
    var hasAlpha: Bool
    /// Bits per sample in the file: 8, or 10/12 for HDR HEIF.
    var bitDepth: Int
    var exif: [UInt8]?
    var icc: [UInt8]?
    var cicp: CICP?

    /// Reads the header of `bytes` (an image file's contents).
    static func read(_ data: Data, name: String) throws -> ImageHeader {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ImageError(name, "file is empty") }
            guard let reader = gps_reader_create(-1, base, bytes.count) else {
                throw OutOfMemoryError(what: name, bytes: 0, purpose: "to start decoding")
            }
            defer { gps_reader_destroy(reader) }
            var header = gps_image_header()
            var error = gps_decode_error()
            let status = gps_reader_read_header(reader, &header, &error)
            let format = ImageFormat.name(header.format)
            guard status == GPS_OK else {
                throw ImageReader.failure(status, error, name: name, format: format, bytes: 0,
                                          width: Int(header.width), height: Int(header.height))
            }
            let copy = { (pointer: UnsafePointer<UInt8>?, count: Int) in
                pointer.map { Array(UnsafeBufferPointer(start: $0, count: count)) }
            }
            let c = header.cicp
            return ImageHeader(format: format, width: Int(header.width), height: Int(header.height),
                               hasAlpha: header.has_alpha != 0, bitDepth: Int(header.bit_depth == 0 ? 8 : header.bit_depth),
                               exif: copy(header.exif, header.exif_size), icc: copy(header.icc, header.icc_size),
                               cicp: c.present == 0 ? nil : CICP(colourPrimaries: Int(c.colour_primaries),
                                                                 transferCharacteristics: Int(c.transfer_characteristics),
                                                                 matrixCoefficients: Int(c.matrix_coefficients),
                                                                 fullRange: c.full_range != 0))
        }
    }
}
