import Foundation
import XCTest
@testable import GPUStyle

/// Decoding conformance against Pillow (issue 33): PngSuite, a libjpeg-turbo JPEG set, EXIF
/// orientations, CMYK, Display P3 / Adobe RGB profiles, HEIC and WebP. Fixtures and references
/// come from tools/make_conformance_fixtures.py: each `<dir>/<file>` has Pillow's decode as an
/// 8-bit RGBA PNG at `expected/<dir>/<file>.png` (and, for an RGB ICC profile, Pillow's decode
/// without the conversion at `expected/unconverted/<dir>/<file>.png`). Every file is decoded on
/// both paths: streamed from its file descriptor (`ImageIO.read(path:)`) and from bytes in memory
/// (`ImageIO.decode(_:name:)`, which stdin uses). Each test prints the largest difference per
/// file, in levels of 255.
final class ImageConformanceTests: XCTestCase {
    /// The issue's bound: within 3 levels (of 255) of Pillow.
    static let tolerance: Float = 3

    // MARK: PNG

    func testPngSuiteValidImagesMatchPillowOnBothPaths() throws {
        let names = try ConformanceFixtures.files("png").filter { !$0.hasPrefix("x") && !ConformanceFixtures.madeHere.contains($0) }
        XCTAssertGreaterThanOrEqual(names.count, 52)  // 28 from pypng, 24 more from Go's copy
        try assertMatchesPillow(names.map { "png/\($0)" })
    }

    func testPngSuiteCorruptImagesAreRefusedOnBothPaths() throws {
        let names = try ConformanceFixtures.files("png").filter { $0.hasPrefix("x") }
        XCTAssertEqual(names.count, 14)
        for name in names {
            let path = ConformanceFixtures.path("png/\(name)")
            for (label, decode) in ConformanceFixtures.paths {
                XCTAssertThrowsError(try decode(path), "\(name) (\(label)) decoded, but it is corrupt") { error in
                    XCTAssertTrue(error is ImageError, "\(name) (\(label)): \(error)")
                    print("conformance refused png/\(name) (\(label)): \(error)")
                }
            }
        }
    }

    func testCorruptPngSuiteImageThroughTheBinaryExitsTwoWithOneLineNamingItAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for name in try ConformanceFixtures.files("png").filter({ $0.hasPrefix("x") }) {
            let input = ConformanceFixtures.path("png/\(name)"), output = scratch.path("out.png")
            let result = try TestProcess.gpustyle(["--style", "2", "--device", "cpu", input, output])
            XCTAssertEqual(result.status, 2, "\(name): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(name), "\(name): \(result.stderr)")
            XCTAssertTrue(result.stdout.isEmpty, name)
            XCTAssertEqual(scratch.contents(), [], name)
        }
    }

    func testPNGExifOrientationsMatchPillowOnBothPaths() throws {
        try assertMatchesPillow(["png/exif3.png", "png/exif6.png"])
    }

    func testPNGWithDisplayP3ICCPMatchesPillowImageCmsAndUnconvertedWouldNot() throws {
        try assertConvertedMatchesAndUnconvertedWouldNot(["png/p3_iccp.png"])
    }

    // MARK: JPEG

    func testJPEGSubsamplingProgressiveRestartArithmeticAndGreyscaleMatchPillowOnBothPaths() throws {
        let names = ["sample_444", "sample_422", "sample_420", "sample_440", "progressive", "restart_rows",
                     "restart_blocks", "arithmetic", "arithmetic_progressive", "grayscale", "grayscale_progressive"]
        try assertMatchesPillow(names.map { "jpeg/\($0).jpg" })
    }

    func testJPEGAllEightExifOrientationsMatchPillowExifTransposeOnBothPaths() throws {
        try assertMatchesPillow((1...8).map { "jpeg/exif\($0).jpg" } + ["jpeg/exif6_mm.jpg"])
    }

    func testJPEGCMYKWithoutProfileMatchesPillowsConversionOnBothPaths() throws {
        // Black-free CMYK (Pillow's own RGB->CMYK), Adobe-inverted and plain.
        try assertMatchesPillow(["jpeg/cmyk_adobe.jpg", "jpeg/cmyk_plain.jpg"])
    }

