import Foundation
import XCTest
@testable import GPUStyle

/// `AnalysisRequest` as a plug-in: a request only the tests know runs beside the built-ins
/// without a line of theirs changed, through the handler, the catalogue and the reports; the
/// lanes group what each request declares; a lane's error is the analysis's.
final class ImageAnalyzerRequestTests: XCTestCase {
    private let photoPath = DigitFixtures.root.appendingPathComponent("notes-example.jpg").path

    func testARequestPlugsInBesideTheBuiltIns() throws {
        let catalogue = AnalysisCatalogue(AnalysisCatalogue.builtin.types + [MeanGreyRequest.self])
        XCTAssertEqual(try catalogue.parse(" grey,rectangles,grey"), ["grey", "rectangles"])
        XCTAssertThrowsError(try catalogue.parse("rectangles,nose")) { error in
            XCTAssertEqual("\(error)", "'nose' is not one of rectangles, faces, classify, digits, text, grey")
        }
        XCTAssertThrowsError(try AnalysisCatalogue.builtin.parse("grey"))
        XCTAssertEqual(RequestName.allCases, ["rectangles", "faces", "classify", "digits", "text"])

        let photo = try ImageIO.read(path: photoPath)
        let stages = AnalysisStages(backend: { CPUBackend(weights: []) }, detector: { RectangleDetector() }, warper: { CPUPerspectiveWarper() })
        let result = try ImageAnalyzer(try catalogue.make(["grey", "rectangles"], stages: stages)).analyze(photo)
        let mean = Double(photo.rgb.reduce(0, +)) / Double(photo.rgb.count)
        XCTAssertEqual(result.observations.map(\.name), ["grey", "rectangles"])
        XCTAssertEqual(Set(result.seconds.keys), ["grey", "rectangles"])
        XCTAssertEqual(result[MeanGreyRequest.self], mean)
        XCTAssertEqual(result[name: "grey"]?.value as? Double, mean)
        XCTAssertNil(result[name: "grey"]?.value(as: ClassifyRequest.self))
        XCTAssertNil(result.faces)
        XCTAssertEqual(result.rectangles?.map(\.quad), try RectangleDetector().detect(photo).map(\.quad))
        XCTAssertFalse(result.rectangles?.isEmpty ?? true)

        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.json(file: "p.jpg", width: photo.width, height: photo.height).utf8))
            as? [String: Any])
        XCTAssertEqual(Set(json.keys), ["file", "width", "height", "requests", "milliseconds", "grey", "rectangles"])
        XCTAssertEqual(json["requests"] as? [String], ["grey", "rectangles"])
        XCTAssertEqual((json["grey"] as? [String: Double])?["mean"], mean)
        XCTAssertEqual((json["rectangles"] as? [Any])?.count, result.rectangles?.count)
        let text = result.text(file: "p.jpg")
        XCTAssertTrue(text.hasPrefix(String(format: "grey:\n  mean %.3f\nrectangles:\n  #1 confidence ", mean)), text)
    }

    func testTheCatalogueMakesTheStagesALaneShares() throws {
        var detectors = 0
        let stages = AnalysisStages(backend: { CPUBackend(weights: []) }, detector: { detectors += 1; return RectangleDetector() },
                                    warper: { CPUPerspectiveWarper() })
        let made = try AnalysisCatalogue.builtin.make([.digits, .rectangles], stages: stages)
        XCTAssertEqual(made.map { type(of: $0).name }, [.digits, .rectangles])
        let digits = try XCTUnwrap(made[0] as? DigitsRequest), rectangles = try XCTUnwrap(made[1] as? RectanglesRequest)
        XCTAssertTrue(digits.reader.detector === rectangles.detector)
        XCTAssertEqual(detectors, 1)
        XCTAssertEqual(DigitsRequest.lane, RectanglesRequest.lane)
    }

    func testLanesGroupWhatTheRequestsDeclare() throws {
        // The catalogue's lanes first (in its order), then the others as asked; each lane's
        // requests as asked.
        XCTAssertEqual(ImageAnalyzer.lanes([Probe<C>.self, Probe<A>.self, FacesRequest.self, Probe<B>.self, DigitsRequest.self,
                                            RectanglesRequest.self]),
                       [[4, 5], [2], [0], [1, 3]])
        let image = Self.grey(0.5)
        // A and B share a lane: the value is made once for both.
        let together = Counter()
        let both = try ImageAnalyzer([Probe<A>(made: together), Probe<B>(made: together)]).analyze(image)
        XCTAssertEqual(together.value, 1)
        XCTAssertEqual(both[Probe<A>.self], 1)
        XCTAssertEqual(both[Probe<B>.self], 1)
        // A and C do not: each lane makes its own.
        let apart = Counter()
        _ = try ImageAnalyzer([Probe<A>(made: apart), Probe<C>(made: apart)]).analyze(image)
        XCTAssertEqual(apart.value, 2)
    }

    func testALanesErrorIsTheAnalysissError() throws {
        let image = Self.grey(0.5)
        XCTAssertThrowsError(try ImageAnalyzer([Probe<C>(), Probe<A>(failing: "a")]).analyze(image)) { error in
            XCTAssertEqual(error as? ProbeError, ProbeError(name: "a"))
        }
        // Two lanes fail: the first lane's error, the catalogue's lanes first.
        XCTAssertThrowsError(try ImageAnalyzer([Probe<C>(failing: "c"), Probe<A>(failing: "a")]).analyze(image)) { error in
            XCTAssertEqual(error as? ProbeError, ProbeError(name: "c"))
        }
        var bad = RectangleDetectionOptions()
        bad.minimumAspectRatio = 2
        XCTAssertThrowsError(try ImageAnalyzer([Probe<C>(failing: "c"), RectanglesRequest(detector: RectangleDetector(), options: bad)])
            .analyze(image)) { error in
            XCTAssertTrue(error is RectangleDetector.OptionsError, "\(error)")
        }
        // A request that fails stops its lane: B, after A in their lane, does not run.
        let after = Counter()
        XCTAssertThrowsError(try ImageAnalyzer([Probe<A>(failing: "a"), Probe<B>(made: after)]).analyze(image))
        XCTAssertEqual(after.value, 0)
    }

    func testTheOverlayStacksByLayer() throws {
        let image = Self.grey(0.5)
        let quad = Quad(topLeft: Point(x: 8, y: 8), topRight: Point(x: 40, y: 8), bottomRight: Point(x: 40, y: 40),
                        bottomLeft: Point(x: 8, y: 40))
        let renderer = try TextRenderer()
        var result = ImageAnalyzer.Result()
        result.rectangles = [RectangleObservation(quad: quad, confidence: 1)]
        result[Paint<Under>.self] = 0.25
        // Asked after the rectangles, drawn under them.
        XCTAssertEqual(try result.overlay(on: image, renderer: renderer).rgb, QuadOverlay.draw([quad], on: Self.grey(0.25)).rgb)
        result[Paint<Under>.self] = nil
        result[Paint<Over>.self] = 0.75
        XCTAssertEqual(try result.overlay(on: image, renderer: renderer).rgb, Self.grey(0.75).rgb)
        XCTAssertEqual(result.observations.map(\.name), ["rectangles", "over"])
    }

    static func grey(_ value: Float, width: Int = 64, height: Int = 48) -> Image {
        Image(width: width, height: height, rgb: [Float](repeating: value, count: 3 * width * height))
    }
}

