import Foundation

enum OutputPath {
    /// Fails early, before any work, when `path`'s folder is missing or not writable (the
    /// atomic write would catch it too, but only after the network had run).
    static func checkWritable(_ path: String) throws {
        guard path != "-" else { return }
        let folder = (path as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure(message: "\(path): output folder \(directory) does not exist")
        }
        guard access(directory, W_OK) == 0 else {
            throw CommandFailure(message: "\(path): output folder \(directory) is not writable")
        }
    }

    /// A hidden name beside `path` to write to before renaming it into place (rename is atomic
    /// only within one file system). `keepingExtension` for ffmpeg, which picks the container by
    /// the name's extension.
    static func temporary(for path: String, keepingExtension: Bool = false) -> String {
        let name = (path as NSString).lastPathComponent, folder = (path as NSString).deletingLastPathComponent
        let ext = (name as NSString).pathExtension
        return (folder.isEmpty ? "" : folder + "/") + ".\(name).partial-\(getpid())"
            + (keepingExtension && !ext.isEmpty ? ".\(ext)" : "")
    }
}