    func testJPEGCMYKWithBlackAndNoProfileMatchesPillowsConversionOnBothPaths() throws {
        // With a K channel, so that an additive CMYK->RGB (255 - min(255, C + K)) could not pass:
        // Pillow's is multiplicative, (255 - C)(255 - K) / 255.
        try assertMatchesPillow(["jpeg/cmyk_black_adobe.jpg", "jpeg/cmyk_black_plain.jpg"])
    }

    func testJPEGCMYKWithICCProfileMatchesPillowImageCmsOnBothPaths() throws {
        try assertMatchesPillow(["jpeg/cmyk_profile.jpg"])
    }

    func testJPEGDisplayP3PhotoMatchesPillowImageCmsAndUnconvertedWouldNot() throws {
        try assertConvertedMatchesAndUnconvertedWouldNot(["jpeg/p3.jpg"])
    }

    func testJPEGAdobeRGBPhotosMatchPillowImageCmsAndUnconvertedWouldNot() throws {
        try assertConvertedMatchesAndUnconvertedWouldNot(["jpeg/adobergb_rocket.jpg", "jpeg/adobergb_icc_free.jpg"])
    }

    // MARK: HEIC and WebP

    func testHEICPlainAndIrotOrientationMatchPillowHeifOnBothPaths() throws {
        // orientation6.heic has irot (the rotation to apply) and an EXIF block that still says
        // orientation 6, as phones write them: applying both would turn it twice (wrong size).
        try assertMatchesPillow(["heic/plain.heic", "heic/orientation6.heic"])
    }

    func testHEICDisplayP3MatchesPillowHeifImageCmsAndUnconvertedWouldNot() throws {
        try assertConvertedMatchesAndUnconvertedWouldNot(["heic/p3.heic"])
    }

    /// Display P3 said with nclx code points (primaries 12, transfer 13) and no ICC profile:
    /// converted as the P3 profile would be. The plain file's nclx (1, 13) is sRGB: untouched.
    func testHEICNclxDisplayP3IsConvertedLikeItsICCProfile() throws {
        try assertConvertedMatchesAndUnconvertedWouldNot(["heic/nclx_p3.heic"])
        let report = try XCTUnwrap(ImageIO.read(path: ConformanceFixtures.path("heic/nclx_p3.heic")).decodeReport)
        XCTAssertEqual(report.colour, .converted(from: "nclx: Display P3 primaries, sRGB transfer"))
        let plain = try XCTUnwrap(ImageIO.read(path: ConformanceFixtures.path("heic/plain.heic")).decodeReport)
        XCTAssertEqual(plain.colour, .sRGB(profile: "nclx primaries 1, transfer 13"))
    }

    func testWebPLossyLosslessAndAlphaMatchPillowOnBothPaths() throws {
        try assertMatchesPillow(try ConformanceFixtures.files("webp").map { "webp/\($0)" })
    }

    // MARK: helpers

    /// Decodes each file on both paths and asserts it is within `tolerance` of Pillow's decode.
    private func assertMatchesPillow(_ files: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertFalse(files.isEmpty, file: file, line: line)
        let reference = try files.map { try ConformanceFixtures.reference($0) }
        for (index, name) in files.enumerated() {
            for (label, decode) in ConformanceFixtures.paths {
                let difference = measure(name, label, decode, reference[index], file: file, line: line)
                print("conformance \(name) (\(label)): max difference \(ConformanceFixtures.levels(difference)) levels")
                XCTAssertLessThanOrEqual(difference, Self.tolerance, "\(name) (\(label))", file: file, line: line)
            }
        }
    }

