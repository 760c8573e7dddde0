import Foundation

/// The option reference of docs/usage.md, made from `gpustyle --experimental-dump-help`:
/// swift-argument-parser's description of every command, the one `gpustyle help <command>`
/// prints, as Markdown. `DocsTests` compares it with the file; `tools/make_usage_reference`
/// writes it.
enum UsageReference {
    static let begin = "<!-- BEGIN OPTION REFERENCE -->"
    static let end = "<!-- END OPTION REFERENCE -->"

    struct ToolInfo: Decodable {
        let command: Command
    }

    struct Command: Decodable {
        let commandName: String
        let abstract: String?
        let discussion: String?
        let defaultSubcommand: String?
        let shouldDisplay: Bool?
        let arguments: [Argument]?
        let subcommands: [Command]?
    }

    struct Argument: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }

        let kind: String
        let names: [Name]?
        let valueName: String?
        let abstract: String?
        let discussion: String?
        let defaultValue: String?
        let allValues: [String]?
        let isRepeating: Bool?
        let shouldDisplay: Bool?
    }

    /// The subcommands a user sees (not `help`), in the order the tool lists them.
    static func commands(of tool: ToolInfo) -> [Command] {
        (tool.command.subcommands ?? []).filter { $0.commandName != "help" && $0.shouldDisplay != false }
    }

    /// Every option, flag and argument a command shows in its help, as the help spells it
    /// (`-o, --output <output>`, `<inputs> ...`); not `--help` and `--version`, which every command has.
    static func arguments(of command: Command) -> [(spelling: String, argument: Argument)] {
        (command.arguments ?? []).compactMap { argument in
            guard argument.shouldDisplay != false else { return nil }
            let names = (argument.names ?? []).sorted { ($0.kind == "short" ? 0 : 1) < ($1.kind == "short" ? 0 : 1) }
            if names.contains(where: { $0.kind == "long" && ($0.name == "help" || $0.name == "version") }) { return nil }
            let value = "<\(argument.valueName ?? "value")>"
            switch argument.kind {
            case "positional":
                return (value + (argument.isRepeating == true ? " ..." : ""), argument)
            case "flag":
                return (names.map(spell).joined(separator: ", "), argument)
            default:
                return (names.map(spell).joined(separator: ", ") + " " + value, argument)
            }
        }
    }

    static func spell(_ name: Argument.Name) -> String {
        name.kind == "long" ? "--\(name.name)" : "-\(name.name)"
    }

    /// The Markdown between the markers.
    static func markdown(_ tool: ToolInfo) -> String {
        var out: [String] = []
        out.append("Every command also takes `-h, --help` and `--version`. The commands:")
        out.append("")
        for command in commands(of: tool) {
            let isDefault = command.commandName == tool.command.defaultSubcommand
            out.append("- [`\(command.commandName)`](#gpustyle-\(command.commandName))\(isDefault ? " (the default)" : ""): "
                + oneLine(command.abstract ?? ""))
        }
        for command in commands(of: tool) {
            out.append("")
            out.append("### `gpustyle \(command.commandName)`")
            out.append("")
            out.append(oneLine(command.abstract ?? ""))
            if let discussion = command.discussion, !discussion.isEmpty {
                out.append("")
                out.append("```text")
                out.append(contentsOf: discussion.components(separatedBy: "\n").map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) })
                out.append("```")
            }
            out.append("")
            // As the help lists them: arguments, then options, each with its values and default
            // and then its discussion.
            let all = arguments(of: command)
            for (spelling, argument) in all.filter({ $0.argument.kind == "positional" }) + all.filter({ $0.argument.kind != "positional" }) {
                var text = oneLine(argument.abstract ?? "")
                var notes: [String] = []
                if let values = argument.allValues, !values.isEmpty { notes.append("values: " + values.joined(separator: ", ")) }
                if argument.kind != "flag", let value = argument.defaultValue, !value.isEmpty { notes.append("default: " + value) }
                if !notes.isEmpty { text += " (" + notes.joined(separator: "; ") + ")" }
                if let discussion = argument.discussion, !discussion.isEmpty { text += " " + oneLine(discussion) }
                out.append("- `\(spelling)`: \(text)")
            }
        }
        return out.joined(separator: "\n")
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The file with the part between the markers replaced.
    static func replacing(in file: String, with reference: String) throws -> String {
        guard let start = file.range(of: begin), let stop = file.range(of: end, range: start.upperBound..<file.endIndex) else {
            throw DocsError("docs/usage.md has no \(begin) ... \(end)")
        }
        return String(file[..<start.upperBound]) + "\n" + reference + "\n" + String(file[stop.lowerBound...])
    }
}
