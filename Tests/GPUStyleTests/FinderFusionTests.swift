import Foundation
import XCTest
@testable import GPUStyle

/// The detector's one candidate pool (issue 36, `FinderFusion`): the finder's proposals snapped
/// to the hand-built observations that agree with them, the rest behind, and through the whole
/// detector a sticky note scene that the hand-built stages alone miss.
final class FinderFusionTests: XCTestCase {
    func square(_ x: Double, _ y: Double, _ side: Double) -> Quad {
        Quad(corners: [Point(x: x, y: y), Point(x: x + side, y: y), Point(x: x + side, y: y + side), Point(x: x, y: y + side)])
    }

    func observation(_ quad: Quad, _ confidence: Float) -> RectangleObservation {
        RectangleObservation(quad: quad, confidence: confidence)
    }

    /// A proposal with a hand-built observation within 3 % of the shorter side takes that
    /// observation's corners; one without keeps its own if it is sure (0.7), else it is dropped;
    /// the hand-built one no proposal took comes last, no surer than the proposals.
    func testProposalsTakeTheHandBuiltCornersThatAgreeAndLeadTheList() {
        let near = square(100.5, 99.2, 200), far = square(600, 100, 150), other = square(400, 500, 100)
        let fused = FinderFusion.fuse(proposals: [observation(square(100, 100, 200), 0.9), observation(far, 0.8),
                                                  observation(square(50, 400, 100), 0.69)],
                                      handBuilt: [observation(other, 0.95), observation(near, 0.7)], width: 1280, height: 720)
        XCTAssertEqual(fused.map(\.quad.corners), [near.corners, far.corners, other.corners])
        XCTAssertEqual(fused.map(\.confidence), [0.9, 0.8, 0.8])
        XCTAssertEqual(fused.map(\.measured), [true, false, true], "only the proposal alone is unmeasured")
    }

    /// 0.03 x 720 = 21.6 px: a hand-built quad 25 px off is another quad.
    func testAHandBuiltQuadFartherThanTheAgreementIsKeptApart() {
        let proposal = square(100, 100, 200), off = square(125, 100, 200)
        XCTAssertEqual(FinderFusion.fuse(proposals: [observation(proposal, 0.6)], handBuilt: [observation(off, 0.9)], width: 1280, height: 720)
            .map(\.quad.corners), [off.corners], "a proposal alone below 0.7 is not taken")
        let fused = FinderFusion.fuse(proposals: [observation(proposal, 0.9)], handBuilt: [observation(off, 0.9)], width: 1280, height: 720)
        XCTAssertEqual(fused.map(\.quad.corners), [proposal.corners, off.corners])
    }

    /// A proposal with one corner snapped to the wrong peak (as on large pictures) and a hand-built
    /// quad that agrees with its other three: the hand-built quad is the picture.
    func testThreeAgreeingCornersAreEnough() {
        let handBuilt = square(100, 100, 400)
        var corners = handBuilt.corners
        corners[3] = Point(x: -100, y: 450)
        let fused = FinderFusion.fuse(proposals: [observation(Quad(corners: corners), 0.8)],
                                      handBuilt: [observation(handBuilt, 0.9)], width: 1280, height: 720)
        XCTAssertEqual(fused.map(\.quad.corners), [handBuilt.corners])
        XCTAssertEqual(fused.map(\.confidence), [0.9])
    }

    /// Nested quads in Vision's order: the hand-built first observation around the first proposal
    /// (Debian's scenetext01.jpg: the whole sign, the proposal its lower panel) leads.
    func testTheHandBuiltOutlineOfTheFirstProposalLeads() {
        let sign = Quad(corners: [Point(x: 264, y: 18.5), Point(x: 441.5, y: 26.4), Point(x: 435.9, y: 266.4), Point(x: 256.5, y: 266.7)])
        let panel = Quad(corners: [Point(x: 262.2, y: 77.3), Point(x: 435.5, y: 75.2), Point(x: 430.9, y: 262.5), Point(x: 256.7, y: 261.6)])
        let fused = FinderFusion.fuse(proposals: [observation(panel, 0.87)], handBuilt: [observation(sign, 0.73)], width: 800, height: 600)
        XCTAssertEqual(fused.map(\.quad.corners), [sign.corners, panel.corners])
        XCTAssertEqual(fused.map(\.confidence), [0.87, 0.87])
    }

