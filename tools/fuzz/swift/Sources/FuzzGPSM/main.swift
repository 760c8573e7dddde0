// libFuzzer target: a gpustyle model file (.gpsm) as ModelLibrary.load reads one, then the
// graph's shape check for the input size the file declares (what a request runs first).
import CFuzzDriver
import Foundation
import GPUStyle

func readGPSM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Data(bytes: $0, count: size) } ?? Data()
    // Any thrown error is a clean rejection; only a trap or a sanitizer report is a finding.
    guard let model = try? ModelFile(data: bytes) else { return 0 }
    if let input = model.metadata.input { _ = try? model.graph.shapes(input: input) }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { readGPSM($0, $1) })
