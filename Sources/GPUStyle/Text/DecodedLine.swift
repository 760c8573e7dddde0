/// One character a CTC recogniser read, with the output steps it came from.
public struct DecodedCharacter: Sendable, Equatable {
    public var character: Character
    /// Its output class (1...classes - 2 for dictionary characters).
    public var classIndex: Int
    /// The first and last step of its run: the consecutive steps whose most probable class it
    /// was. Step t looks at about crop columns 8t - 3 ... 8t + 4 (`CharacterBoxes.Options`).
    public var firstStep: Int
    public var lastStep: Int
    /// The probability of its class at `firstStep`, the step PaddleOCR keeps for it.
    public var probability: Float
    /// Whether it begins a word: the line's first character, or one read right after a space.
    public var startsWord: Bool

    public init(character: Character, classIndex: Int, firstStep: Int, lastStep: Int, probability: Float, startsWord: Bool) {
        self.character = character
        self.classIndex = classIndex
        self.firstStep = firstStep
        self.lastStep = lastStep
        self.probability = probability
        self.startsWord = startsWord
    }

    public var steps: ClosedRange<Int> { firstStep...lastStep }
}

/// A text line as a CTC recogniser read it.
public struct DecodedLine: Sendable, Equatable {
    /// The text, spaces included.
    public var string: String
    /// The mean of the kept steps' probabilities, spaces included (PaddleOCR's score for a
    /// line); 0 when nothing was read.
    public var confidence: Float
    /// The characters other than spaces, in reading order.
    public var characters: [DecodedCharacter]

    public init(string: String, confidence: Float, characters: [DecodedCharacter]) {
        self.string = string
        self.confidence = confidence
        self.characters = characters
    }

    public static let empty = DecodedLine(string: "", confidence: 0, characters: [])
}
