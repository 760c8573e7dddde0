import XCTest
@testable import GPUStyle

/// Working buffers: large ones are 2 MiB-aligned (so transparent huge pages can back them),
/// small ones plain, and a size the system cannot give is an error, not a trap.
final class CheckedAllocationTests: XCTestCase {
    func testLargeBuffersAreHugePageAligned() throws {
        let large = try CheckedAllocation.largeFloats(3 << 20, for: "a test buffer")  // 12 MiB
        defer { large.deallocate() }
        XCTAssertEqual(Int(bitPattern: large.baseAddress!) % (2 << 20), 0)
        large.initialize(repeating: 1)
        XCTAssertEqual(large.reduce(0, +), Float(3 << 20))

        let small = try CheckedAllocation.largeFloats(1000, for: "a small buffer")
        defer { small.deallocate() }
        small.initialize(repeating: 2)
        XCTAssertEqual(small[999], 2)
    }

    func testImpossibleSizeIsAnError() {
        XCTAssertThrowsError(try CheckedAllocation.largeFloats(Int.max / 2, for: "an impossible buffer")) { error in
            XCTAssertTrue("\(error)".contains("an impossible buffer"), "\(error)")
        }
    }
}
