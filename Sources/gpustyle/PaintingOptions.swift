import ArgumentParser
import Foundation
import GPUStyle

/// `--style-image`, `--style-vector` and `--save-style`: paintings as styles (Magenta's
/// arbitrary-style network, docs/arbitrary-style.md), for `stylize` and `live`.
struct PaintingOptions: ParsableArguments {
    @Option(name: .customLong("style-image"),
            help: ArgumentHelp("A painting (any picture) as the style, with an optional weight: a.jpg, or a.jpg:0.7,b.jpg:0.3 to blend; repeatable. Blends with --style N when both are given.",
                               valueName: "image[:weight]"))
    var styleImages: [String] = []

    @Option(name: .customLong("style-vector"),
            help: ArgumentHelp("A painting's style vector saved by --save-style, with an optional weight (v.json:0.5); repeatable.",
                               valueName: "file[:weight]"))
    var styleVectors: [String] = []

    @Option(name: .customLong("save-style"),
            help: ArgumentHelp("Write the paintings' (blended) style vector to this JSON file, to reuse with --style-vector.",
                               valueName: "file"))
    var saveStyle: String?

    var givesPaintings: Bool { !styleImages.isEmpty || !styleVectors.isEmpty }

    /// `path:weight` or `path` (weight 1); a path that itself ends in `:something` not a number
    /// keeps it. Lists are split at commas.
    static func entries(_ values: [String]) throws -> [(path: String, weight: Float)] {
        try values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }.map { entry in
            if let colon = entry.lastIndex(of: ":"), let weight = Float(entry[entry.index(after: colon)...]) {
                guard weight.isFinite, weight >= 0, weight <= StyleMix.maximumWeight else {
                    throw ValidationError("bad weight in '\(entry)': expected a number from 0 to \(Int(StyleMix.maximumWeight))")
                }
                return (String(entry[..<colon]), weight)
            }
            guard !entry.isEmpty else { throw ValidationError("an empty name in a style list") }
            return (entry, 1)
        }
    }

    func validate() throws {
        _ = try Self.entries(styleImages)
        _ = try Self.entries(styleVectors)
        if saveStyle != nil && !givesPaintings {
            throw ValidationError("--save-style needs a painting: --style-image FILE (or --style-vector FILE)")
        }
    }

    /// The mix: `style` (built-in styles; nil when not given) blended with the paintings. The
    /// paintings' vectors are computed on the CPU path whatever the device (a 256x256 network
    /// run, 20-30 ms), so a painting gives the same vector on every machine. Saves the
    /// paintings' vector when asked.
    func mix(style: String?, limits: DecodeLimits, verbose: Bool) throws -> StyleMix {
        guard givesPaintings else { return try StyleMix(parsing: style ?? "0") }
        var paintings: [(name: String, vector: [Float], weight: Float)] = []
        let images = try Self.entries(styleImages)
        if !images.isEmpty {
            let predictor = try ArbitraryStyle(backend: CPUBackend(weights: []))
            for (path, weight) in images {
                let picture = try InputOptions.read(path, limits: limits, verbose: verbose)
                paintings.append((URL(fileURLWithPath: path).lastPathComponent, try predictor.styleVector(picture), weight))
            }
        }
        for (path, weight) in try Self.entries(styleVectors) {
            let file = try StyleVectorFile.read(path: path)
            paintings.append((URL(fileURLWithPath: path).lastPathComponent, file.vector, weight))
        }
        let mix = try StyleMix(builtIn: style, paintings: paintings)
        if let saveStyle, let vector = mix.paintingVector {
            try StyleVectorFile(sources: paintings.map(\.name), vector: vector).write(to: saveStyle)
        }
        return mix
    }
}
