/// The system refused memory that a stage needed: reported in one line with exit status 1 (it
/// is not the user's fault), never a trap or a kill.
public struct OutOfMemoryError: Error, CustomStringConvertible {
    /// The file or stage that needed the memory.
    public let what: String
    public let bytes: Int

    public init(what: String, bytes: Int) {
        self.what = what
        self.bytes = bytes
    }

    public var description: String { "\(what): not enough memory (\(MemorySize.describe(bytes)) needed)" }
}
