/// A failure to read or write an image. `description` is a single line that
/// starts with the file name, ready to print as-is.
public struct ImageError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }

    /// `name` with control characters escaped: a file name must not recolour the terminal
    /// or break the one line in two.
    init(_ name: String, _ reason: String) {
        description = "\(PrintableText.escaping(name)): \(reason)"
    }
}
