#if canImport(Glibc)
import Glibc
#endif

/// A failure to write an output: one line that starts with the path (control characters
/// escaped) and gives the reason.
///
/// `isUserError` tells the user's mistakes (a folder that does not exist, no permission, a
/// folder given as a file name: exit status 2) from failures while writing (a full disk, an
/// I/O error: exit status 1).
public struct OutputError: Error, CustomStringConvertible {
    public let description: String
    public let isUserError: Bool

    public init(_ name: String, _ reason: String, isUserError: Bool) {
        description = "\(PrintableText.escaping(name)): \(reason)"
        self.isUserError = isUserError
    }

    /// `action` ("cannot write") and the errno text; the errno also decides who is at fault.
    init(_ name: String, _ action: String, errno code: Int32) {
        self.init(name, "\(action): \(String(cString: strerror(code)))", isUserError: Self.userErrnos.contains(code))
    }

    /// Errors about the path itself, not about the disk or the device.
    static let userErrnos: Set<Int32> = [EACCES, EPERM, ENOENT, ENOTDIR, EISDIR, EROFS, ENAMETOOLONG, ELOOP, ETXTBSY, ENXIO]
}
