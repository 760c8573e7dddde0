import CImageShims
import Foundation

/// PNG writing through libpng (via the CImageShims setjmp wrappers); reading is ImageReader.
enum PNGCodec {
    /// Refuses images the encoder cannot take, before an output is opened.
    static func checkEncodable(_ image: Image, name: String) throws {
        guard image.width > 0, image.height > 0 else { throw ImageError.empty(name) }
        guard image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw ImageError(name, "image is too large to encode (\(image.width)x\(image.height))")
        }
        guard image.rgb.count == 3 * image.pixelCount, image.alpha.map({ $0.count == image.pixelCount }) ?? true else {
            throw ImageError(name, "image buffers do not match \(image.width)x\(image.height)")
        }
    }

    static func encode(_ image: Image, name: String) throws -> Data {
        try checkEncodable(image, name: name)
        let channels: UInt32 = image.alpha == nil ? 3 : 4
        let pixels = PixelConversion.interleaved8(image)
        var png: UnsafeMutableRawPointer?
        var size = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { message in
            gps_png_encode(pixels, UInt32(image.width), UInt32(image.height), channels,
                           &png, &size, message.baseAddress, message.count)
        }
        guard status == GPS_OK, let png else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageError(name, "cannot encode PNG: \(text.isEmpty ? "status \(status)" : text)")
        }
        // Hand the malloc'd buffer to Data without copying; Data frees it.
        return Data(bytesNoCopy: png, count: size, deallocator: .free)
    }

    /// Streams `image` as PNG into `file`, converting one row at a time: the same bytes as
    /// `encode`, with memory for one row instead of the whole file. A failed write(2) is an
    /// `OutputError` naming the file and the reason.
    static func write(_ image: Image, to file: OutputFile) throws {
        try checkEncodable(image, name: file.name)
        let channels = image.alpha == nil ? 3 : 4
        var writer: OpaquePointer?
        defer { gps_png_writer_free(writer) }
        var status = gps_png_writer_open(&writer, file.descriptor, UInt32(image.width), UInt32(image.height), UInt32(channels))
        var row = [UInt8](repeating: 0, count: image.width * channels)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<image.height where status == GPS_OK {
                PixelConversion.interleaved8(image, row: y, into: row)
                status = gps_png_writer_row(writer, row.baseAddress)
            }
        }
        if status == GPS_OK { status = gps_png_writer_finish(writer) }
        switch status {
        case GPS_OK:
            return
        case GPS_ERR_WRITE:
            throw file.writeError(gps_png_writer_errno(writer))
        default:
            let text = String(cString: gps_png_writer_message(writer))
            throw ImageError(file.name, "cannot encode PNG: \(text.isEmpty ? "status \(status)" : text)")
        }
    }
}
