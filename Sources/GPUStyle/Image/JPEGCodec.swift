import CImageShims
import Foundation

/// JPEG reading through libjpeg-turbo, with EXIF orientation applied so the
/// network sees the picture the way a viewer shows it.
enum JPEGCodec {
    static func decode(_ data: Data, name: String) throws -> Image {
        let stored = try CodecCall.decode(data, name: name, format: "JPEG", with: gps_jpeg_decode)
        return stored.oriented(ExifOrientation.fromJPEG(data))
    }
}
