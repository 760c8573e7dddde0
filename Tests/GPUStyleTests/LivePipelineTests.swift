import Foundation
import XCTest
@testable import GPUStyle

/// The live pipeline's pieces on their own: one job in flight per stage, the style cycle and
/// the crossfade between styles.
final class LivePipelineTests: XCTestCase {
    func testStageSkipsWorkWhileBusyAndKeepsOnlyTheNewestResult() throws {
        let gate = DispatchSemaphore(value: 0)
        let stage = AsyncStage<Int, Int>(name: "test") { job in
            gate.wait()
            return job * 10
        }
        XCTAssertTrue(stage.submit(1))
        XCTAssertFalse(stage.submit(2), "a second job while the first runs is skipped, not queued")
        XCTAssertFalse(stage.submit(3))
        XCTAssertNil(stage.take())
        gate.signal()
        stage.waitUntilIdle()
        XCTAssertEqual(stage.take(), 10)
        XCTAssertNil(stage.take(), "a result is handed over once")
        XCTAssertTrue(stage.submit(4))
        gate.signal()
        stage.waitUntilIdle()
        XCTAssertEqual(stage.take(), 40)
        let counts = stage.harvest()
        XCTAssertEqual(counts.skipped, 2)
        XCTAssertEqual(counts.completed, 2)
        XCTAssertEqual(counts.latencies.count, 2)
        stage.drain()
        XCTAssertFalse(stage.submit(5), "a drained stage takes no more work")
    }

    func testCycleStartsAtTheGivenStyleAndWraps() throws {
        var options = LiveOptions(mix: try StyleMix(style: 24))
        XCTAssertEqual(options.step(at: 100), 0, "no cycle: always the given style")
        options.cyclePeriod = 2
        XCTAssertEqual(options.step(at: 0), 0)
        XCTAssertEqual(options.step(at: 1.99), 0)
        XCTAssertEqual(options.step(at: 4.1), 2)
        XCTAssertEqual(options.mix(forStep: 0), try StyleMix(style: 24))
        XCTAssertEqual(options.mix(forStep: 1), try StyleMix(style: 25))
        XCTAssertEqual(options.mix(forStep: 2), try StyleMix(style: 0))
        // A blend steps on from its heaviest style.
        let blend = LiveOptions(mix: try StyleMix(parsing: "3:0.3,12:0.7"))
        XCTAssertEqual(blend.mix(forStep: 1), try StyleMix(style: 13))
    }

    static func flat(_ value: Float, width: Int = 4, height: Int = 2) -> Image {
        Image(width: width, height: height, rgb: [Float](repeating: value, count: 3 * width * height))
    }

    func testNewStyleFadesInOverThePreviousOne() throws {
        var fade = OverlayFade()
        XCTAssertNil(fade.image(at: 0, duration: 0.5))
        fade.receive(Self.flat(0.2), step: 0, at: 0)
        fade.receive(Self.flat(0.3), step: 0, at: 0.5)
        XCTAssertEqual(fade.image(at: 0.6, duration: 0.5)?.rgb.first, 0.3, "a refresh of the same style replaces it at once")
        fade.receive(Self.flat(0.8), step: 1, at: 1)
        XCTAssertEqual(fade.image(at: 1, duration: 0.5)!.rgb.first!, 0.3, accuracy: 1e-6)
        XCTAssertEqual(fade.image(at: 1.25, duration: 0.5)!.rgb.first!, 0.55, accuracy: 1e-6)
        XCTAssertEqual(fade.image(at: 1.5, duration: 0.5)!.rgb.first!, 0.8, accuracy: 1e-6)
        // The previous picture may have another size (the quad changed): it is resampled.
        fade.receive(Self.flat(0.4, width: 8, height: 6), step: 2, at: 2)
        let halfway = try XCTUnwrap(fade.image(at: 2.25, duration: 0.5))
        XCTAssertEqual(halfway.width, 8)
        XCTAssertEqual(halfway.rgb.max()!, 0.6, accuracy: 1e-6)
        XCTAssertEqual(halfway.rgb.min()!, 0.6, accuracy: 1e-6)
        fade.clear()
        XCTAssertNil(fade.image(at: 3, duration: 0.5))
    }
}

/// `FrameMailbox`: a camera's frames queue up to `realtimeDepth` deep and then push the oldest
/// out; a file's frames all get through.
final class FrameMailboxTests: XCTestCase {
    /// A Y4M stream of `count` 16x16 frames in a pipe whose writing end is closed.
    private func stream(frames count: Int) throws -> Y4MReader {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        var bytes = Data("YUV4MPEG2 W16 H16 F30:1 C420jpeg\n".utf8)
        for i in 0..<count {
            bytes += Data("FRAME\n".utf8)
            bytes += Data(repeating: UInt8(16 + i), count: 16 * 16 + 2 * 8 * 8)
        }
        bytes.withUnsafeBytes { _ = write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        return try Y4MReader(fileDescriptor: fds[0])
    }

    private func drain(_ mailbox: FrameMailbox) -> [Int] {
        var indices: [Int] = []
        loop: while true {
            switch mailbox.next(timeout: 1) {
            case .frame(_, let index): indices.append(index)
            case .end, .failed: break loop
            case .waiting: continue
            }
        }
        return indices
    }

    func testRealtimeKeepsTheNewestFramesAndCountsTheRest() throws {
        let mailbox = FrameMailbox(reader: try stream(frames: 10), pace: .realtime)
        mailbox.start()
        // Nobody takes frames while the reader reads all ten (a long stall of the frame loop).
        let deadline = Date(timeIntervalSinceNow: 10)
        while mailbox.counts.received < 10 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(drain(mailbox), Array((10 - FrameMailbox.realtimeDepth)..<10))
        XCTAssertEqual(mailbox.counts.dropped, 10 - FrameMailbox.realtimeDepth)
        mailbox.close()
    }

    func testAllPaceHandsOverEveryFrameInOrder() throws {
        let mailbox = FrameMailbox(reader: try stream(frames: 10), pace: .all)
        mailbox.start()
        usleep(20_000)
        XCTAssertEqual(drain(mailbox), Array(0..<10))
        XCTAssertEqual(mailbox.counts.dropped, 0)
        mailbox.close()
    }
}
