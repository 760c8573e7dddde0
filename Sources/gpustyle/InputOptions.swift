import ArgumentParser
import GPUStyle

/// `--max-pixels`, shared by the commands that read a photo.
struct InputOptions: ParsableArguments {
    @Option(name: .customLong("max-pixels"),
            help: ArgumentHelp("Refuse images larger than this many pixels, from the file's header before decoding: a number or 24M, 24MP, 1.5G (default 100M).",
                               valueName: "n"),
            transform: PixelCount.parse)
    var maxPixels: Int = DecodeLimits.defaultMaxPixels

    /// The limits the image is read with; errors name the option.
    var limits: DecodeLimits { DecodeLimits(maxPixels: maxPixels, maxPixelsName: "--max-pixels") }

    /// Reads a photo within these limits; under --verbose says how it was decoded (format,
    /// orientation, colour profile, and the first problem it went past).
    func read(_ path: String, verbose: Bool) throws -> Image {
        try Self.read(path, limits: limits, verbose: verbose)
    }

    static func read(_ path: String, limits: DecodeLimits, verbose: Bool) throws -> Image {
        let image = try ImageIO.read(path: path, limits: limits)
        if verbose, let report = image.decodeReport {
            printToStandardError("\(PrintableText.escaping(path)): \(report.summary)")
        }
        return image
    }
}

/// Pixel counts as people write them: 100000000, 100M, 24MP, 1.5G, 500K.
enum PixelCount {
    static func parse(_ text: String) throws -> Int {
        guard let value = ScaledNumber.parse(text, units: units), value.isFinite,
              case let pixels = value.rounded(), pixels >= 1, pixels <= Double(Int.max / 2) else {
            throw ValidationError("expected a positive pixel count such as 100000000, 100M or 24MP")
        }
        return Int(pixels)
    }

    private static let units: [(suffix: String, scale: Double)] = [
        ("MP", 1e6), ("GP", 1e9), ("KP", 1e3), ("M", 1e6), ("G", 1e9), ("K", 1e3),
    ]
}
