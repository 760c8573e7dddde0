/// What each class of a CTC text recogniser stands for: class 0 is CTC's blank (no character),
/// the last class a space, and those between one character each (PP-OCR's dictionary, in the
/// model file's labels as tools/make_text_models.py writes them: "<blank>", the dictionary's
/// entries, "<space>").
public struct TextAlphabet: Sendable {
    public static let blankLabel = "<blank>"
    public static let spaceLabel = "<space>"

    /// The character of each class; nil for the blank.
    public let characters: [Character?]

    public var classCount: Int { characters.count }
    public static let blank = 0

    public struct LabelError: Error, CustomStringConvertible {
        public let description: String
    }

    /// From the model's class names: `blankLabel` first, `spaceLabel` last, one character each
    /// between (a dictionary entry of several scalars that form one grapheme is one character).
    public init(labels: [String]) throws {
        guard labels.count >= 3, labels.first == Self.blankLabel, labels.last == Self.spaceLabel else {
            throw LabelError(description: "the model's \(labels.count) class names do not start with \(Self.blankLabel) and end with "
                                          + "\(Self.spaceLabel): not a CTC text recogniser's alphabet")
        }
        var characters: [Character?] = [nil]
        for (index, label) in labels.enumerated().dropFirst().dropLast() {
            guard label.count == 1, let character = label.first else {
                throw LabelError(description: "class \(index) is named '\(label)', not one character")
            }
            characters.append(character)
        }
        characters.append(" ")
        self.characters = characters
    }
}