/// A request only the tests know: the photo's mean of its channels, in a lane of its own.
private struct MeanGreyRequest: CatalogueRequest {
    static let name: RequestName = "grey"

    init() {}
    init(stages: AnalysisStages) throws { self.init() }

    func perform(_ image: Image, in lane: AnalysisLane) throws -> Double { Double(image.rgb.reduce(0, +)) / Double(image.rgb.count) }

    static func jsonItems(_ output: Double, width: Int, height: Int) throws -> Any { ["mean": output] }
    static func text(_ output: Double, file: String) -> String { indented(String(format: "mean %.3f", output)) }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() -> Int { lock.withLock { count += 1; return count } }
}

private struct ProbeError: Error, Equatable {
    let name: String
}

private protocol ProbeTag {
    static var name: RequestName { get }
    static var lane: String { get }
}

private enum A: ProbeTag { static let name: RequestName = "a"; static let lane = "ab" }
private enum B: ProbeTag { static let name: RequestName = "b"; static let lane = "ab" }
private enum C: ProbeTag { static let name: RequestName = "c"; static let lane = "c" }

/// Asks its lane for the value under "probe" (counting the makings in `made`), or fails.
private struct Probe<Tag: ProbeTag>: AnalysisRequest {
    static var name: RequestName { Tag.name }
    static var lane: String { Tag.lane }

    var made = Counter()
    var failing: String?

    init(made: Counter = Counter(), failing: String? = nil) {
        self.made = made
        self.failing = failing
    }

    func perform(_ image: Image, in lane: AnalysisLane) throws -> Int {
        if let failing { throw ProbeError(name: failing) }
        return lane.shared("probe") { made.increment() }
    }

    static func jsonItems(_ output: Int, width: Int, height: Int) throws -> Any { output }
    static func text(_ output: Int, file: String) -> String { indented("\(output)") }
}

private protocol PaintTag {
    static var name: RequestName { get }
    static var overlayLayer: Int { get }
}

private enum Under: PaintTag { static let name: RequestName = "under"; static let overlayLayer = -1 }
private enum Over: PaintTag { static let name: RequestName = "over"; static let overlayLayer = 10 }

/// Draws the whole photo in one grey (its output), on its layer.
private struct Paint<Tag: PaintTag>: AnalysisRequest {
    static var name: RequestName { Tag.name }
    static var overlayLayer: Int { Tag.overlayLayer }

    func perform(_ image: Image, in lane: AnalysisLane) throws -> Float { 0 }

    static func jsonItems(_ output: Float, width: Int, height: Int) throws -> Any { Double(output) }
    static func text(_ output: Float, file: String) -> String { "" }
    static func overlay(_ output: Float, on image: Image, renderer: TextRenderer) throws -> Image {
        ImageAnalyzerRequestTests.grey(output, width: image.width, height: image.height)
    }
}
