#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Reading and writing images for the stylizer: PNG, JPEG, HEIC, AVIF and WebP in, PNG out.
public enum ImageIO {
    /// The default pixel limit (`DecodeLimits.defaultMaxPixels`).
    public static let maximumPixels = DecodeLimits.defaultMaxPixels

    /// Reads a PNG, JPEG, HEIC, AVIF or WebP (recognised by signature, not extension), streaming
    /// PNG and JPEG from the file (HEIC and WebP are read whole); "-" reads stdin (into memory, at most `limits.maxStandardInputBytes`). Sizes above
    /// `limits.maxPixels` are refused from the header, before any pixel memory is allocated.
    public static func read(path: String, limits: DecodeLimits = DecodeLimits()) throws -> Image {
        if path == "-" {
            return try decode(readStandardInput(limit: limits.maxStandardInputBytes), name: "stdin", limits: limits)
        }
        let fd = try FileAccess.openForReading(path: path, name: path)
        defer { close(fd) }
        return try ImageReader.decode(fileDescriptor: fd, name: path, limits: limits)
    }

    /// Decodes PNG, JPEG, HEIC, AVIF or WebP bytes; `name` identifies the source in error messages.
    public static func decode(_ data: Data, name: String, limits: DecodeLimits = DecodeLimits()) throws -> Image {
        try data.withUnsafeBytes { try ImageReader.decode(bytes: $0, name: name, limits: limits) }
    }

    /// Standard input, whole, with a cap; input that does not start like an image is refused
    /// after its first bytes (`cat /dev/zero | gpustyle ... -` fails at once, not after 1 GiB).
    static func readStandardInput(limit: Int) throws -> Data {
        try FileAccess.readAll(STDIN_FILENO, name: "stdin", limit: limit, firstBytes: ImageFormat.signatureLength) { first in
            if ImageFormat(sniffing: first) == nil { throw ImageError("stdin", ImageFormat.notAnImage) }
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
