import ArgumentParser
import Foundation
import GPUStyle

struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Restyle the picture on the wall in a live video (Y4M on stdin, Y4M on stdout).",
        discussion: """
        Detects the best rectangle at most 10 times a second, tracks it in every frame in between,
        stylizes it in the background and warps the newest stylized picture onto it.

        Examples:
          ffmpeg -f v4l2 -i /dev/video0 -pix_fmt yuv420p -f yuv4mpegpipe - | gpustyle live --style 2 | ffplay -
          gpustyle live --camera /dev/video0 --style 2 --stats | ffplay -
          gpustyle live --input clip.mp4 --output styled.mp4 --cycle 2s
          gpustyle live --input clip.mp4 --output frames/ --full-frame --style 9
          gpustyle live --camera /dev/video0 --classify --stats | ffplay -

        --classify names what the camera sees instead (the built-in scene
        classifier of `gpustyle classify`) and draws the top class and its
        confidence in the corner of every frame; a result is shown only on
        frames at most 0.5 s newer than the frame it was made on, of the same
        scene, and nothing until the first result.

        --digits reads the digit on every sticky note in view instead (as
        `gpustyle digits` does) a few times a second, tracks each note in the
        frames in between and draws its outline and label ("7 98%", or "?"
        for ink that is not one clear digit) where it is; a note is drawn only
        while it is tracked and a reading at most 1 s old has seen it, and
        blank notes are not drawn. With --quad-log, one JSON line per frame
        lists the notes drawn.
          gpustyle live --camera /dev/video0 --digits --stats | ffplay -

        --text finds and reads the text lines in view instead (as `gpustyle
        text` does, two times a second at most; a reading of a 720p frame
        takes 0.2-0.35 s on the CPU), tracks each line in the frames in
        between and draws its box (blue), its characters' boxes (green) and
        the string read where the line is now. A line is drawn only while it
        is tracked and a reading at most 3 s old has seen it: text that
        leaves the view goes with it. With --quad-log, one JSON line per
        frame lists the lines drawn (as `gpustyle text --json`, with ids).
          gpustyle live --camera /dev/video0 --text --stats | ffplay -

        --faces finds the faces (as `gpustyle faces`, at most about three
        times a second) and follows each one frame by frame with the face
        mesh, drawing its box and the regions' outlines; --mask REGION=IMAGE
        places images over regions instead, as `gpustyle faces --mask` does,
        following the face. The points are smoothed (a 1-euro filter) so that a
        still face's masks stay still. A face is drawn only while the mesh
        sees a face in it on that frame and a detection has seen it within 1 s.
          gpustyle live --camera /dev/video0 --mask leftEye=examples/masks/eye.png --mask rightEye=examples/masks/eye.png | ffplay -
        """
    )

    @Option(help: "Style index 0-25, or a blend such as 3:0.5,12:0.5 (default: 0, or none with --style-image).")
    var style: String?

    @OptionGroup(title: "Paintings as styles") var paintings: PaintingOptions

    @Option(help: "Mix with the original picture: 1 = fully stylized, 0 = unchanged.")
    var strength: Float = 1

    @Flag(name: .customLong("preserve-color"), help: "Keep the picture's own colours: the style's brightness with the picture's hue and saturation.")
    var preserveColor = false

    @Option(help: ArgumentHelp("Smooth the stylized pictures over time where the picture is still (less texture flicker, no trail behind moving things); S from 0 (the default, off) to below 1 (strongest), as for video files.",
                               valueName: "S"))
    var smooth: Float = 0

    @Option(help: "Step through the styles, this long each (e.g. 2s or 500ms), crossfading between them.")
    var cycle: String?

    @Flag(name: .customLong("full-frame"), help: "Stylize whole frames instead of the detected picture.")
    var fullFrame = false

    @Flag(help: "Draw the scene classifier's top class and confidence on the frames instead of restyling a picture.")
    var classify = false

    @Flag(help: "Read the digit on each sticky note in view and draw it on the note, following the note, instead of restyling a picture.")
    var digits = false

    @Flag(help: "Find and read the text lines in view and draw each one's box, characters and string on it, following the text, instead of restyling a picture.")
    var text = false

    @Flag(help: "Find and follow the faces; draw each one's box and region outlines (or, with --mask, the mask images) instead of restyling a picture.")
    var faces = false

    @Option(help: ArgumentHelp("Place this image (alpha respected) over this region of every face followed, as gpustyle faces --mask does; repeatable; implies --faces.",
                               valueName: "region=image"))
    var mask: [String] = []

    @Option(help: ArgumentHelp("With --faces: the 1-euro filter on the face points as MIN_CUTOFF,BETA (Hz at rest; how fast the cutoff rises with the speed, in face sizes per second), or off. More smoothing: a stiller mask at rest, more lag in motion.",
                               valueName: "min-cutoff,beta|off"))
    var smoothing: String?

    @Option(help: ArgumentHelp("With --classify, --digits or --text: the labels' font (TrueType or OpenType; default DejaVu Sans).", valueName: "file"))
    var font: String?

    @Option(help: ArgumentHelp("With --classify: this classifier instead of the built-in one (as gpustyle classify --model).", valueName: "file"))
    var model: String?

    @Option(help: ArgumentHelp("Class names for --model, one per line.", valueName: "file"))
    var labels: String?

    @Option(name: .customLong("confirm-timeout"), help: "Let go of a tracked picture that no detection has confirmed for this long (e.g. 1s).")
    var confirmTimeout: String = "1s"

    @Option(name: .customLong("stylize-size"), help: "Longer side, in pixels, of the rectified picture the network stylizes.")
    var stylizeSize: Int = 256

    @Option(help: "Read Y4M from ffmpeg decoding this video file (instead of stdin).")
    var input: String?

    @Option(help: "Read from this camera through ffmpeg (v4l2), e.g. /dev/video0.")
    var camera: String?

    @Option(name: [.short, .customLong("output")],
            help: "Write here instead of stdout: a .y4m file, a video ffmpeg can encode (.mp4, .mkv), or a folder (PNG per frame).")
    var output: String?

    @Option(help: "realtime (default): frames come at the video's rate (--input is read like a camera) and those that arrive while one is being processed are skipped; all: every frame, as fast as possible; lockstep: every frame, and each frame waits for the detection started on it (reproducible quads: tests, evaluation).")
    var pace: FrameMailbox.Pace?

    @Option(name: .customLong("quad-log"), help: "Write one JSON line per output frame: input frame index, quad, state.")
    var quadLog: String?

    @Option(name: .customLong("max-frames"), help: "Stop after this many output frames.")
    var maxFrames: Int?

    @Flag(help: "Print fps, drops and latencies once a second (standard error).")
    var stats = false

    @OptionGroup var deviceOptions: DeviceOptions

    func validate() throws {
        guard strength.isFinite, (0...1).contains(strength) else {
            throw ValidationError("--strength must be between 0 and 1 (got \(strength))")
        }
        try VideoOptions.checkSmooth(smooth)
        if input != nil && camera != nil { throw ValidationError("give --input or --camera, not both") }
        if let cycle, (try? Self.seconds(cycle)).map({ $0 > 0 }) != true {
            throw ValidationError("--cycle must be a positive duration such as 2s or 500ms (got '\(cycle)')")
        }
        if (try? Self.seconds(confirmTimeout)).map({ $0 > 0 }) != true {
            throw ValidationError("--confirm-timeout must be a positive duration such as 1s or 500ms (got '\(confirmTimeout)')")
        }
        guard (StyleNetwork.minimumInputSide...4096).contains(stylizeSize) else {
            throw ValidationError("--stylize-size must be between \(StyleNetwork.minimumInputSide) and 4096")
        }
        let modes = [("--classify", classify), ("--digits", digits), ("--text", text),
                     (mask.isEmpty ? "--faces" : "--mask", facesMode)].filter(\.1)
        if modes.count > 1 { throw ValidationError("\(modes[0].0) and \(modes[1].0) are different modes: give one") }
        if smooth > 0, let mode = modes.first { throw ValidationError("--smooth smooths the stylized pictures; \(mode.0) does not stylize") }
        _ = try FaceMaskArguments.parse(mask)
        if let smoothing {
            guard facesMode else { throw ValidationError("--smoothing is an option of --faces and --mask") }
            _ = try Self.smoothingParameters(smoothing)
        }
        if facesMode {
            let name = mask.isEmpty ? "--faces" : "--mask"
            if fullFrame { throw ValidationError("\(name) and --full-frame are different modes: give one") }
            if cycle != nil { throw ValidationError("--cycle restyles a picture; \(name) does not stylize") }
            if font != nil || model != nil { throw ValidationError("--font and --model are options of --classify, --digits and --text") }
        } else if classify {
            if fullFrame { throw ValidationError("--classify and --full-frame are different modes: give one") }
            if cycle != nil { throw ValidationError("--cycle restyles a picture; --classify does not stylize") }
            if quadLog != nil { throw ValidationError("--quad-log logs the tracked picture; --classify tracks none") }
        } else if digits {
            if fullFrame { throw ValidationError("--digits and --full-frame are different modes: give one") }
            if cycle != nil { throw ValidationError("--cycle restyles a picture; --digits does not stylize") }
            if model != nil { throw ValidationError("--model is an option of --classify; --digits has its own classifier") }
        } else if text {
            if fullFrame { throw ValidationError("--text and --full-frame are different modes: give one") }
            if cycle != nil { throw ValidationError("--cycle restyles a picture; --text does not stylize") }
            if model != nil { throw ValidationError("--model is an option of --classify; --text has its own reader") }
        } else if font != nil || model != nil {
            throw ValidationError("--font is an option of --classify, --digits and --text, --model of --classify")
        }
        if labels != nil && model == nil { throw ValidationError("--labels names the classes of --model; the built-in model has its own") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
    }

    /// `--faces`, or `--mask` (which implies it).
    var facesMode: Bool { faces || !mask.isEmpty }

    /// "off" (nil) or "MIN_CUTOFF,BETA" (both finite, the cutoff above 0, beta at least 0).
    static func smoothingParameters(_ text: String) throws -> OneEuroFilter.Parameters? {
        if text == "off" { return nil }
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let cutoff = parts[0], let beta = parts[1], cutoff.isFinite, beta.isFinite, cutoff > 0, beta >= 0 else {
            throw ValidationError("--smoothing must be MIN_CUTOFF,BETA (e.g. \(LiveFacesOptions.smoothingParameters.minimumCutoff),"
                                  + "\(LiveFacesOptions.smoothingParameters.beta)) with MIN_CUTOFF > 0 and BETA >= 0, or off (got '\(text)')")
        }
        return OneEuroFilter.Parameters(minimumCutoff: cutoff, beta: beta)
    }

    /// "2s", "500ms" or a plain number of seconds.
    static func seconds(_ text: String) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let value: Double?
        if trimmed.hasSuffix("ms") { value = Double(trimmed.dropLast(2)).map { $0 / 1000 } }
        else if trimmed.hasSuffix("s") { value = Double(trimmed.dropLast()) }
        else { value = Double(trimmed) }
        guard let value, value.isFinite else { throw ValidationError("bad duration '\(text)'") }
        return value
    }

    func run() throws {
        let mix = try paintings.mix(style: style, limits: DecodeLimits(), verbose: false)
        var options = LiveOptions(mix: mix)
        options.strength = strength
        options.preserveColor = preserveColor
        options.smoothing = VideoOptions.smoothing(smooth)
        options.cyclePeriod = try cycle.map(Self.seconds)
        options.fullFrame = fullFrame
        options.verification.confirmationTimeout = try Self.seconds(confirmTimeout)
        options.stylizeSide = stylizeSize
        options.lockstep = pace == .lockstep
        let session = try LiveSession(command: self, options: options)
        try session.run()
    }
}

extension FrameMailbox.Pace: ExpressibleByArgument {}
