import ArgumentParser
import Foundation
import GPUStyle

struct RectifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rectify",
        abstract: "Crop a quad out of a photo with perspective correction, like Core Image's CIPerspectiveCorrection.",
        discussion: """
        Without --quad, the best rectangle `gpustyle detect` finds is used (exit status 1 when
        there is none), with the same detection options. Corners are in pixels, origin at the image's top-left corner, pixel
        centres at integers, given as top-left, top-right, bottom-right, bottom-left. The output's
        corner pixel centres sample exactly those corners. Default output size:
        max(|br-bl|, |tr-tl|) x max(|tr-br|, |tl-bl|), rounded.

        Examples:
          gpustyle rectify photo.jpg poster.png
          gpustyle rectify --quad 120,80,900,110,880,700,100,650 --size 800x600 photo.png out.png
        """
    )

    // .unconditional: corners may be negative ("--quad -3.5,...").
    @Option(parsing: .unconditional,
            help: "Corners x1,y1,x2,y2,x3,y3,x4,y4: top-left, top-right, bottom-right, bottom-left (default: detect).")
    var quad: String?

    @Option(help: "Output size WxH, each side 2-\(PerspectiveCorrection.maximumSide) (default: from the quad's sides).")
    var size: String?

    @Flag(help: "Bicubic (Catmull-Rom) sampling instead of bilinear.")
    var bicubic = false

    @OptionGroup var deviceOptions: DeviceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup var rectangle: RectangleOptions

    @Argument(help: "Photo (PNG, JPEG, HEIC, AVIF or WebP), or - for stdin.")
    var input: String

    @Argument(help: "Output PNG, or - for stdout.")
    var output: String

    func validate() throws {
        if let quad {
            _ = try Self.parseQuad(quad)
            if rectangle.isCustomized { throw ValidationError("detection options apply only without --quad") }
        }
        if let size { _ = try Self.parseSize(size) }
    }

    func run() throws {
        try OutputPath(output).check()
        let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
        let corners: Quad
        if let quad {
            corners = try Self.parseQuad(quad)
            try Self.check(corners, in: image)
        } else {
            guard let best = try deviceOptions.makeDetector().detect(image, options: rectangle.options).first else {
                throw CommandFailure(message: "no rectangle found in \(input == "-" ? "stdin" : input); give one with --quad", status: 1)
            }
            corners = best.quad
            if deviceOptions.verbose { printToStandardError("detected quad \(corners) (confidence \(best.confidence))") }
        }
        let explicitSize = try size.map(Self.parseSize)
        let warper = try deviceOptions.choose("warp", name: \.name, ComputeChoice<PerspectiveWarper>.choose)
        let start = MonotonicClock.seconds()
        let result: Image
        do {
            result = try PerspectiveCorrection.rectify(image, quad: corners, width: explicitSize?.width, height: explicitSize?.height,
                                                       interpolation: bicubic ? .bicubic : .bilinear, warper: warper)
        } catch let error as HomographyError {
            throw CommandFailure(message: "\(error)")
        } catch let error as PerspectiveCorrection.SizeError {
            throw CommandFailure(message: "\(error)")
        }
        let seconds = MonotonicClock.seconds() - start
        try ImageIO.writePNG(result, to: output)
        if deviceOptions.verbose {
            printToStandardError(String(format: "%@: %dx%d -> %dx%d, warp %.1f ms", input, image.width, image.height,
                                        result.width, result.height, seconds * 1000))
        }
    }

    /// `x1,y1,...,x4,y4` (top-left, top-right, bottom-right, bottom-left).
    static func parseQuad(_ text: String) throws -> Quad {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let values = fields.compactMap { Double($0) }
        guard fields.count == 8, values.count == 8 else {
            throw ValidationError("--quad needs 8 comma-separated numbers x1,y1,x2,y2,x3,y3,x4,y4 (top-left, top-right, bottom-right, bottom-left); got '\(text)'")
        }
        guard values.allSatisfy(\.isFinite) else {
            throw ValidationError("--quad coordinates must be finite numbers; got '\(text)'")
        }
        let p = (0..<4).map { Point(x: values[2 * $0], y: values[2 * $0 + 1]) }
        let quad = Quad(corners: p)
        do {
            try quad.validateForWarp()
        } catch {
            throw ValidationError("--quad: \(error)")
        }
        return quad
    }

    /// `WxH`, each side 2...maximumSide.
    static func parseSize(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw ValidationError("--size must look like 800x600; got '\(text)'")
        }
        do {
            try PerspectiveCorrection.checkSize(width: w, height: h)
        } catch {
            throw ValidationError("--size: \(error)")
        }
        return (w, h)
    }

    /// A given quad must lie mostly on the photo: no corner more than half the photo's size
    /// beyond an edge.
    static func check(_ quad: Quad, in image: Image) throws {
        let w = Double(image.width), h = Double(image.height)
        for (name, corner) in zip(["top-left", "top-right", "bottom-right", "bottom-left"], quad.corners) {
            guard corner.x >= -0.5 * w, corner.x <= 1.5 * w - 1, corner.y >= -0.5 * h, corner.y <= 1.5 * h - 1 else {
                throw CommandFailure(message: "--quad: the \(name) corner (\(format(corner.x)), \(format(corner.y))) is far outside the "
                                     + "\(image.width)x\(image.height) image")
            }
        }
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

extension InPlaceStylizer.Fallback: ExpressibleByArgument {}

/// `gpustyle --style N --in-place-rectangle [--fallback whole] [--quad ...] photo out.png`.
extension StylizeCommand {
    func validateInPlace() throws {
        guard inPlaceRectangle else {
            if fallback != nil { throw ValidationError("--fallback only applies with --in-place-rectangle") }
            if quad != nil { throw ValidationError("--quad only applies with --in-place-rectangle") }
            if rectangle.isCustomized { throw ValidationError("detection options only apply with --in-place-rectangle") }
            return
        }
        if let quad {
            _ = try RectifyCommand.parseQuad(quad)
            if rectangle.isCustomized { throw ValidationError("detection options apply only without --quad") }
        }
    }

    func runInPlace(mix: StyleMix, destination: String) throws {
        if input != "-", FileManager.default.isDirectory(input) {
            throw CommandFailure(message: "--in-place-rectangle works on one photo, not a folder (\(input))")
        }
        try OutputPath(destination).check()
        let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
        let given = try quad.map(RectifyCommand.parseQuad)
        if let given { try RectifyCommand.check(given, in: image) }
        if given == nil && fallback == .whole { try Stylizer.validate(width: image.width, height: image.height) }
        let stylizer = try deviceOptions.makeStylizer()
        // The warp (and with it the compositing) by the same rules as the network.
        let warper = try deviceOptions.choose("warp", name: \.name, ComputeChoice<PerspectiveWarper>.choose)
        let inPlace = InPlaceStylizer(stylizer: stylizer, warper: warper)
        inPlace.detectionOptions = rectangle.options
        let start = MonotonicClock.seconds()
        let result: InPlaceStylizer.Result
        do {
            if let given {
                result = try inPlace.stylize(image, in: given, mix: mix, strength: strength, preserveColor: preserveColor)
            } else {
                result = try inPlace.stylize(image, mix: mix, strength: strength, preserveColor: preserveColor, fallback: fallback ?? InPlaceStylizer.Fallback.none,
                                             detector: try deviceOptions.makeDetector())
            }
        } catch is InPlaceStylizer.NoRectangleError {
            throw CommandFailure(message: "no rectangle found in \(input == "-" ? "stdin" : input); "
                                 + "use --fallback whole to stylize the whole photo, or give one with --quad", status: 1)
        } catch let error as HomographyError {
            throw CommandFailure(message: "\(error)")
        }
        try ImageIO.writePNG(result.image, to: destination)
        if deviceOptions.verbose {
            let what = result.quad.map { "quad \($0), rectified \(result.rectifiedWidth)x\(result.rectifiedHeight)" }
                ?? "no rectangle: whole photo"
            printToStandardError(String(format: "%@: %dx%d, style %@, %@, warp %@, %.0f ms", input, image.width, image.height,
                                        mix.description, what, warper.name, (MonotonicClock.seconds() - start) * 1000))
        }
    }
}
