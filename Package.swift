// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "gpustyle",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "GPUStyle", targets: ["GPUStyle"]),
        .executable(name: "gpustyle", targets: ["gpustyle"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // ONNX model files (Runtime/ONNX/onnx.pb.swift is generated once by
        // tools/generate_onnx_proto.sh and committed; the build plugin is not used).
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // Vulkan headers only: the loader is opened with dlopen at run time so the
        // binary starts on machines without libvulkan.so.1.
        .target(name: "CVulkan", path: "Sources/CVulkan"),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // Text on images (gpustyle live --classify): FreeType renders the glyphs of a real font.
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        // The image decoders behind one C reader: setjmp-protected libpng/libjpeg calls (Swift
        // cannot setjmp), libheif (HEIC, AVIF) and libwebp (+ its demuxer for ICCP/EXIF chunks);
        // LittleCMS converts embedded ICC profiles to sRGB.
        .target(name: "CImageShims", dependencies: ["CPNG", "CJPEG"], path: "Sources/CImageShims",
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("heif"),
                                 .linkedLibrary("webp"), .linkedLibrary("webpdemux"), .linkedLibrary("lcms2")]),
        // Hot CPU loops with run-time ISA dispatch (AVX2+FMA or portable). Multiply-adds fuse
        // into FMAs except where a file turns contraction off (edges.c matches GLSL bit for bit).
        .target(name: "CKernels", path: "Sources/CKernels",
                cSettings: [.unsafeFlags(["-O3", "-ffp-contract=fast-honor-pragmas"])]),
        .executableTarget(name: "ResourceEmbedder", path: "Sources/ResourceEmbedder"),
        .plugin(name: "EmbedResources", capability: .buildTool(),
                dependencies: ["ResourceEmbedder"], path: "Plugins/EmbedResources"),
        .target(
            name: "GPUStyle",
            dependencies: ["CVulkan", "CPNG", "CJPEG", "CFreeType", "CImageShims", "CKernels",
                           .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Sources/GPUStyle",
            exclude: ["Runtime/ONNX/onnx.proto"],
            swiftSettings: [.unsafeFlags(["-Ounchecked"])],
            linkerSettings: [.linkedLibrary("dl")],
            plugins: ["EmbedResources"]
        ),
        .executableTarget(
            name: "gpustyle",
            dependencies: ["GPUStyle", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/gpustyle"
        ),
        .testTarget(
            name: "GPUStyleTests",
            dependencies: ["GPUStyle", "gpustyle", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
            path: "Tests/GPUStyleTests",
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
