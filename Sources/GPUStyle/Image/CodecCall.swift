import CImageShims
import Foundation

/// Runs one of the C shim decoders over `data` and turns its status into
/// either an `Image` or an `ImageError` naming `name`.
enum CodecCall {
    typealias Decoder = (UnsafeRawPointer?, Int, UInt64, UnsafeMutablePointer<gps_pixels>?,
                         UnsafeMutablePointer<CChar>?, Int) -> Int32

    static func decode(_ data: Data, name: String, format: String, with decoder: Decoder) throws -> Image {
        var pixels = gps_pixels()
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBytes { bytes in
            message.withUnsafeMutableBufferPointer { message in
                decoder(bytes.baseAddress, bytes.count, UInt64(ImageIO.maximumPixels), &pixels,
                        message.baseAddress, message.count)
            }
        }
        defer { gps_free(pixels.data) }
        guard status == GPS_OK else {
            throw error(status, message: message, name: name, format: format,
                        width: Int(pixels.width), height: Int(pixels.height))
        }
        return PixelConversion.image(from: pixels)
    }

    static func error(_ status: Int32, message: [CChar], name: String, format: String,
                      width: Int, height: Int) -> ImageError {
        switch status {
        case GPS_ERR_TOO_LARGE: return ImageError.tooLarge(name, width: width, height: height)
        case GPS_ERR_EMPTY: return ImageError.empty(name)
        case GPS_ERR_NO_MEMORY: return ImageError(name, "out of memory decoding \(format)")
        default:
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return ImageError(name, "corrupt \(format): \(text.isEmpty ? "decoder failed" : text)")
        }
    }
}

extension ImageError {
    static func tooLarge(_ name: String, width: Int, height: Int) -> ImageError {
        ImageError(name, "image is too large (\(width)x\(height) pixels, limit is \(ImageIO.maximumPixels))")
    }

    static func empty(_ name: String) -> ImageError {
        ImageError(name, "image has no pixels (0x0)")
    }
}
