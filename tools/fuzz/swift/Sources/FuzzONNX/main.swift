// libFuzzer target: an ONNX model as `--model file.onnx` loads it: protobuf decoding
// (SwiftProtobuf), the import into a NetworkGraph and the shape check (ModelConversion.fromONNX).
import CFuzzDriver
import Foundation
import GPUStyle

func importONNX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    // Any thrown error is a clean rejection; only a trap or a sanitizer report is a finding.
    _ = try? ModelConversion.fromONNX(bytes, source: "fuzz.onnx", metadata: .init(name: "fuzz"))
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { importONNX($0, $1) })
