import XCTest
@testable import GPUStyle

/// Joining the text regions of overlapping tiles (`TextRegionMerging`, `TextReader`'s large
/// photos) and the tiles themselves.
final class TextRegionMergingTests: XCTestCase {
    /// A horizontal box from x0 to x1 around the line at y, `thickness` high.
    func box(_ x0: Double, _ x1: Double, y: Double, thickness: Double = 36, score: Float = 0.9) -> TextRegion {
        TextRegion(quad: Quad(topLeft: Point(x: x0, y: y - thickness / 2), topRight: Point(x: x1, y: y - thickness / 2),
                              bottomRight: Point(x: x1, y: y + thickness / 2), bottomLeft: Point(x: x0, y: y + thickness / 2)),
                   score: score)
    }

    /// Pieces of one row in three tiles become one box; the next row (its grown box overlapping
    /// this one's by 7 px, as a 12 MP page's 15-px rows do) stays apart.
    func testPiecesOfOneLineJoinButNeighbouringRowsDoNot() {
        let row = [[box(10, 960, y: 100), box(10, 950, y: 130)], [box(780, 1900, y: 101), box(790, 1910, y: 130)],
                   [box(1720, 2500, y: 102)]]
        let joined = TextRegionMerging.joinPieces(row).sorted { $0.quad.topLeft.y < $1.quad.topLeft.y }
        XCTAssertEqual(joined.count, 2, "\(joined)")
        XCTAssertEqual(joined[0].quad.topLeft.x, 10, accuracy: 1)
        XCTAssertEqual(joined[0].quad.topRight.x, 2500, accuracy: 1)
        XCTAssertEqual(joined[1].quad.topRight.x, 1910, accuracy: 1)
        // Same direction and place but far apart along the line: two words, not pieces.
        XCTAssertFalse(TextRegionMerging.sameLine(box(0, 100, y: 50).quad, box(200, 300, y: 50).quad))
        XCTAssertFalse(TextRegionMerging.sameLine(box(0, 100, y: 50).quad, box(50, 150, y: 50, thickness: 80).quad))
    }

    /// A whole-photo region wins over the tile's copy of the same line; a whole-photo region
    /// that ran several rows together (much thicker) gives way to the tiles' rows.
    func testWholePhotoPassAgainstTiles() {
        let merged = TextRegionMerging.merge(coarse: [box(0, 400, y: 50)], tiles: [[box(2, 398, y: 51)]])
        XCTAssertEqual(merged, [box(0, 400, y: 50)])
        let blob = box(0, 400, y: 100, thickness: 120)
        let rows = [box(0, 400, y: 70), box(0, 400, y: 130)]
        XCTAssertEqual(Set(TextRegionMerging.merge(coarse: [blob], tiles: [rows]).map { $0.quad.topLeft.y }), [52, 112])
    }

    func testTilesCoverTheImageWithTheirOverlap() {
        let tiles = TextReader.tiles(width: 2000, height: 900, side: 960, overlap: 192)
        XCTAssertEqual(tiles.map(\.x), [0, 768, 1040])
        XCTAssertTrue(tiles.allSatisfy { $0.y == 0 && $0.width == 960 && $0.height == 900 })
        XCTAssertEqual(TextReader.tiles(width: 500, height: 400, side: 960, overlap: 192).count, 1)
    }
}
