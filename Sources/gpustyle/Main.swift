import ArgumentParser
import Foundation
import GPUStyle

/// Entry point. Parsing is done by hand so that every usage error exits with status 2
/// (ArgumentParser's default is 64), as docs/usage.md promises.
@main
enum Main {
    static func main() {
        // A closed pipe on stdout (`gpustyle ... - | head`) becomes a write error we report,
        // not a silent death by signal.
        signal(SIGPIPE, SIG_IGN)
        // SIGINT/SIGTERM: temporary files removed, child processes ended, exit 130/143.
        SignalCleanup.shared.install()
        do {
            var command = try GPUStyleCommand.parseAsRoot()
            try command.run()
            SignalCleanup.shared.holdIfEnding()
        } catch let exit as ExitCode {
            SignalCleanup.shared.holdIfEnding()
            Foundation.exit(exit.rawValue)
        } catch let failure as CommandFailure {
            printError(failure.message)
            Foundation.exit(failure.status)
        } catch let failure as OutputError {
            // A path the user gave that cannot be written (2), or a write that failed (1).
            printError("\(failure)")
            Foundation.exit(failure.isUserError ? 2 : 1)
        } catch {
            let code = GPUStyleCommand.exitCode(for: error)
            if code == .success {
                GPUStyleCommand.exit(withError: error)  // --help, --version
            }
            if error is OutOfMemoryError {
                // Not the user's fault: status 1, but one line, like a user error.
                printToStandardError("gpustyle: \(error)")
                Foundation.exit(1)
            }
            if isUserError(error) {
                printError("\(error)")
                Foundation.exit(2)
            }
            if code == .validationFailure {
                // One line: the reason, and where to read more.
                printToStandardError("gpustyle: \(GPUStyleCommand.message(for: error)) (see gpustyle --help)")
                Foundation.exit(2)
            }
            // Anything else is ours or the device's, not the user's: status 1.
            printError("error: \(error)")
            Foundation.exit(1)
        }
    }

    /// One line on stderr; control characters escaped (messages quote file names).
    static func printError(_ message: String) {
        // A signal ending the process meanwhile decides the status, and prints nothing.
        SignalCleanup.shared.holdIfEnding()
        printToStandardError("gpustyle: " + PrintableText.escaping(message))
    }

    /// Errors caused by what the user gave us (files, values), reported in one line with status 2.
    static func isUserError(_ error: Error) -> Bool {
        error is ImageError || error is StyleMix.ParseError || error is Stylizer.InputError || error is StyleVectorFile.ReadError
            || error is RectangleDetector.OptionsError
    }
}

/// A failure the command has already worded for the user.
struct CommandFailure: Error {
    let message: String
    var status: Int32 = 2
}

struct GPUStyleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpustyle",
        abstract: "Neural style transfer on Vulkan compute shaders, with a fast CPU path chosen at run time.",
        version: "0.1.0",
        subcommands: [StylizeCommand.self, StylesCommand.self, DetectCommand.self, ClassifyCommand.self, DigitsCommand.self, FacesCommand.self, TextCommand.self, AnalyzeCommand.self, ConvertModelCommand.self, RectifyCommand.self, LiveCommand.self, JoinCommand.self, BenchCommand.self, ProfileCommand.self, DevicesCommand.self],
        defaultSubcommand: StylizeCommand.self
    )
}
