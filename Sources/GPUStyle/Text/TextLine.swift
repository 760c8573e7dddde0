/// One character of a text line: its box in the photo and what it is.
public struct TextCharacter: Sendable, Equatable {
    /// Around the character's ink, corners TL, TR, BR, BL in the line's reading direction.
    public var quad: Quad
    public var character: Character

    public init(quad: Quad, character: Character) {
        self.quad = quad
        self.character = character
    }
}

/// A text line (or a word) found in a photo and, unless only detection was asked for, read.
public struct TextLine: Sendable, Equatable {
    /// In photo pixels, corners TL, TR, BR, BL in reading direction (TL -> TR along the text).
    public var quad: Quad
    /// The detector's mean text probability inside the line (0...1).
    public var detectionScore: Float
    /// The recogniser's confidence: the mean probability of the characters read (PaddleOCR's
    /// score); 0 when the line was not read.
    public var confidence: Float
    /// What was read ("" when not read), spaces included.
    public var string: String
    /// The non-space characters of `string`, in reading order, each with its box.
    public var characters: [TextCharacter]

    public init(quad: Quad, detectionScore: Float, confidence: Float = 0, string: String = "", characters: [TextCharacter] = []) {
        self.quad = quad
        self.detectionScore = detectionScore
        self.confidence = confidence
        self.string = string
        self.characters = characters
    }
}
