import Foundation
import XCTest
@testable import GPUStyle

/// Y4M streams and their colour conversion, against files ffmpeg made (tools/make_live_fixtures.sh).
final class Y4MTests: XCTestCase {
    static let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("live")

    static func read(_ name: String) throws -> (Y4MHeader, [YUVFrame]) {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try parse(data)
    }

    /// Parses a whole stream through a pipe, as the live command reads stdin.
    static func parse(_ data: Data) throws -> (Y4MHeader, [YUVFrame]) {
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        DispatchQueue.global().async { try? writer.write(contentsOf: data); try? writer.close() }
        let reader = try Y4MReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor)
        var frames: [YUVFrame] = []
        while let frame = try reader.next() { frames.append(frame) }
        return (reader.header, frames)
    }

    static func png(_ name: String) throws -> Image {
        try ImageIO.read(path: directory.appendingPathComponent(name).path)
    }

    func testReadsFfmpegStreamsInEachLayout() throws {
        for (name, layout, chromaBytes) in [("yuv420.y4m", ChromaLayout.yuv420(centred: true), 32 * 24),
                                            ("yuv422.y4m", .yuv422, 32 * 48), ("yuv444.y4m", .yuv444, 64 * 48)] {
            let (header, frames) = try Self.read(name)
            XCTAssertEqual(header.width, 64, name)
            XCTAssertEqual(header.height, 48, name)
            XCTAssertEqual(header.chroma, layout, name)
            XCTAssertEqual(header.framesPerSecond, 25, name)
            XCTAssertFalse(header.fullRange, name)
            XCTAssertEqual(frames.count, 2, name)
            XCTAssertEqual(frames[0].u.count, chromaBytes, name)
            // The second frame is the first one mirrored (the fixture script's hflip).
            let row = 10 * 64
            XCTAssertEqual(frames[1].y[row + 63], frames[0].y[row], name)
            XCTAssertEqual(frames[1].y[row], frames[0].y[row + 63], name)
        }
    }

    /// Ours against ffmpeg's (swscale) decoding of the same stream to RGB: the colour matrix and
    /// range in every layout, and the chroma siting of 4:2:2. swscale resamples 4:2:0 chroma
    /// with a filter of its own, so there only the average is compared; the resampling itself
    /// is checked against a numpy decoding of our definition (expected420.png).
    func testYUVToRGBMatchesFfmpeg() throws {
        for (layout, maxLevels, meanLevels) in [("444", 1.0, 0.5), ("422", 1.0, 0.5), ("420", 25.0, 2.0)] {
            let (header, frames) = try Self.read("yuv\(layout).y4m")
            let ours = YUVConversion.image(from: frames[0], fullRange: header.fullRange)
            let theirs = try Self.png("decoded\(layout).png")
            let diffs: [Double] = zip(ours.rgb, theirs.rgb).map { (a: Float, b: Float) -> Double in Double(abs(a - b)) * 255 }
            XCTAssertLessThanOrEqual(diffs.max()!, maxLevels, "4:\(layout) max difference in levels")
            XCTAssertLessThanOrEqual(diffs.reduce(0, +) / Double(diffs.count), meanLevels, "4:\(layout) mean difference")
        }
        let (_, frames) = try Self.read("yuv420.y4m")
        let ours = YUVConversion.image(from: frames[0])
        let expected = try Self.png("expected420.png")
        let diffs: [Double] = zip(ours.rgb, expected.rgb).map { (a: Float, b: Float) -> Double in Double(abs(a - b)) * 255 }
        XCTAssertLessThanOrEqual(diffs.max()!, 0.51, "4:2:0 against numpy (8-bit rounding only)")
    }

    /// Ours against ffmpeg's conversion of the same RGB picture to each layout.
    func testRGBToYUVMatchesFfmpeg() throws {
        let rgb = try Self.png("rgb.png")
        for (name, layout) in [("yuv444.y4m", ChromaLayout.yuv444), ("yuv422.y4m", .yuv422), ("yuv420.y4m", .yuv420(centred: true))] {
            let (_, frames) = try Self.read(name)
            let ours = YUVConversion.frame(from: rgb, chroma: layout)
            XCTAssertLessThanOrEqual(Self.largestDifference(ours.y, frames[0].y), 1, "\(name) luma")
            XCTAssertLessThanOrEqual(Self.largestDifference(ours.u, frames[0].u), 2, "\(name) U")
            XCTAssertLessThanOrEqual(Self.largestDifference(ours.v, frames[0].v), 2, "\(name) V")
        }
    }

    static func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var largest = 0
        for (x, y) in zip(a, b) { largest = max(largest, abs(Int(x) - Int(y))) }
        return largest
    }

    func testWriterRoundTrip() throws {
        let (header, frames) = try Self.read("yuv422.y4m")
        let pipe = Pipe()
        let writer = Y4MWriter(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, header: header)
        for frame in frames { try writer.write(frame) }
        try pipe.fileHandleForWriting.close()
        let written = pipe.fileHandleForReading.readDataToEndOfFile()
        let (again, back) = try Self.parse(written)
        XCTAssertEqual(again, header)
        XCTAssertEqual(back.map(\.y), frames.map(\.y))
        XCTAssertEqual(back.map(\.v), frames.map(\.v))
    }

    func testMalformedStreamsGiveOneLineErrors() throws {
        let frame = Data("FRAME\n".utf8) + Data(repeating: 128, count: 6)  // 2x2 4:2:0: 4 + 1 + 1 bytes
        let cases: [(String, Data, String)] = [
            ("empty", Data(), "empty input"),
            ("not y4m", Data("P6\n2 2\n255\n".utf8), "not a Y4M stream"),
            ("no width", Data("YUV4MPEG2 H2 C420jpeg\n".utf8), "no W"),
            ("absurd size", Data("YUV4MPEG2 W100000 H100000\n".utf8), "out of range"),
            ("zero size", Data("YUV4MPEG2 W0 H2\n".utf8), "out of range"),
            ("10-bit", Data("YUV4MPEG2 W2 H2 C420p10\n".utf8), "unsupported colour layout"),
            ("bad rate", Data("YUV4MPEG2 W2 H2 Fx\n".utf8), "bad frame rate"),
            ("bad marker", Data("YUV4MPEG2 W2 H2 C420jpeg\n".utf8) + frame + Data("FRAMX\n".utf8), "expected FRAME"),
            ("truncated", Data("YUV4MPEG2 W2 H2 C420jpeg\n".utf8) + frame + frame.prefix(9), "ends inside frame 1"),
            ("endless header", Data(repeating: 0x41, count: 10000), "longer than"),
        ]
        for (label, data, message) in cases {
            XCTAssertThrowsError(try Self.parse(data), label) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(message), "\(label): \(text)")
                XCTAssertFalse(text.contains("\n"), label)
            }
        }
        // A clean end after whole frames is not an error.
        let (_, frames) = try Self.parse(Data("YUV4MPEG2 W2 H2 C420jpeg\n".utf8) + frame + frame)
        XCTAssertEqual(frames.count, 2)
    }
}
