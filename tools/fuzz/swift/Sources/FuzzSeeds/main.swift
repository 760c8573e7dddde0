// Writes .gpsm seeds for the gpsm fuzz target: each ONNX model given is converted as
// `gpustyle convert-model` would, once with float32 and once with float16 constants.
// Usage: FuzzSeeds OUTPUT_DIR MODEL.onnx...
import Foundation
import GPUStyle

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: FuzzSeeds OUTPUT_DIR MODEL.onnx...\n".utf8))
    exit(2)
}
let output = URL(fileURLWithPath: arguments[1])
for path in arguments.dropFirst(2) {
    let url = URL(fileURLWithPath: path)
    let name = url.deletingPathExtension().lastPathComponent
    do {
        let model = try ModelConversion.fromONNX(try Data(contentsOf: url), source: path, metadata: .init(name: name))
        for half in [ModelConversion.HalfPrecision.none, .all] {
            var copy = model
            copy.halfConstants = ModelConversion.halfConstants(model.graph, half)
            try copy.serialized().write(to: output.appendingPathComponent("\(name)-\(half.rawValue).gpsm"))
        }
    } catch {
        // Fixtures that are meant to fail to convert (unsupported ops) make no seed.
        print("\(path): no seed (\(error))")
    }
}
