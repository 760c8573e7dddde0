import XCTest
@testable import GPUStyle

/// `Selection.kthSmallest` (TextInk's quantiles) against sorting: every k of short arrays, and
/// the three quantiles TextInk takes of long ones, with many equal values (a line crop's
/// background) and without.
final class SelectionTests: XCTestCase {
    func testEveryKOfShortArraysAndQuantilesOfLongOnes() {
        var state: UInt64 = 99
        func next(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33) % n
        }
        for count in [1, 2, 3, 5, 8, 17, 64, 200] {
            for distinct in [1, 3, 1000] {
                let values = (0..<count).map { _ in Float(next(distinct)) / 7 }
                let sorted = values.sorted()
                for k in 0..<count {
                    var scratch = values
                    XCTAssertEqual(Selection.kthSmallest(&scratch, k, in: 0..<count), sorted[k], "\(count) values, k \(k)")
                    XCTAssertTrue(scratch[..<k].allSatisfy { $0 <= sorted[k] } && scratch[(k + 1)...].allSatisfy { $0 >= sorted[k] })
                }
            }
        }
        for distinct in [4, 256, 1 << 20] {
            let values = (0..<60_000).map { i in i % 3 == 0 ? 0.9 : Float(next(distinct)) / Float(distinct) }
            let sorted = values.sorted()
            var scratch = values
            let (low, middle, high) = (600, 30_000, 59_400)
            XCTAssertEqual(Selection.kthSmallest(&scratch, middle, in: 0..<scratch.count), sorted[middle])
            XCTAssertEqual(Selection.kthSmallest(&scratch, low, in: 0..<middle), sorted[low])
            XCTAssertEqual(Selection.kthSmallest(&scratch, high, in: (middle + 1)..<scratch.count), sorted[high])
        }
    }
}
