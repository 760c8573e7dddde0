import Foundation
import XCTest
@testable import GPUStyle

/// The keyframe split of `--shard`, the part names join reads, and the source hash.
final class VideoRangesTests: XCTestCase {
    func testBoundariesAreTheNearestKeyframes() {
        // 24 frames, a keyframe every 6: targets 8 and 16 → keyframes 6 and 18.
        XCTAssertEqual(VideoRanges.split(frameCount: 24, keyframes: [0, 6, 12, 18], parts: 3), [0..<6, 6..<18, 18..<24])
        XCTAssertEqual(VideoRanges.split(frameCount: 24, keyframes: [0, 6, 12, 18], parts: 2), [0..<12, 12..<24])
        XCTAssertEqual(VideoRanges.split(frameCount: 24, keyframes: [0, 6, 12, 18], parts: 1), [0..<24])
        // A tie goes to the earlier keyframe: target 10 between 8 and 12.
        XCTAssertEqual(VideoRanges.split(frameCount: 20, keyframes: [0, 8, 12], parts: 2), [0..<8, 8..<20])
    }

    func testFewerKeyframesThanPartsLeavesEmptyRanges() {
        let ranges = VideoRanges.split(frameCount: 24, keyframes: [0, 6, 12, 18], parts: 6)
        XCTAssertEqual(ranges, [0..<6, 6..<6, 6..<12, 12..<18, 18..<18, 18..<24])
        XCTAssertEqual(VideoRanges.split(frameCount: 24, keyframes: [0], parts: 3), [0..<0, 0..<0, 0..<24])
        // Every frame is in exactly one range, in order.
        for parts in 1...9 {
            let split = VideoRanges.split(frameCount: 100, keyframes: [0, 13, 40, 41, 77, 99], parts: parts)
            XCTAssertEqual(split.count, parts)
            XCTAssertEqual(split.first?.lowerBound, 0)
            XCTAssertEqual(split.last?.upperBound, 100)
            for (a, b) in zip(split, split.dropFirst()) { XCTAssertEqual(a.upperBound, b.lowerBound) }
        }
    }

    func testPartNames() {
        let paths = VideoPartRecord.paths(output: "dir/styled.mp4", shard: 1, shards: 3)
        XCTAssertEqual(paths.part, "dir/styled.part-1-of-3.nut")
        XCTAssertEqual(paths.record, "dir/styled.part-1-of-3.json")
        XCTAssertEqual(VideoJoin.parseName("dir/my.part-x.part-2-of-3.nut")?.stem, "dir/my.part-x")
        XCTAssertEqual(VideoJoin.parseName("dir/styled.part-2-of-3.json")?.index, 2)
        XCTAssertNil(VideoJoin.parseName("dir/styled.part-3-of-3.nut"))
        XCTAssertNil(VideoJoin.parseName("dir/styled.mp4"))
    }

    func testVideoInputsByExtension() {
        for name in ["a.mp4", "b.MOV", "c.mkv", "d.webm", "e.avi", "f.m4v"] { XCTAssertTrue(VideoInput.isVideo(name), name) }
        for name in ["a.png", "b.jpg", "folder", "-"] { XCTAssertFalse(VideoInput.isVideo(name), name) }
    }
}