    /// A sure proposal alone with a corner within 2 % of the shorter side of the border (a
    /// picture cut by it) is not taken: nothing measured its side there.
    func testAProposalAloneAtTheBorderIsNotTaken() {
        let cut = Quad(corners: [Point(x: 5, y: 100), Point(x: 300, y: 100), Point(x: 300, y: 400), Point(x: 5, y: 400)])
        XCTAssertTrue(FinderFusion.fuse(proposals: [observation(cut, 0.95)], handBuilt: [], width: 1280, height: 720).isEmpty)
        let inside = Quad(corners: [Point(x: 20, y: 100), Point(x: 300, y: 100), Point(x: 300, y: 400), Point(x: 20, y: 400)])
        XCTAssertEqual(FinderFusion.fuse(proposals: [observation(inside, 0.95)], handBuilt: [], width: 1280, height: 720).count, 1)
    }

    /// Proposals below the proposal confidence are not taken; without any the hand-built list is
    /// the answer as it was.
    func testWithoutASureProposalTheHandBuiltListStands() {
        let handBuilt = [observation(square(10, 10, 100), 0.6), observation(square(300, 10, 100), 0.4)]
        let fused = FinderFusion.fuse(proposals: [observation(square(500, 500, 100), FinderFusion.Parameters.proposalConfidence - 0.01)],
                                      handBuilt: handBuilt, width: 1280, height: 720)
        XCTAssertEqual(fused.map(\.quad.corners), handBuilt.map(\.quad.corners))
        XCTAssertEqual(fused.map(\.confidence), [0.6, 0.4])
    }

    /// Vision's `minimumConfidence` and `maximumObservations` apply to the fused list.
    func testMinimumConfidenceAndMaximumObservationsApplyToTheFusedList() {
        let proposals = [observation(square(30, 30, 100), 0.9), observation(square(300, 30, 100), 0.85)]
        let handBuilt = [observation(square(10, 300, 100), 0.95)]
        XCTAssertEqual(FinderFusion.fuse(proposals: proposals, handBuilt: handBuilt, width: 1280, height: 720, limit: 2).count, 2)
        let sure = FinderFusion.fuse(proposals: proposals, handBuilt: handBuilt, width: 1280, height: 720, minimumConfidence: 0.87)
        XCTAssertEqual(sure.map(\.quad.corners), [proposals[0].quad.corners])
    }

    /// Five sticky notes on a wooden desk (make_rectangle_scenes.py --kind sticky_notes, seed
    /// 1001, scene 17: a development scene, Fixtures/notes-on-desk). The hand-built stages alone
    /// found none of them (the wood grain's lines outrank the notes' sides); with the finder's
    /// proposals every note is found within 10 px, as evaluate_rectangles.py counts.
    func testDetectFindsStickyNotesOnATexturedDesk() throws {
        let folder = Fixtures.root.appendingPathComponent("notes-on-desk")
        let scene = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("scenes.json"))) as? [[String: Any]])?.first)
        let truths = (scene["quads"] as! [[[Double]]]).map { $0.map { Point(x: $0[0], y: $0[1]) } }
        XCTAssertEqual(truths.count, 5)
        let image = try ImageIO.read(path: folder.appendingPathComponent(scene["file"] as! String).path)
        let detector = RectangleDetector()
        detector.finder = LearnedDetection(finder: try PictureFinder(backend: CPUBackend(weights: [])))
        var options = RectangleDetectionOptions()
        options.minimumSize = 0.05
        options.maximumObservations = 0
        let found = try detector.detect(image, options: options)
        for truth in truths {
            let best = found.map { o in
                (0..<4).map { r in (0..<4).map { o.quad.corners[($0 + r) % 4].distance(to: truth[$0]) }.max()! }.min()!
            }.min() ?? .infinity
            XCTAssertLessThan(best, 10, "note \(truth) not found among \(found.count) observations")
        }
    }
}
