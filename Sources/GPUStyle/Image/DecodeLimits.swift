/// Bounds on what reading an image may cost, checked before the memory is spent.
public struct DecodeLimits: Sendable {
    /// Default pixel limit: 100 MP is already 1.2 GB of planar float RGB.
    public static let defaultMaxPixels = 100_000_000

    /// Default cap on standard input, which is read into memory before decoding (a file is
    /// streamed instead). A compressed 100 MP image is far smaller than 1 GiB.
    public static let defaultMaxStandardInputBytes = 1 << 30

    /// Images whose header says width x height is above this are refused before any pixel
    /// memory is allocated.
    public var maxPixels: Int
    /// Standard input longer than this is refused ("stdin: more than 1 GiB of input").
    public var maxStandardInputBytes: Int
    /// How the pixel limit is named at the end of the error, e.g. "--max-pixels" in a CLI.
    public var maxPixelsName: String

    public init(maxPixels: Int = defaultMaxPixels, maxStandardInputBytes: Int = defaultMaxStandardInputBytes,
                maxPixelsName: String = "DecodeLimits.maxPixels") {
        self.maxPixels = maxPixels
        self.maxStandardInputBytes = maxStandardInputBytes
        self.maxPixelsName = maxPixelsName
    }

    /// Throws when `width` x `height` is above `maxPixels`:
    /// "in.jpg: image is 30000x20000 (600 MP), above the 100 MP limit (--max-pixels)".
    func check(width: Int, height: Int, name: String) throws {
        let pixels = width.multipliedReportingOverflow(by: height)
        guard pixels.overflow || pixels.partialValue > maxPixels else { return }
        let count = pixels.overflow ? Int.max : pixels.partialValue
        throw ImageError(name, "image is \(width)x\(height) (\(Self.describe(count))), above the "
                         + "\(Self.describe(maxPixels, adjective: true)) limit (\(maxPixelsName))")
    }

    /// "600 MP", "24.1 MP"; below a megapixel "16384 pixels" ("1000-pixel" as an adjective).
    static func describe(_ pixels: Int, adjective: Bool = false) -> String {
        if pixels >= 1_000_000 {
            let megapixels = Double(pixels) / 1e6
            return megapixels == megapixels.rounded() ? "\(Int(megapixels)) MP" : "\((megapixels * 10).rounded() / 10) MP"
        }
        return adjective ? "\(pixels)-pixel" : "\(pixels) pixels"
    }
}
