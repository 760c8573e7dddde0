/// Why a recogniser's dictionary cannot be used.
public struct TextAlphabetError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The characters a CTC text recogniser's output classes stand for.
///
/// PaddleOCR's layout, which PP-OCRv6's recognisers use: class 0 is the CTC blank (no
/// character), classes 1...n are the dictionary's n lines in order, and class n + 1 is a space
/// (PaddleOCR's `use_space_char`, on for every PP-OCR recogniser). PP-OCRv6 tiny's dictionary has
/// 6904 lines (ASCII letters, digits and punctuation, Latin-1 symbols, CJK), so 6906 classes.
public struct TextAlphabet: Sendable, Equatable {
    /// The class of the CTC blank.
    public static let blank = 0
    /// Dictionary lines of PP-OCRv6 tiny's recogniser (ppocrv6_tiny_dict.txt).
    public static let ppOCRv6TinyEntries = 6904

    /// The character of each class; the blank's entry is a placeholder that `character(of:)`
    /// never returns.
    public let characters: [Character]

    /// Number of output classes: the dictionary's entries + the blank + the space.
    public var classCount: Int { characters.count }
    /// The class of the space (the last one).
    public var space: Int { characters.count - 1 }

    /// Reads a PaddleOCR dictionary: one character a line (LF or CRLF, as the shipped file has),
    /// a last line break optional, a leading byte-order mark ignored. Each line must be exactly
    /// one character (U+3000, the ideographic space, is one); `entries`, when given, is the
    /// number of lines the recogniser was trained with: a different count would shift every
    /// class by the difference and misread every character, so it is refused.
    public init(dictionary: String, entries: Int? = TextAlphabet.ppOCRv6TinyEntries) throws {
        var text = Substring(dictionary)
        if text.first == "\u{FEFF}" { text = text.dropFirst() }
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        var lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        if lines.last?.isEmpty == true { lines.removeLast() }
        var characters: [Character] = ["\u{0}"]  // the blank's placeholder
        characters.reserveCapacity(lines.count + 2)
        for (index, line) in lines.enumerated() {
            guard line.count == 1, let character = line.first else {
                throw TextAlphabetError("dictionary line \(index + 1) holds \(line.count) characters, not one")
            }
            characters.append(character)
        }
        if let entries, lines.count != entries {
            throw TextAlphabetError("the dictionary has \(lines.count) entries; the recogniser was trained with \(entries)")
        }
        characters.append(" ")
        self.characters = characters
    }

    /// The character of class `index`; nil for the blank and for indices outside the alphabet.
    public func character(of index: Int) -> Character? {
        guard index != TextAlphabet.blank, characters.indices.contains(index) else { return nil }
        return characters[index]
    }
}

extension TextAlphabet {
    /// The class names a text model file carries (tools/make_text_models.py): "<blank>", the
    /// dictionary's entries in order, "<space>".
    public static let blankLabel = "<blank>"
    public static let spaceLabel = "<space>"

    /// From a model file's class names (`blankLabel`, the dictionary, `spaceLabel`), with any
    /// number of dictionary entries (the model's output decides how many there are).
    public init(labels: [String]) throws {
        guard labels.count >= 3, labels.first == Self.blankLabel, labels.last == Self.spaceLabel else {
            throw TextAlphabetError("the model's \(labels.count) class names do not start with \(Self.blankLabel) and end with "
                                    + "\(Self.spaceLabel): not a CTC text recogniser's alphabet")
        }
        try self.init(dictionary: labels.dropFirst().dropLast().joined(separator: "\n"), entries: labels.count - 2)
    }
}
