// libFuzzer target: a Y4M stream read by Y4MReader, header and every frame, as `gpustyle live`
// reads ffmpeg's pipe. Y4MReader reads a file descriptor, so each input is written into one
// memory file (memfd) that is truncated and rewound per input: the real read(2) path, no disk.
import CFuzzDriver
import Foundation
import GPUStyle

/// The memory file, made once and rewritten for each input (libFuzzer runs one at a time).
let memoryFile = fuzz_memory_file("y4m-fuzz")
precondition(memoryFile >= 0, "memfd_create failed")

func readY4M(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    precondition(ftruncate(memoryFile, 0) == 0 && lseek(memoryFile, 0, SEEK_SET) == 0)
    var written = 0
    while written < size, let data {
        let n = write(memoryFile, data + written, size - written)
        precondition(n > 0, "cannot write the memory file")
        written += n
    }
    precondition(lseek(memoryFile, 0, SEEK_SET) == 0)
    do {
        let reader = try Y4MReader(fileDescriptor: memoryFile)
        while try reader.next() != nil {}
    } catch is Y4MError {
        // A clean rejection: what malformed input must produce.
    } catch {
        fatalError("Y4MReader threw something other than a Y4MError: \(error)")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { readY4M($0, $1) })
