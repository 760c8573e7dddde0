import Foundation

/// Reading and writing images for the stylizer: PNG and JPEG in, PNG out.
public enum ImageIO {
    /// Larger headers are refused before any pixel memory is allocated
    /// (100 MP is already 1.2 GB of planar float RGB).
    public static let maximumPixels = 100_000_000

    /// Reads a PNG or JPEG (recognised by signature, not extension); "-" reads stdin.
    public static func read(path: String) throws -> Image {
        let name = path == "-" ? "stdin" : path
        return try decode(FileAccess.read(path: path, name: name), name: name)
    }

    /// Decodes PNG or JPEG bytes; `name` identifies the source in error messages.
    public static func decode(_ data: Data, name: String) throws -> Image {
        if data.isEmpty { throw ImageError(name, "file is empty") }
        switch ImageFormat(sniffing: data) {
        case .png: return try PNGCodec.decode(data, name: name)
        case .jpeg: return try JPEGCodec.decode(data, name: name)
        case nil: throw ImageError(name, "not a PNG or JPEG image")
        }
    }

    /// Writes 8-bit RGB, or RGBA when `image.alpha` is set, to `path` by `OutputPath`'s rules
    /// (a file is replaced atomically, nothing is left behind on failure; a FIFO or device is
    /// written in place; "-" is stdout), streamed one row at a time.
    public static func writePNG(_ image: Image, to path: String) throws {
        let output = OutputPath(path)
        try PNGCodec.checkEncodable(image, name: output.description)
        let file = try output.open()
        try PNGCodec.write(image, to: file)
        try file.commit()
    }

    /// PNG bytes for `image`: 8-bit RGB or RGBA, samples round(v * 255) clamped.
    public static func encodePNG(_ image: Image) throws -> Data {
        try PNGCodec.encode(image, name: "PNG output")
    }
}
