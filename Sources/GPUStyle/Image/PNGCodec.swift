import CImageShims
import Foundation

/// PNG writing through libpng (via the CImageShims setjmp wrappers); reading is ImageReader.
enum PNGCodec {
    static func encode(_ image: Image, name: String) throws -> Data {
        guard image.width > 0, image.height > 0 else { throw ImageError.empty(name) }
        guard image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else {
            throw ImageError(name, "image is too large to encode (\(image.width)x\(image.height))")
        }
        guard image.rgb.count == 3 * image.pixelCount, image.alpha.map({ $0.count == image.pixelCount }) ?? true else {
            throw ImageError(name, "image buffers do not match \(image.width)x\(image.height)")
        }
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
}
