/// A failure to read or write an image. `description` is a single line that
/// starts with the file name, ready to print as-is.
public struct ImageError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }

    init(_ name: String, _ reason: String) {
        description = "\(name): \(reason)"
    }
}
