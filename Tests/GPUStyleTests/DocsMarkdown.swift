import Foundation

/// The repository's Markdown as the docs tests read it: links and images, headings and their
/// GitHub anchors, and the README's runnable command blocks.
struct MarkdownFile {
    let url: URL
    let lines: [String]

    init(_ url: URL) throws {
        self.url = url
        lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    }

    /// One link or image target, with the line it is on (1-based).
    struct Target: Equatable {
        let line: Int
        let target: String
    }

    /// Lines outside fenced code blocks, numbered from 1.
    var proseLines: [(number: Int, text: String)] {
        var result: [(Int, String)] = []
        var fence: String?
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let open = fence {
                if trimmed.hasPrefix(open) && trimmed.allSatisfy({ $0 == open.first }) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix { $0 == trimmed.first })
                continue
            }
            result.append((index + 1, line))
        }
        return result
    }

    /// `[text](target)`, `![alt](target)` and `<img src="target">` outside code.
    var targets: [Target] {
        var result: [Target] = []
        for (number, line) in proseLines {
            let text = Self.removingCodeSpans(line)
            for match in text.matches(of: /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/) {
                result.append(Target(line: number, target: String(match.output.1)))
            }
            for match in text.matches(of: /<img\s[^>]*src\s*=\s*"([^"]+)"/) {
                result.append(Target(line: number, target: String(match.output.1)))
            }
        }
        return result
    }

    /// The anchors GitHub gives this file's headings (`## Memory (--max-memory)` →
    /// `memory---max-memory`; a repeated heading gets `-1`, `-2`, ...).
    var anchors: Set<String> {
        var seen: [String: Int] = [:]
        var result = Set<String>()
        for (_, line) in proseLines {
            guard let match = line.wholeMatch(of: /[#]{1,6}\s+(.*?)\s*[#]*\s*/) else { continue }
            let slug = Self.slug(String(match.output.1))
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }

    /// GitHub's heading anchor: the text (links reduced to their words), lower-cased, every
    /// character but letters, digits, spaces, hyphens and underscores removed, spaces as hyphens.
    static func slug(_ heading: String) -> String {
        let text = heading.replacing(/!?\[([^\]]*)\]\([^)]*\)/) { String($0.output.1) }
        var slug = ""
        for character in text.lowercased() {
            if character == " " {
                slug.append("-")
            } else if character == "-" || character == "_" || character.isLetter || character.isNumber {
                slug.append(character)
            }
        }
        return slug
    }

    /// The line without its code spans (a run of backticks up to the next run of the same length).
    static func removingCodeSpans(_ line: String) -> String {
        let characters = Array(line)
        var result = ""
        var index = 0
        func run(at start: Int) -> Int {
            var end = start
            while end < characters.count, characters[end] == "`" { end += 1 }
            return end - start
        }
        outer: while index < characters.count {
            guard characters[index] == "`" else {
                result.append(characters[index])
                index += 1
                continue
            }
            let length = run(at: index)
            var search = index + length
            while search < characters.count {
                if characters[search] == "`" {
                    let closing = run(at: search)
                    if closing == length {
                        index = search + closing
                        continue outer
                    }
                    search += closing
                } else {
                    search += 1
                }
            }
            // No closing run: the backticks are literal.
            result.append(contentsOf: characters[index..<(index + length)])
            index += length
        }
        return result
    }

    /// The fenced blocks that come right after a `<!-- runnable -->` line: each command line,
    /// with backslash continuations joined, comments and blank lines left out.
    func runnableBlocks() throws -> [(line: Int, commands: [String])] {
        var blocks: [(Int, [String])] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index].trimmingCharacters(in: .whitespaces) == "<!-- runnable -->" else { continue }
            guard index + 1 < lines.count, lines[index + 1].hasPrefix("```") else {
                throw DocsError("\(url.lastPathComponent):\(index + 1): <!-- runnable --> must come right before a fenced block")
            }
            var body: [String] = []
            var end = index + 2
            while end < lines.count, !lines[end].hasPrefix("```") {
                body.append(lines[end])
                end += 1
            }
            let joined = body.joined(separator: "\n").replacingOccurrences(of: "\\\n", with: " ")
            let commands = joined.components(separatedBy: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            blocks.append((index + 2, commands))
            index = end
        }
        return blocks
    }
}

struct DocsError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Splits a command line into words as a POSIX shell would for the simple commands the README
/// runs: single and double quotes, backslash escapes, `#` comments. Pipes, redirections, `;`,
/// `&` and substitutions are refused: a runnable line is commands joined by `&&`, nothing else.
enum ShellWords {
    static func split(_ line: String) throws -> [[String]] {
        var commands: [[String]] = [[]]
        var word = ""
        var inWord = false
        var quote: Character?
        var characters = Array(line)[...]
        func endWord() {
            if inWord { commands[commands.count - 1].append(word) }
            word = ""
            inWord = false
        }
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"" && character == "\\", let next = characters.first, "\"\\$`".contains(next) {
                    word.append(characters.removeFirst())
                } else if open == "\"" && (character == "$" || character == "`") {
                    throw DocsError("runnable line uses a substitution: \(line)")
                } else {
                    word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                endWord()
            case "'", "\"":
                quote = character
                inWord = true
            case "\\":
                if let next = characters.popFirst() { word.append(next) }
                inWord = true
            case "#" where !inWord:
                characters.removeAll()
            case "&":
                guard characters.first == "&" else { throw DocsError("runnable line runs in the background: \(line)") }
                characters.removeFirst()
                endWord()
                commands.append([])
            case "|", ";", "<", ">", "$", "`", "(", ")":
                throw DocsError("runnable line uses '\(character)' (one command, or commands joined by &&): \(line)")
            default:
                word.append(character)
                inWord = true
            }
        }
        if quote != nil { throw DocsError("unclosed quote: \(line)") }
        endWord()
        if commands.contains(where: \.isEmpty) { throw DocsError("empty command: \(line)") }
        return commands
    }
}
