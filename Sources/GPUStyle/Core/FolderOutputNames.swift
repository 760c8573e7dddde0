#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Output names for a folder of photos stylized into another folder, decided before any work.
///
/// The rule: an input's extension is replaced by `.png` (`photo.jpg` → `photo.png`). When two
/// inputs would get the same name (`photo.jpg` and `photo.png`), those not already named
/// `.png` keep their extension as well (`photo.jpg` → `photo.jpg.png`, `photo.png` → `photo.png`).
public enum FolderOutputNames {
    public struct CollisionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The output name of each input name, in the inputs' order; an error naming the inputs
    /// when some outputs would still coincide (`a.jpg`, `a.png` and `a.jpg.png`).
    public static func plan(_ inputs: [String]) throws -> [String] {
        let stems = inputs.map { ($0 as NSString).deletingPathExtension }
        var stemCount: [String: Int] = [:]
        for stem in stems { stemCount[stem, default: 0] += 1 }
        let outputs = zip(inputs, stems).map { input, stem in
            stemCount[stem]! > 1 && (input as NSString).pathExtension != "png" ? input + ".png" : stem + ".png"
        }
        var owners: [String: [String]] = [:]
        for (input, output) in zip(inputs, outputs) { owners[output, default: []].append(input) }
        if let (output, sources) = owners.filter({ $0.value.count > 1 }).min(by: { $0.key < $1.key }) {
            let list = sources.map(PrintableText.escaping).joined(separator: ", ")
            throw CollisionError(description: "\(list) would be written to the same file \(PrintableText.escaping(output)); rename one of them")
        }
        return outputs
    }

    /// Whether two paths name the same folder (same device and inode: `photos`, `./photos/`, a
    /// link to it). False when either does not exist.
    public static func sameFolder(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }
}
