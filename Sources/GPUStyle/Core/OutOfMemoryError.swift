/// Memory ran out (or would run out) for `what`: a file being decoded or a processing stage.
/// Not the user's fault, so the command-line tool exits with status 1, with this one line.
public struct OutOfMemoryError: Error, CustomStringConvertible {
    /// The file or stage that needed the memory.
    public let what: String
    /// How many bytes were asked for (0 when unknown).
    public let bytes: Int
    /// What the memory was for, e.g. "to decode 24000x16000"; worded to follow "not enough memory".
    public let purpose: String?

    public init(what: String, bytes: Int, purpose: String? = nil) {
        self.what = what
        self.bytes = bytes
        self.purpose = purpose
    }

    public var description: String {
        var text = "\(what): not enough memory"
        if let purpose { text += " \(purpose)" }
        if bytes > 0 { text += " (\(ByteCount.decimal(bytes)))" }
        return text
    }
}
