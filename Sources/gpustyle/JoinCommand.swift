import ArgumentParser
import Foundation
import GPUStyle

/// `gpustyle join PARTS... OUTPUT`: the parts of a `--shard` video run as one video.
struct JoinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the parts of a sharded video run: gpustyle join out.part-*-of-3.nut out.mp4",
        discussion: """
        The parts must be every part I of N of one run (each with its .json record), made from the \
        same source with the same options. The video is copied (no re-encoding) and the source's \
        audio added; the source is read from the records unless --source is given. See docs/video.md.
        """
    )

    @Option(help: "The source video, when it has moved since the parts were made (it must be the same file).")
    var source: String?

    @Flag(help: "Join even when OUTPUT is already this join's result.")
    var force = false

    @Argument(help: "The parts (NAME.part-I-of-N.nut or .json), then the output video.")
    var paths: [String] = []

    func validate() throws {
        guard paths.count >= 2 else { throw ValidationError("give the parts and then the output: gpustyle join PARTS... OUTPUT") }
    }

    func run() throws {
        do {
            let tools = try VideoTools.locate(searchPath: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            var join = VideoJoin(parts: Array(paths.dropLast()), output: paths.last!, tools: tools, source: source)
            join.force = force
            switch try join.run() {
            case .skipped(let path):
                printToStandardError("gpustyle: \(path) is already this join's result (--force to redo it)")
            case .joined(let parts, let frames):
                printToStandardError("gpustyle: joined \(parts) parts, \(frames) frames, into \(OutputPath(paths.last!).description)")
            }
        } catch let error as VideoError {
            throw CommandFailure(message: error.description, status: error.isUserError ? 2 : 1)
        }
    }
}
