import Foundation

/// Where classifier models come from: the ones built into the binary (converted once by
/// `tools/make_classify_model.sh` and `tools/make_digits_model.sh` into `Weights/`, embedded at
/// build time) or a user's file.
public enum ModelLibrary {
    /// The built-in scene classifier: MobileNetV2, ImageNet-1k (torchvision's weights).
    public static let defaultClassifier = "mobilenet_v2"

    public struct LoadError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A model built into the binary, by name.
    public static func builtin(_ name: String) throws -> ModelFile {
        guard let encoded = EmbeddedWeights.base64[name], let data = Data(base64Encoded: encoded) else {
            throw LoadError(description: "no built-in model named \(name)")
        }
        return try ModelFile(data: data)
    }

    /// Model files larger than this are refused before they are read whole (a mistaken
    /// `--model /dev/zero` must not fill the memory); the built-in model is 11 MB.
    public static let maxModelBytes = 1 << 30

    /// A model file: gpustyle's `.gpsm`, or ONNX (recognised by content, not name). `labels`
    /// (one per line) name the classes of an ONNX model, which carries none.
    public static func load(path: String, labels labelsPath: String? = nil) throws -> ModelFile {
        let data = try read(path, limit: maxModelBytes)
        var model: ModelFile
        do {
            if data.starts(with: ModelFile.magic) {
                model = try ModelFile(data: data)
            } else {
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                model = try ModelConversion.fromONNX(data, source: path, metadata: .init(name: name))
            }
        } catch let error as ONNXImportError {
            throw LoadError(description: "\(error)")  // already names the file
        } catch {
            throw LoadError(description: "\(PrintableText.escaping(path)): \(error)")
        }
        if let labelsPath {
            guard let text = String(data: try read(labelsPath, limit: 16 << 20), encoding: .utf8) else {
                throw LoadError(description: "\(labelsPath): the labels are not UTF-8 text")
            }
            var labels = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            if labels.last == "" { labels.removeLast() }
            model.metadata.labels = labels
        }
        return model
    }

    private static func read(_ path: String, limit: Int) throws -> Data {
        do {
            let fd = try FileAccess.openForReading(path: path, name: path)
            defer { close(fd) }
            return try FileAccess.readAll(fd, name: path, limit: limit, firstBytes: 0) { _ in }
        } catch let error as ImageError {
            throw LoadError(description: "\(error)")
        }
    }
}
