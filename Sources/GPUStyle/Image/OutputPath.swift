#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// An output path as a user gives it, and how it is written without losing data:
///
/// - `-` is standard output, written directly (`/dev/stdout`, `/dev/fd/N` likewise are the
///   descriptor itself).
/// - A regular file, or a path that does not exist yet, is written to a hidden temporary file in
///   the same folder, flushed to disk, given the old file's permission bits (and owner, when
///   running as root), then renamed over it: readers see the old file or the whole new one, and
///   on any failure the temporary file is removed and the old file stays.
/// - A symbolic link is followed (each link in the chain); the rules apply to its final target,
///   so the target is updated and the link itself is kept.
/// - A FIFO, a device (`/dev/null`, `/dev/full`), a socket: opened for writing and written in
///   place, never replaced or removed.
/// - A folder is an error.
public struct OutputPath: Sendable, CustomStringConvertible {
    public let path: String

    public init(_ path: String) { self.path = path }

    /// How the path will be written, after following symbolic links.
    public enum Destination: Equatable, Sendable {
        /// An open descriptor of ours (standard output), written directly and left open.
        case descriptor(Int32)
        /// A regular file or a new one (the resolved name): temporary file, then rename.
        case replace(String)
        /// Not a regular file: opened and written in place.
        case direct(String)
    }

    /// The name for messages: `stdout` for `-`, else the path as given (escaped).
    public var description: String { path == "-" ? "stdout" : PrintableText.escaping(path) }

    /// Most symbolic links followed before giving up, as the kernel's own limit (ELOOP).
    static let maximumLinks = 40

    public func resolve() throws -> Destination {
        guard path != "-" else { return .descriptor(STDOUT_FILENO) }
        guard !path.isEmpty else { throw OutputError(path, "empty output file name", isUserError: true) }
        var current = path
        for _ in 0...Self.maximumLinks {
            if let fd = Self.ownDescriptor(current) { return .descriptor(fd) }
            var status = stat()
            guard lstat(current, &status) == 0 else {
                let code = errno
                if code == ENOENT { return .replace(current) }
                throw OutputError(path, "cannot use as output", errno: code)
            }
            switch status.st_mode & S_IFMT {
            case S_IFLNK:
                current = try Self.linkTarget(current, name: path)
            case S_IFREG:
                return .replace(current)
            case S_IFDIR:
                throw OutputError(path, "is a folder, not a file name", isUserError: true)
            default:
                return .direct(current)
            }
        }
        throw OutputError(path, "cannot use as output", errno: ELOOP)
    }

    /// Fails early, before any work, when the output cannot be written: a folder, a missing or
    /// read-only folder, a device we may not write. Opens nothing (opening a FIFO would wait
    /// for its reader).
    public func check() throws {
        switch try resolve() {
        case .descriptor:
            return
        case .direct(let target):
            guard access(target, W_OK) == 0 else { throw OutputError(path, "cannot open for writing", errno: errno) }
        case .replace(let target):
            let folder = Self.folder(of: target)
            var status = stat()
            guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw OutputError(path, "output folder \(PrintableText.escaping(folder)) does not exist", isUserError: true)
            }
            guard access(folder, W_OK) == 0 else {
                throw OutputError(path, "output folder \(PrintableText.escaping(folder)) is not writable", isUserError: true)
            }
        }
    }

    /// Opens the output for writing (see the type's rules). `keepingExtension` ends a temporary
    /// name with the path's extension, for writers that choose a format by it (ffmpeg).
    public func open(keepingExtension: Bool = false) throws -> OutputFile {
        switch try resolve() {
        case .descriptor(let fd):
            return OutputFile(name: description, descriptor: fd, mode: .borrowed)
        case .direct(let target):
            // No O_CREAT, no O_TRUNC: a device or FIFO is written as it is.
            let fd = Glibc.open(target, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputError(path, "cannot open for writing", errno: errno) }
            return OutputFile(name: description, descriptor: fd, mode: .direct)
        case .replace(let target):
            try check()
            return try openTemporary(replacing: target, keepingExtension: keepingExtension)
        }
    }

    /// Writes all of `data` (see `open` for how).
    public func write(_ data: Data) throws {
        let file = try open()
        try file.write(data)
        try file.commit()
    }

    private func openTemporary(replacing target: String, keepingExtension: Bool) throws -> OutputFile {
        let folder = Self.folder(of: target)
        let name = (target as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let temporary = (folder as NSString).appendingPathComponent(
            ".\(name)\(Self.partialMarker)\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
                + (keepingExtension && !ext.isEmpty ? ".\(ext)" : ""))
        // 0o666 lets the umask apply, as for a file made by `>`.
        let (fd, code) = TemporaryFiles.shared.create(temporary, mode: 0o666)
        guard fd >= 0 else {
            throw OutputError(path, "cannot create a file in \(PrintableText.escaping(folder))", errno: code)
        }
        let file = OutputFile(name: description, descriptor: fd, mode: .replace(temporary: temporary, target: target))
        var old = stat()
        if stat(target, &old) == 0 {
            // The owner first: chown clears set-user-ID bits, which chmod then restores.
            if geteuid() == 0 { _ = fchown(fd, old.st_uid, old.st_gid) }
            guard fchmod(fd, old.st_mode & 0o7777) == 0 else {
                throw OutputError(path, "cannot keep the file's permissions", errno: errno)
            }
        }
        return file
    }

    /// The temporary name's marker: `.NAME.partial-PID-RANDOM[.EXT]` (see `openTemporary`).
    static let partialMarker = ".partial-"

    /// Removes the temporary files a writer killed without a chance to clean up (SIGKILL, a lost
    /// node) left for these file names in `folder`. Only these names': another process may be
    /// writing others there (the tasks of a job array share an output folder, each with its own
    /// files). Lists the folder once.
    public static func removeLeftovers(of names: Set<String>, in folder: String) {
        guard !names.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries where entry.hasPrefix(".") {
            guard let range = entry.range(of: partialMarker, options: .backwards) else { continue }
            if names.contains(String(entry[entry.index(after: entry.startIndex)..<range.lowerBound])) {
                unlink((folder as NSString).appendingPathComponent(entry))
            }
        }
    }

    /// The descriptor a path names when it is one of ours: `/dev/fd/N`, `/proc/self/fd/N`,
    /// `/proc/<our pid>/fd/N` (`/dev/stdout` is a link to `/proc/self/fd/1`). Reopening such a
    /// path would start at offset 0 of a file that `>>` opened for appending, so it is written
    /// through the descriptor itself.
    static func ownDescriptor(_ path: String) -> Int32? {
        for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/\(getpid())/fd/"] where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    /// Where the symbolic link `link` points, relative targets taken from the link's folder.
    static func linkTarget(_ link: String, name: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(link, &buffer, buffer.count - 1)
        guard n >= 0 else { throw OutputError(name, "cannot follow the symbolic link", errno: errno) }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.hasPrefix("/") ? target : (folder(of: link) as NSString).appendingPathComponent(target)
    }

    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}
