// swift-tools-version: 6.0
// The Swift fuzz targets (libFuzzer): one executable per reader of untrusted bytes in GPUStyle.
// Built by tools/fuzz/run.sh, which passes -sanitize=fuzzer,address for every module, so the
// library itself is instrumented (coverage and ASan), not just the harnesses.
import Foundation
import PackageDescription

// The root package, by path. SwiftPM names a path dependency after its directory, which is the
// checkout's (or worktree's) name, so it is computed here rather than written down.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()

// Each target's main.swift hands its test function to libFuzzer (LLVMFuzzerRunDriver): SwiftPM
// renames every executable's main, so libFuzzer's own main() cannot be the entry point.
func target(_ name: String) -> Target {
    .executableTarget(name: name, dependencies: ["CFuzzDriver", .product(name: "GPUStyle", package: rootIdentity)])
}

let package = Package(
    name: "gpustyle-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: root.path)],
    targets: [
        .target(name: "CFuzzDriver"),
        target("FuzzY4M"),
        target("FuzzONNX"),
        target("FuzzGPSM"),
        // Not a fuzz target: writes the .gpsm seeds (the ONNX fixtures converted).
        .executableTarget(name: "FuzzSeeds", dependencies: [.product(name: "GPUStyle", package: rootIdentity)]),
    ],
    swiftLanguageModes: [.v6]
)
