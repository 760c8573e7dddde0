import Foundation
import XCTest
@testable import GPUStyle

/// A real photo: `examples/sudoku.png` from Debian's opencv-doc (a newspaper sudoku, skewed and
/// curled). The grid's corners were measured by hand on a 2x zoom (±2 px). The page curls, so
/// its top border is not straight and no quad reaches all four corners exactly; 15 px still
/// separates "the whole grid" from any 3x3 block inside it (about 150 px off).
final class SudokuDetectionTests: XCTestCase {
    static let gridCorners = [Point(x: 72, y: 87), Point(x: 492, y: 71), Point(x: 520, y: 520), Point(x: 37, y: 513)]

    func testFindsTheWholeGrid() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../examples/sudoku.png").standardized.path
        let image = try ImageIO.read(path: path)
        let found = try XCTUnwrap(try RectangleDetector().detect(image).first, "no quad on sudoku.png")
        for (corner, truth) in zip(found.quad.corners, SudokuDetectionTests.gridCorners) {
            XCTAssertLessThan(corner.distance(to: truth), 15, "corner \(corner) vs hand-measured \(truth)")
        }
    }
}