    /// For files with an RGB ICC profile: the decode is within `tolerance` of Pillow + ImageCms,
    /// while Pillow's unconverted decode is more than `tolerance` away from it (so the profile
    /// matters for this photo); prints both numbers, and how far the decode is from unconverted.
    private func assertConvertedMatchesAndUnconvertedWouldNot(_ files: [String], file: StaticString = #filePath,
                                                             line: UInt = #line) throws {
        for name in files {
            let converted = try ConformanceFixtures.reference(name)
            let unconverted = try ConformanceFixtures.reference(name, unconverted: true)
            let unconvertedGap = ConformanceFixtures.maxDifference(unconverted, converted)
            XCTAssertGreaterThan(unconvertedGap, Self.tolerance, "\(name): the profile changes nothing", file: file, line: line)
            for (label, decode) in ConformanceFixtures.paths {
                let difference = measure(name, label, decode, converted, file: file, line: line)
                let fromUnconverted = (try? ConformanceFixtures.maxDifference(decode(ConformanceFixtures.path(name)), unconverted))
                    .map(ConformanceFixtures.levels) ?? "-"
                print("conformance \(name) (\(label)): max difference \(ConformanceFixtures.levels(difference)) levels "
                      + "from Pillow + ImageCms; unconverted Pillow decode would be "
                      + "\(ConformanceFixtures.levels(unconvertedGap)); this decode is \(fromUnconverted) from the unconverted one")
                XCTAssertLessThanOrEqual(difference, Self.tolerance, "\(name) (\(label))", file: file, line: line)
            }
        }
    }

    /// Max difference in levels, or infinity (and a failure) when the file does not decode.
    private func measure(_ name: String, _ label: String, _ decode: (String) throws -> Image, _ reference: Image,
                         file: StaticString, line: UInt) -> Float {
        do {
            let image = try decode(ConformanceFixtures.path(name))
            XCTAssertEqual(image.width, reference.width, "\(name) (\(label)) width", file: file, line: line)
            XCTAssertEqual(image.height, reference.height, "\(name) (\(label)) height", file: file, line: line)
            return ConformanceFixtures.maxDifference(image, reference)
        } catch {
            XCTFail("\(name) (\(label)): \(error)", file: file, line: line)
            print("conformance \(name) (\(label)): not decoded: \(error)")
            return .infinity
        }
    }
}

/// Fixture lookup for the conformance tests (Fixtures/conformance, see the script's docstring).
enum ConformanceFixtures {
    static let directory = Fixtures.root.appendingPathComponent("conformance")

    /// The PNGs the script made itself rather than taking from PngSuite.
    static let madeHere: Set<String> = ["exif3.png", "exif6.png", "p3_iccp.png"]

    /// The two decoding paths: streamed from the file, and from bytes in memory.
    static let paths: [(String, @Sendable (String) throws -> Image)] = [
        ("file", { try ImageIO.read(path: $0) }),
        ("bytes", { try ImageIO.decode(Data(contentsOf: URL(fileURLWithPath: $0)), name: $0) }),
    ]

    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    static func files(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(folder)).sorted()
    }

    /// Pillow's decode of `relative` (8-bit RGBA PNG, read with the PNG decoder that
    /// ImagePNGDecodeTests checks against independently encoded pixels).
    static func reference(_ relative: String, unconverted: Bool = false) throws -> Image {
        try ImageIO.read(path: path("expected/\(unconverted ? "unconverted/" : "")\(relative).png"))
    }

    /// Largest difference in levels of 255: RGB where the reference's alpha > 0, and alpha
    /// (a missing alpha plane is opaque). Infinity when the sizes differ.
    static func maxDifference(_ image: Image, _ reference: Image) -> Float {
        guard image.width == reference.width, image.height == reference.height else { return .infinity }
        let plane = image.pixelCount
        var worst: Float = 0
        for i in 0..<plane {
            let alpha = image.alpha?[i] ?? 1, expectedAlpha = reference.alpha?[i] ?? 1
            worst = max(worst, abs(alpha - expectedAlpha))
            guard expectedAlpha > 0 else { continue }
            for c in 0..<3 { worst = max(worst, abs(image.rgb[c * plane + i] - reference.rgb[c * plane + i])) }
        }
        return worst * 255
    }

    static func levels(_ value: Float) -> String { value.isFinite ? String(format: "%.2f", value) : "inf" }
}
