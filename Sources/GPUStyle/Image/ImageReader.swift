import CImageShims
import Foundation

/// Decodes a PNG, JPEG, HEIC/AVIF or WebP through the C reader in three steps: the header
/// (limits checked, nothing image-sized allocated yet), the float planes (allocation failure
/// reported, not a trap), then the pixels, straight into the planes. Peak memory is the planes
/// (12 bytes per pixel, 16 with alpha) plus the decoder's own: PNG and JPEG a few rows (no file
/// copy, no 8-bit copy of the image except for interlaced PNGs, see png_decode.c); HEIC and
/// WebP the compressed file, plus libheif's RGB image (heic_decode.c) or, for lossless WebP,
/// libwebp's ARGB image (webp_decode.c).
enum ImageReader {
    /// Reads from an open descriptor, a chunk at a time; the caller closes it.
    static func decode(fileDescriptor: Int32, name: String, limits: DecodeLimits) throws -> Image {
        guard let reader = gps_reader_create(fileDescriptor, nil, 0) else {
            throw OutOfMemoryError(what: name, bytes: 0, purpose: "to start decoding")
        }
        defer { gps_reader_destroy(reader) }
        return try decode(reader, name: name, limits: limits)
    }

    /// Decodes bytes already in memory (not empty).
    static func decode(bytes: UnsafeRawBufferPointer, name: String, limits: DecodeLimits) throws -> Image {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw ImageError(name, "file is empty") }
        guard let reader = gps_reader_create(-1, base, bytes.count) else {
            throw OutOfMemoryError(what: name, bytes: 0, purpose: "to start decoding")
        }
        defer { gps_reader_destroy(reader) }
        return try decode(reader, name: name, limits: limits)
    }

    private static func decode(_ reader: OpaquePointer, name: String, limits: DecodeLimits) throws -> Image {
        var header = gps_image_header()
        var error = gps_decode_error()
        var status = gps_reader_read_header(reader, &header, &error)
        let format = ImageFormat.name(header.format)
        let width = Int(header.width), height = Int(header.height)
        guard status == GPS_OK else {
            throw failure(status, error, name: name, format: format, bytes: 0, width: width, height: height)
        }
        try limits.check(width: width, height: height, name: name)
        // HEIF: what libheif decodes before cropping to width x height (heic_decode.c).
        if header.coded_width > 0 {
            try limits.check(width: Int(header.coded_width), height: Int(header.coded_height), name: name)
        }

        let orientation = header.exif.map {
            ExifOrientation.fromTIFF(Array(UnsafeBufferPointer(start: $0, count: header.exif_size)))
        } ?? .normal
        let count = width * height
        let hasAlpha = header.has_alpha != 0
        // The planes, plus the one-plane copy a 90-degree EXIF rotation needs (Image.orient),
        // plus for HEIF libheif's interleaved RGB(A) image, alive next to the planes while they
        // are filled (3-8 bytes a pixel; heic_decode.c measures it).
        let planes = (hasAlpha ? 4 : 3) + (orientation.swapsAxes ? 1 : 0)
        let heif = header.format == GPS_FORMAT_HEIC || header.format == GPS_FORMAT_AVIF
        let decoderCopy = heif ? count * (hasAlpha ? 4 : 3) * (header.bit_depth > 8 ? 2 : 1) : 0
        let bytes = planes * count * MemoryLayout<Float>.size + decoderCopy
        try AllocationProbe.check(bytes: bytes, what: name, purpose: "to decode \(width)x\(height)")

        // Every element is written by the decoder; zero-filling first would cost a pass over
        // up to 1.6 GB. On failure the arrays are dropped unread.
        var alpha: [Float]? = hasAlpha
            ? [Float](unsafeUninitializedCapacity: count) { _, initialized in initialized = count } : nil
        let rgb = [Float](unsafeUninitializedCapacity: 3 * count) { planes, initialized in
            initialized = 3 * count
            if alpha != nil {
                alpha!.withUnsafeMutableBufferPointer { alpha in
                    status = gps_reader_read_pixels(reader, planes.baseAddress, alpha.baseAddress, &error)
                }
            } else {
                status = gps_reader_read_pixels(reader, planes.baseAddress, nil, &error)
            }
        }
        guard status == GPS_OK else {
            // The planes exist by now: a shortage here is the decoder's own (unknown) need.
            throw failure(status, error, name: name, format: format, bytes: 0, width: width, height: height)
        }
        var image = Image(width: width, height: height, rgb: rgb, alpha: alpha)
        image.orient(orientation)
        image.decodeReport = report(reader, header, format: format, orientation: orientation)
        return image
    }

    private static func report(_ reader: OpaquePointer, _ header: gps_image_header, format: String,
                               orientation: ExifOrientation) -> DecodeReport {
        var header = header
        let profile = withUnsafeBytes(of: &header.profile_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let colour: DecodeReport.Colour
        switch header.color_status {
        case GPS_COLOR_SRGB: colour = .sRGB(profile: profile)
        case GPS_COLOR_CONVERTED: colour = .converted(from: profile)
        case GPS_COLOR_IGNORED: colour = .ignored(profile: profile)
        default: colour = .untagged
        }
        var count: Int32 = 0
        let warning = String(cString: gps_reader_warning(reader, &count))
        return DecodeReport(format: format, storedWidth: Int(header.width), storedHeight: Int(header.height),
                            orientation: orientation.rawValue, colour: colour,
                            firstWarning: count > 0 ? warning : nil, warningCount: Int(count))
    }

    static func failure(_ status: Int32, _ error: gps_decode_error, name: String, format: String,
                                bytes: Int, width: Int, height: Int) -> Error {
        switch status {
        case GPS_ERR_NO_DATA: return ImageError(name, "file is empty")
        case GPS_ERR_NOT_IMAGE: return ImageError(name, ImageFormat.notAnImage)
        case GPS_ERR_READ: return ImageError(name, "cannot read: \(FileAccess.errorText(error.read_errno))")
        case GPS_ERR_EMPTY: return ImageError.empty(name)
        case GPS_ERR_NO_MEMORY:
            return OutOfMemoryError(what: name, bytes: bytes, purpose: "to decode \(width)x\(height)")
        case GPS_ERR_TOO_LARGE:
            return ImageError(name, "\(format) file larger than \(ByteCount.binary(Int(GPS_WHOLE_INPUT_LIMIT))), "
                              + "the most read into memory whole")
        default:
            let text = message(error)
            let kind = status == GPS_ERR_UNSUPPORTED ? "unsupported" : "corrupt"
            return ImageError(name, "\(kind) \(format): \(text.isEmpty ? "decoder failed" : text)")
        }
    }

    /// The decoder's one-line text.
    static func message(_ error: gps_decode_error) -> String {
        var message = error.message
        return withUnsafeBytes(of: &message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

extension ImageError {
    static func empty(_ name: String) -> ImageError {
        ImageError(name, "image has no pixels (0x0)")
    }
}
