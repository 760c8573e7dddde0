import ArgumentParser
import Foundation
import GPUStyle

struct StylizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stylize",
        abstract: "Stylize a photo (the default command): gpustyle --style 2 in.png out.png",
        discussion: """
        INPUT is a PNG, JPEG, HEIC, AVIF or WebP file, a folder of them, or - for standard input.
        OUTPUT is a PNG file, a folder (with a folder INPUT), or - for standard output.

        Folders: photo.jpg is written as photo.png; when two inputs would share a name
        (photo.jpg and photo.png), the ones not named .png keep their extension
        (photo.jpg.png). An output folder that is the input folder is refused when an output
        would overwrite an input.

        Examples:
          gpustyle --style 2 photo.jpg out.png
          gpustyle --style 3:0.5,12:0.5 --strength 0.8 photo.png blend.png
          gpustyle --style 4 photos/ -o styled/
          cat photo.png | gpustyle --style 9 - - > out.png
          gpustyle --style-image painting.jpg photo.jpg out.png
          gpustyle --style-image a.jpg:0.7,b.jpg:0.3 --save-style ab.json photo.jpg out.png
        """
    )

    @Option(help: "Style index 0-25, or a blend such as 3:0.5,12:0.5 (default: 0, or none with --style-image).")
    var style: String?

    @OptionGroup(title: "Paintings as styles") var paintings: PaintingOptions

    @Option(help: "Mix with the original photo: 1 = fully stylized, 0 = unchanged.")
    var strength: Float = 1

    @Flag(name: .customLong("preserve-color"),
          help: "Keep the photo's colours: the stylized picture's brightness (luma) with the photo's hue and saturation (its Cb and Cr).")
    var preserveColor = false

    @Option(name: [.short, .customLong("output")], help: "Output file or folder (instead of the second argument).")
    var outputOption: String?

    @OptionGroup var deviceOptions: DeviceOptions

    @OptionGroup var inputOptions: InputOptions

    @OptionGroup(title: "CPU kernels") var instructionSet: InstructionSetOption

    @OptionGroup var videoOptions: VideoOptions

    @OptionGroup(title: "Folders and videos on many machines") var batchOptions: BatchOptions

    // Alter in place (the picture on the wall): options and run code in RectifyCommand.swift.
    @Flag(name: .customLong("in-place-rectangle"),
          help: "Stylize only the best rectangle found (a picture on the wall) and put it back in place.")
    var inPlaceRectangle = false

    @Option(help: "With --in-place-rectangle, when no rectangle is found: none (exit 1) or whole (stylize the whole photo).")
    var fallback: InPlaceStylizer.Fallback?

    @Option(parsing: .unconditional,
            help: "With --in-place-rectangle: alter this quad x1,y1,...,x4,y4 (top-left, top-right, bottom-right, bottom-left) instead of detecting one.")
    var quad: String?

    /// Vision's detection parameters, for --in-place-rectangle without --quad.
    @OptionGroup var rectangle: RectangleOptions

    @Argument(help: "Input image, folder, video (see docs/video.md), or -.")
    var input: String

    @Argument(help: "Output PNG, folder, or -.")
    var output: String?

    func validate() throws {
        guard strength.isFinite, (0...1).contains(strength) else {
            throw ValidationError("--strength must be between 0 and 1 (got \(strength))")
        }
        if output != nil && outputOption != nil {
            throw ValidationError("give the output either as the second argument or with -o, not both")
        }
        if output == nil && outputOption == nil {
            throw ValidationError("missing output: gpustyle --style N INPUT OUTPUT")
        }
        try validateInPlace()
    }

    func run() throws {
        let destination = (output ?? outputOption)!
        try instructionSet.apply()
        if videoOptions.smooth != 0 && !VideoInput.isVideo(input) {
            throw CommandFailure(message: "--smooth is for videos: a photo or a folder of photos has no frames to smooth over")
        }
        if let saveStyle = paintings.saveStyle { try OutputPath(saveStyle).check() }
        let mix = try paintings.mix(style: style, limits: inputOptions.limits, verbose: deviceOptions.verbose)
        if inPlaceRectangle { return try runInPlace(mix: mix, destination: destination) }
        if VideoInput.isVideo(input) {
            return try VideoStylizeJob(input: input, output: destination, mix: mix, strength: strength, preserveColor: preserveColor,
                                       deviceOptions: deviceOptions,
                                       options: videoOptions, batch: batchOptions).run()
        }
        if input != "-", FileManager.default.isDirectory(input) {
            try FolderJob(input: input, output: destination, mix: mix, strength: strength, preserveColor: preserveColor, options: deviceOptions,
                          limits: inputOptions.limits, batch: batchOptions).run()
            return
        }
        if batchOptions.shard != nil || batchOptions.force || batchOptions.summary != nil {
            throw CommandFailure(message: "--shard, --force and --summary are for a folder of photos or a video")
        }
        // Check the input and the output's folder before starting a device: bad input fails fast.
        try OutputPath(destination).check()
        let image = try inputOptions.read(input, verbose: deviceOptions.verbose)
        try Stylizer.validate(width: image.width, height: image.height)
        let stylizer = try deviceOptions.makeStylizer()
        let start = MonotonicClock.seconds()
        // The image's last use: tiled runs release its planes once they are stored compactly.
        let result: Image
        do {
            result = try stylizer.stylize(consume image, mix: mix, strength: strength, preserveColor: preserveColor)
        } catch let error as TilingLayout.BudgetError {
            throw CommandFailure(message: "\(input): \(error)", status: 1)
        }
        try ImageIO.writePNG(result, to: destination)
        if deviceOptions.verbose {
            printToStandardError(String(format: "%@: %dx%d, style %@, %.0f ms%@", input, result.width, result.height,
                                        mix.description, (MonotonicClock.seconds() - start) * 1000,
                                        stylizer.lastLayout.map { ", in tiles (\($0))" }
                                            ?? stylizer.lastPaintingTiles.map { ", layer by layer in \($0) tiles" } ?? ""))
        }
    }
}
