import Foundation
import XCTest

/// The README and the manual in docs/ (issue 34): the README stays short, every relative link
/// and image resolves, the option reference in docs/usage.md is what `gpustyle help` says, and
/// every command block marked `<!-- runnable -->` runs.
final class DocsTests: XCTestCase {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static var readme: URL { root.appendingPathComponent("README.md") }

    static func markdownFiles() throws -> [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        return [readme] + names.map { docs.appendingPathComponent($0) }
    }

    func testReadmeIsAtMost250Lines() throws {
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let lines = text.hasSuffix("\n") ? text.dropLast().components(separatedBy: "\n") : text.components(separatedBy: "\n")
        XCTAssertLessThanOrEqual(lines.count, 250, "README.md is the front door: the manual goes in docs/")
    }

    func testEveryRelativeLinkAndImageResolves() throws {
        var anchors: [String: Set<String>] = [:]
        func anchorsOf(_ url: URL) throws -> Set<String> {
            if let known = anchors[url.path] { return known }
            let found = try MarkdownFile(url).anchors
            anchors[url.path] = found
            return found
        }
        var checked = 0
        for url in try Self.markdownFiles() {
            let file = try MarkdownFile(url)
            for link in file.targets {
                let place = "\(url.lastPathComponent):\(link.line): \(link.target)"
                let lower = link.target.lowercased()
                if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0]).removingPercentEncoding ?? String(parts[0])
                let target = path.isEmpty ? url : URL(fileURLWithPath: path, relativeTo: url.deletingLastPathComponent()).standardizedFileURL
                XCTAssertTrue(FileManager.default.fileExists(atPath: target.path), "\(place): no such file")
                if parts.count == 2, target.pathExtension == "md", FileManager.default.fileExists(atPath: target.path) {
                    XCTAssertTrue(try anchorsOf(target).contains(String(parts[1])), "\(place): no heading with that anchor")
                }
            }
        }
        XCTAssertGreaterThan(checked, 50, "the README and docs/ link to each other")
    }

    func testSlugsAreGitHubs() {
        XCTAssertEqual(MarkdownFile.slug("Memory (`--max-memory`)"), "memory---max-memory")
        XCTAssertEqual(MarkdownFile.slug("Against the peers: `tools/bench-vs-peers`, `gpustyle bench`, ncnn"),
                       "against-the-peers-toolsbench-vs-peers-gpustyle-bench-ncnn")
        XCTAssertEqual(MarkdownFile.slug("See [the index](README.md) 2×2 ²"), "see-the-index-22-²")
        XCTAssertEqual(MarkdownFile.removingCodeSpans("a `[x](y)` b ``c ` d`` e"), "a  b  e")
    }

    // MARK: - gpustyle help and docs/usage.md

    func dumpHelp() throws -> UsageReference.ToolInfo {
        let result = try TestProcess.gpustyle(["--experimental-dump-help"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(UsageReference.ToolInfo.self, from: result.stdout)
    }

    /// docs/usage.md's option reference is generated from the binary's own help; run
    /// `tools/make_usage_reference` after changing an option.
    func testOptionReferenceIsWhatTheHelpSays() throws {
        let tool = try dumpHelp()
        let usage = Self.root.appendingPathComponent("docs/usage.md")
        let file = try String(contentsOf: usage, encoding: .utf8)
        let expected = try UsageReference.replacing(in: file, with: UsageReference.markdown(tool))
        if ProcessInfo.processInfo.environment["GPUSTYLE_WRITE_USAGE_REFERENCE"] == "1" {
            try expected.write(to: usage, atomically: true, encoding: .utf8)
            return
        }
        if file != expected {
            let have = file.components(separatedBy: "\n"), want = expected.components(separatedBy: "\n")
            let line = (0..<min(have.count, want.count)).first { have[$0] != want[$0] } ?? min(have.count, want.count)
            XCTFail("docs/usage.md's option reference differs from gpustyle's help at line \(line + 1): "
                + "'\(line < have.count ? have[line] : "(end)")', the help makes '\(line < want.count ? want[line] : "(end)")'; "
                + "run tools/make_usage_reference")
        }
        XCTAssertFalse(UsageReference.commands(of: tool).isEmpty)
    }

    /// The reference and `gpustyle help <command>` name the same options, read from the help text
    /// itself (a second way than the dump the reference is made from).
    func testEveryOptionInTheHelpIsInTheReference() throws {
        let tool = try dumpHelp()
        let usage = try String(contentsOf: Self.root.appendingPathComponent("docs/usage.md"), encoding: .utf8)
        for command in UsageReference.commands(of: tool) {
            let help = try TestProcess.gpustyle(["help", command.commandName])
            XCTAssertEqual(help.status, 0, help.stderr)
            let helpText = String(decoding: help.stdout, as: UTF8.self)
            let helpOptions = Set(helpText.matches(of: /(?m)^  ((?:-{1,2}[A-Za-z0-9][A-Za-z0-9-]*)(?:, -{1,2}[A-Za-z0-9][A-Za-z0-9-]*)*)/)
                .flatMap { $0.output.1.components(separatedBy: ", ") })
                .subtracting(["-h", "--help", "--version"])
            let section = try XCTUnwrap(usage.components(separatedBy: "### `gpustyle \(command.commandName)`").dropFirst().first)
                .components(separatedBy: "\n### ").first ?? ""
            let documented = Set(section.matches(of: /(?m)^- `((?:-{1,2}[A-Za-z0-9-]+(?:, )?)+)/)
                .flatMap { $0.output.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
            XCTAssertFalse(helpOptions.isEmpty && command.commandName != "devices", "help for \(command.commandName) lists options")
            XCTAssertTrue(helpOptions.isSubset(of: documented),
                          "gpustyle help \(command.commandName): not in docs/usage.md: \(helpOptions.subtracting(documented).sorted())")
        }
    }

    // MARK: - Runnable blocks

    /// Every `<!-- runnable -->` block of the README: its gpustyle commands run from a fresh folder
    /// that sees the repository's examples/ and Tests/ at the same relative paths (the debug
    /// binary stands in for `gpustyle` and `swift run -c release gpustyle`), each exits 0 and
    /// writes every file it names; the test command is the one CI runs; every command has one.
    func testRunnableReadmeBlocksRun() throws {
        let blocks = try MarkdownFile(Self.readme).runnableBlocks()
        XCTAssertFalse(blocks.isEmpty, "README.md marks its command blocks <!-- runnable -->")
        // docs/video.md's block covers `join` (the README is at its 250 lines); its line numbers
        // are reported as README.md's.
        let videoBlocks = try MarkdownFile(Self.root.appendingPathComponent("docs/video.md")).runnableBlocks()
        XCTAssertFalse(videoBlocks.isEmpty, "docs/video.md marks its command block <!-- runnable -->")
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
            .components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("set ") && !$0.hasPrefix("cd ") }
        XCTAssertEqual(ci.count, 1, ".ci/run runs one command line: \(ci)")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["examples", "Tests"] {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name),
                                                       withDestinationURL: Self.root.appendingPathComponent(name))
        }

        let tool = try dumpHelp()
        let subcommands = Set(UsageReference.commands(of: tool).map(\.commandName))
        let defaultCommand = tool.command.defaultSubcommand ?? "stylize"
        var covered = Set<String>()
        var sawTestCommand = false
        for (line, commands) in blocks + videoBlocks {
            for command in commands {
                if command == ci.first {
                    sawTestCommand = true  // run by CI itself (.ci/run)
                    continue
                }
                for words in try ShellWords.split(command) {
                    var arguments = words
                    if arguments.starts(with: ["swift", "run", "-c", "release", "gpustyle"]) { arguments.removeFirst(4) }
                    if arguments == ["tools/install-deps"] { continue }  // the machine running the tests has them
                    guard arguments.first == "gpustyle" else {
                        XCTFail("README.md:\(line): only gpustyle commands (and CI's test command) can be runnable: \(command)")
                        continue
                    }
                    arguments.removeFirst()
                    let name = arguments.first.flatMap { subcommands.contains($0) ? $0 : nil } ?? defaultCommand
                    covered.insert(name)
                    let outputs = arguments.dropFirst().filter { word in
                        !word.hasPrefix("-") && !word.contains("=")
                            && ["png", "jpg", "json", "jsonl", "mp4", "y4m", "gpsm"].contains((word as NSString).pathExtension)
                            && !FileManager.default.fileExists(atPath: folder.appendingPathComponent(word).path)
                    }
                    let start = Date()
                    let result = try TestProcess.gpustyle(arguments, in: folder)
                    XCTAssertEqual(result.status, 0, "README.md:\(line): \(command)\n\(result.stderr)")
                    for output in outputs {
                        let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(output).path)[.size] as? Int) ?? 0
                        XCTAssertGreaterThan(size, 0, "README.md:\(line): \(command) should write \(output)")
                    }
                    print("README.md:\(line): \(String(format: "%.1f", Date().timeIntervalSince(start))) s: gpustyle \(arguments.joined(separator: " "))")
                }
            }
        }
        XCTAssertTrue(sawTestCommand, "README.md's test command is runnable and is .ci/run's: \(ci)")
        XCTAssertEqual(covered, subcommands, "every command has a runnable example in README.md; missing: \(subcommands.subtracting(covered).sorted())")
    }
}
