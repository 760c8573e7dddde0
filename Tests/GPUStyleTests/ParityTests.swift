import XCTest
@testable import GPUStyle

/// The bench's agreement check between paths.
final class ParityTests: XCTestCase {
    func image(_ values: [Float]) -> Image {
        Image(width: values.count, height: 1, rgb: values + values + values, alpha: nil)
    }

    func testIdenticalAndNearOutputsAgree() {
        let a = image([0.1, 0.5, 0.9, 0.3])
        XCTAssertTrue(Parity(a, a).agrees)
        XCTAssertEqual(Parity(a, a).psnr, .infinity)
        let b = image([0.1, 0.5, 0.9 + 2.4e-3, 0.3])
        XCTAssertTrue(Parity(a, b).agrees)
        XCTAssertEqual(Parity(a, b).maxAbsDiff, 2.4e-3, accuracy: 1e-6)
    }

    func testDifferentOutputsDisagree() {
        let a = image([0.1, 0.5, 0.9, 0.3])
        XCTAssertFalse(Parity(a, image([0.1, 0.5, 0.8, 0.3])).agrees)
    }

    func testNaNIsDisagreementNotSkipped() {
        let a = image([0.1, 0.5, 0.9, 0.3])
        let broken = image([0.1, .nan, 0.9, 0.3])
        XCTAssertFalse(Parity(a, broken).agrees)
        XCTAssertFalse(Parity(broken, a).agrees)
    }
}
