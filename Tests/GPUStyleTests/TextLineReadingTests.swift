import Foundation
import XCTest
@testable import GPUStyle

/// Reading a text line's recogniser output: the alphabet, greedy CTC decoding on hand-made
/// probabilities and on PP-OCRv6 tiny's own output (tools/make_ctc_fixtures.py, decoded there
/// in numpy from onnxruntime's output), and the character boxes on synthetic and rendered crops.
final class TextLineReadingTests: XCTestCase {
    // MARK: alphabet

    static var dictionary: String {
        get throws {
            try String(contentsOf: Fixtures.root.appendingPathComponent("text-lines/ppocrv6_tiny_dict.txt"), encoding: .utf8)
        }
    }

    func testLoadsPPOCRv6TinyDictionary() throws {
        let alphabet = try TextAlphabet(dictionary: Self.dictionary)
        XCTAssertEqual(alphabet.classCount, 6906)
        XCTAssertNil(alphabet.character(of: 0), "the blank")
        XCTAssertEqual(alphabet.character(of: 1), "!")
        XCTAssertEqual(alphabet.character(of: 33), "0", "after the 32 ASCII punctuation marks")
        XCTAssertEqual(alphabet.character(of: 43), "A")
        XCTAssertEqual(alphabet.character(of: 69), "a")
        XCTAssertEqual(alphabet.character(of: 617), "\u{3000}", "the ideographic space is an entry of its own")
        XCTAssertEqual(alphabet.space, 6905)
        XCTAssertEqual(alphabet.character(of: 6905), " ")
        XCTAssertNil(alphabet.character(of: 6906))
        XCTAssertFalse(alphabet.characters.contains("\r\n"), "CRLF line ends are separators")
    }

    func testDictionaryFormats() throws {
        let lf = try TextAlphabet(dictionary: "a\nb\nc\n", entries: 3)
        XCTAssertEqual(lf.characters, ["\u{0}", "a", "b", "c", " "])
        XCTAssertEqual(try TextAlphabet(dictionary: "\u{FEFF}a\r\nb\r\nc", entries: 3), lf, "BOM, CRLF, no last line end")
        XCTAssertThrowsError(try TextAlphabet(dictionary: "a\nb\n", entries: 3)) { error in
            XCTAssertEqual("\(error)", "the dictionary has 2 entries; the recogniser was trained with 3")
        }
        XCTAssertThrowsError(try TextAlphabet(dictionary: "a\n\nb\n", entries: nil), "an empty line")
        XCTAssertThrowsError(try TextAlphabet(dictionary: "a\nbc\n", entries: nil), "two characters on a line")
        XCTAssertThrowsError(try TextAlphabet(dictionary: try Self.dictionary + "x\n"), "6905 entries")
    }

    // MARK: greedy decoding

    /// "helowrd" and the space: classes blank, h, e, l, o, w, r, d, space.
    static let small = try! TextAlphabet(dictionary: "h\ne\nl\no\nw\nr\nd\n", entries: nil)

    /// Class-major probabilities: at step t, `winners[t]`'s class gets its probability and the
    /// rest of the mass is spread evenly over the other classes.
    static func probabilities(_ winners: [(Character, Float)], classes: Int, alphabet: TextAlphabet) -> [Float] {
        let steps = winners.count
        var p = [Float](repeating: 0, count: classes * steps)
        for (t, (character, probability)) in winners.enumerated() {
            let k = character == "_" ? 0 : alphabet.characters.firstIndex(of: character)!
            for c in 0..<classes { p[c * steps + t] = (1 - probability) / Float(classes - 1) }
            p[k * steps + t] = probability
        }
        return p
    }

    func testGreedyCollapsesRepeatsAndDropsBlanks() {
        let a = Self.small
        // h h _ e l l _ l o o ␣ ␣ w o _ r l d d, then three padding steps that must not be read.
        let steps: [(Character, Float)] = [("h", 0.9), ("h", 0.8), ("_", 0.99), ("e", 0.7), ("l", 0.6), ("l", 0.95),
                                           ("_", 0.9), ("l", 0.5), ("o", 0.8), ("o", 0.6), (" ", 0.4), (" ", 0.9),
                                           ("w", 0.85), ("o", 0.75), ("_", 0.9), ("r", 0.65), ("l", 0.55), ("d", 0.45),
                                           ("d", 0.9), ("w", 0.99), ("o", 0.99), ("w", 0.99)]
        let p = Self.probabilities(steps, classes: a.classCount, alphabet: a)
        let line = CTCDecoding.greedy(probabilities: p, classes: a.classCount, steps: steps.count, validSteps: 19, alphabet: a)
        XCTAssertEqual(line.string, "hello world")
        XCTAssertEqual(line.characters.map(\.character), Array("helloworld"))
        XCTAssertEqual(line.characters.map(\.steps), [0...1, 3...3, 4...5, 7...7, 8...9, 12...12, 13...13, 15...15, 16...16, 17...18])
        XCTAssertEqual(line.characters.map(\.probability), [0.9, 0.7, 0.6, 0.5, 0.8, 0.85, 0.75, 0.65, 0.55, 0.45])
        XCTAssertEqual(line.characters.map(\.startsWord), [true, false, false, false, false, true, false, false, false, false])
        XCTAssertEqual(line.characters.map(\.classIndex), [1, 2, 3, 3, 4, 5, 4, 6, 3, 7])
        // PaddleOCR's score: the kept steps' probabilities, the space's (0.4, its first step) included.
        let kept: [Float] = [0.9, 0.7, 0.6, 0.5, 0.8, 0.4, 0.85, 0.75, 0.65, 0.55, 0.45]
        XCTAssertEqual(line.confidence, kept.reduce(0, +) / Float(kept.count), accuracy: 1e-6)

        let all = CTCDecoding.greedy(probabilities: p, classes: a.classCount, steps: steps.count, validSteps: steps.count, alphabet: a)
        XCTAssertEqual(all.string, "hello worldwow", "the padding steps, when decoded")
    }

    func testGreedyEmptyAndTies() {
        let a = Self.small
        let blanks = Self.probabilities([("_", 0.9), ("_", 0.8)], classes: a.classCount, alphabet: a)
        XCTAssertEqual(CTCDecoding.greedy(probabilities: blanks, classes: a.classCount, steps: 2, validSteps: 2, alphabet: a), .empty)
        let letters = Self.probabilities([("h", 0.9)], classes: a.classCount, alphabet: a)
        XCTAssertEqual(CTCDecoding.greedy(probabilities: letters, classes: a.classCount, steps: 1, validSteps: 0, alphabet: a), .empty)
        // Equal probabilities: the first class wins, as numpy's argmax.
        var tie = [Float](repeating: 0, count: a.classCount)
        tie[2] = 0.5
        tie[3] = 0.5
        XCTAssertEqual(CTCDecoding.greedy(probabilities: tie, classes: a.classCount, steps: 1, validSteps: 1, alphabet: a).string, "e")
        tie[2] = .nan
        XCTAssertEqual(CTCDecoding.greedy(probabilities: tie, classes: a.classCount, steps: 1, validSteps: 1, alphabet: a).string, "l",
                       "NaN never wins")
        let only = CTCDecoding.greedy(probabilities: Self.probabilities([(" ", 0.7), ("_", 0.9)], classes: a.classCount, alphabet: a),
                                      classes: a.classCount, steps: 2, validSteps: 2, alphabet: a)
        XCTAssertEqual(only.string, " ")
        XCTAssertEqual(only.characters, [])
        XCTAssertEqual(only.confidence, 0.7, accuracy: 1e-7)
        XCTAssertEqual(CTCDecoding.validSteps(cropWidth: 0), 0)
        XCTAssertEqual(CTCDecoding.validSteps(cropWidth: 181), 23)
        XCTAssertEqual(CTCDecoding.validSteps(cropWidth: 184), 23)
    }

    // MARK: character boxes on synthetic crops

    /// A 48-px crop of `width` columns, background `paper`, with `glyphs` (x0...x1, y0...y1,
    /// inclusive) filled with `ink`, and a decoded line with one character per glyph whose step
    /// run is the one the recogniser would fire on (its centre's step, shifted by `jitter[i]`
    /// columns to mimic the step's ±4-column uncertainty).
    static func synthetic(width: Int, glyphs: [(ClosedRange<Int>, ClosedRange<Int>)], paper: Float, ink: Float,
                          jitter: [Double]) -> (TextLineCrop, DecodedLine) {
        var luminance = [Float](repeating: paper, count: 48 * width)
        var characters: [DecodedCharacter] = []
        for (i, (xs, ys)) in glyphs.enumerated() {
            for y in ys { for x in xs { luminance[y * width + x] = ink } }
            let centre = Double(xs.lowerBound + xs.upperBound) / 2 + jitter[i]
            let step = Int(((centre - CharacterBoxes.Options().stepCentreOffset) / 8).rounded())
            characters.append(DecodedCharacter(character: "x", classIndex: 1, firstStep: step, lastStep: step, probability: 1,
                                               startsWord: i == 0))
        }
        return (TextLineCrop(width: width, height: 48, luminance: luminance),
                DecodedLine(string: String(repeating: "x", count: glyphs.count), confidence: 1, characters: characters))
    }

    static let glyphs: [(ClosedRange<Int>, ClosedRange<Int>)] = [
        (6...20, 10...37), (24...27, 8...37), (31...45, 18...37), (49...52, 10...44), (56...80, 10...37), (85...97, 18...37),
    ]

    func testBoxesFitSyntheticGlyphs() {
        for (paper, ink) in [(Float(0.9), Float(0.1)), (0.15, 0.8)] {  // dark on light, light on dark
            let (crop, line) = Self.synthetic(width: 104, glyphs: Self.glyphs, paper: paper, ink: ink, jitter: [2, -3, 3, 3, -3, 2])
            let boxes = CharacterBoxes.boxesInCrop(for: line, crop: crop, cropWidth: 104)
            XCTAssertEqual(boxes.count, Self.glyphs.count)
            for (box, (xs, ys)) in zip(boxes, Self.glyphs) {
                let expected = CharacterBoxes.CropBox(left: Double(xs.lowerBound) - 0.5, top: Double(ys.lowerBound) - 0.5,
                                                      right: Double(xs.upperBound) + 0.5, bottom: Double(ys.upperBound) + 0.5)
                XCTAssertEqual(box, expected, "paper \(paper)")
            }
        }
    }

    func testBoxesSplitTouchingGlyphsInTheirThinnestColumns() {
        // Two glyphs joined by a 2-px bar (columns 18...20 of the first), no inkless column between.
        var (crop, line) = Self.synthetic(width: 48, glyphs: [(6...17, 10...37), (21...34, 10...37)], paper: 0.9, ink: 0.1, jitter: [0, 0])
        var luminance = crop.luminance
        for y in 30...31 { for x in 18...20 { luminance[y * 48 + x] = 0.1 } }
        crop = TextLineCrop(width: 48, height: 48, luminance: luminance)
        line.characters[1].startsWord = false
        let boxes = CharacterBoxes.boxesInCrop(for: line, crop: crop, cropWidth: 48)
        XCTAssertEqual(boxes.count, 2)
        // The cut goes through the bar, the bar's columns on either side of it.
        XCTAssertEqual([boxes[0].left, boxes[0].top, boxes[0].bottom], [5.5, 9.5, 37.5])
        XCTAssertEqual([boxes[1].top, boxes[1].right, boxes[1].bottom], [9.5, 34.5, 37.5])
        XCTAssertEqual(boxes[0].right, boxes[1].left)
        XCTAssertTrue((17.5...20.5).contains(boxes[0].right), "\(boxes[0].right)")
    }

    func testBoxesFollowTheHomography() throws {
        let (crop, line) = Self.synthetic(width: 104, glyphs: Self.glyphs, paper: 0.8, ink: 0.2, jitter: [0, 0, 0, 0, 0, 0])
        // The crop straightened from a line turned by 30° about (300, 200), 1.5 times larger.
        let angle = Double.pi / 6, scale = 1.5
        func photo(_ p: Point) -> Point {
            Point(x: 300 + scale * (cos(angle) * p.x - sin(angle) * p.y), y: 200 + scale * (sin(angle) * p.x + cos(angle) * p.y))
        }
        let lineQuad = Quad(corners: [Point(x: 0, y: 0), Point(x: 103, y: 0), Point(x: 103, y: 47), Point(x: 0, y: 47)].map(photo))
        let cropToPhoto = try Homography.rectangle(width: 104, height: 48, to: lineQuad)
        let inCrop = CharacterBoxes.boxesInCrop(for: line, crop: crop, cropWidth: 104)
        let quads = CharacterBoxes.boxes(for: line, crop: crop, cropWidth: 104, cropToPhoto: cropToPhoto)
        XCTAssertEqual(quads.count, 6)
        for (quad, box) in zip(quads, inCrop) {
            for (corner, expected) in zip(quad.corners, box.quad.corners.map(photo)) {
                XCTAssertLessThan(corner.distance(to: expected), 1e-9)
            }
            XCTAssertGreaterThan(quad.area, 0, "still clockwise on screen")
        }
    }

    func testBoxesWithoutInkKeepTheirSpan() {
        let crop = TextLineCrop(width: 40, height: 48, luminance: [Float](repeating: 0.5, count: 40 * 48))
        let line = DecodedLine(string: "x", confidence: 1, characters: [
            DecodedCharacter(character: "x", classIndex: 1, firstStep: 2, lastStep: 2, probability: 1, startsWord: true)])
        for method in [CharacterBoxes.Method.midpoints, .inkGaps] {
            var options = CharacterBoxes.Options()
            options.method = method
            let box = CharacterBoxes.boxesInCrop(for: line, crop: crop, cropWidth: 40, options: options)
            XCTAssertEqual(box.count, 1)
            XCTAssertEqual(box[0].top, -0.5)
            XCTAssertEqual(box[0].bottom, 47.5)
            XCTAssertLessThan(box[0].left, 16.5)
            XCTAssertGreaterThan(box[0].right, 16.5)
        }
    }

    func testBoxesForStepsBeyondTheCrop() {
        // A caller's validSteps too large: characters past the crop's width still get a box each.
        let (crop, _) = Self.synthetic(width: 40, glyphs: [(6...20, 10...37)], paper: 0.9, ink: 0.1, jitter: [0])
        let line = DecodedLine(string: "xyz", confidence: 1, characters: (0..<3).map {
            DecodedCharacter(character: "x", classIndex: 1, firstStep: 1 + 4 * $0, lastStep: 1 + 4 * $0, probability: 1, startsWord: $0 == 0)
        })
        for method in [CharacterBoxes.Method.midpoints, .inkGaps] {
            var options = CharacterBoxes.Options()
            options.method = method
            let boxes = CharacterBoxes.boxesInCrop(for: line, crop: crop, cropWidth: 40, options: options)
            XCTAssertEqual(boxes.count, 3)
            // inkGaps gives the others a column of it: a cut must leave ink on both sides where it can.
            XCTAssertGreaterThan(Self.iou(boxes[0], CharacterBoxes.CropBox(left: 5.5, top: 9.5, right: 20.5, bottom: 37.5)), 0.9, "\(method)")
        }
    }

    // MARK: PP-OCRv6 tiny's output on rendered lines

    struct RenderedLine: Decodable {
        struct Run: Decodable {
            var `class`: Int
            var character: String
            var first: Int
            var last: Int
            var probability: Float
        }
        var name: String
        var text: String
        var width: Int
        var height: Int
        var steps: Int
        var validSteps: Int
        /// For each step, its 5 most probable (class, probability) pairs.
        var top: [[[Double]]]
        var string: String
        var confidence: Float
        var runs: [Run]
        /// Each non-space glyph's ink: x0, y0, x1, y1 (inclusive pixels).
        var glyphs: [[Int]]

        /// Class-major [classes][steps] probabilities, 0 outside the stored top 5.
        func probabilities(classes: Int) -> [Float] {
            var p = [Float](repeating: 0, count: classes * steps)
            for (t, pairs) in top.enumerated() {
                for pair in pairs { p[Int(pair[0]) * steps + t] = Float(pair[1]) }
            }
            return p
        }
    }

    static func renderedLines(in folder: URL) throws -> [RenderedLine] {
        try JSONDecoder().decode([RenderedLine].self, from: Data(contentsOf: folder.appendingPathComponent("lines.json")))
    }

    func testDecodesRecogniserOutputAsPaddleOCR() throws {
        let alphabet = try TextAlphabet(dictionary: Self.dictionary)
        let lines = try Self.renderedLines(in: Fixtures.root.appendingPathComponent("text-lines"))
        XCTAssertEqual(lines.count, 6)
        for line in lines {
            XCTAssertEqual(line.validSteps, CTCDecoding.validSteps(cropWidth: line.width))
            let decoded = CTCDecoding.greedy(probabilities: line.probabilities(classes: alphabet.classCount), classes: alphabet.classCount,
                                             steps: line.steps, validSteps: line.validSteps, alphabet: alphabet)
            XCTAssertEqual(decoded.string, line.string, line.name)
            XCTAssertEqual(decoded.confidence, line.confidence, accuracy: 1e-6, line.name)
            let runs = line.runs.filter { $0.character != " " }
            XCTAssertEqual(decoded.characters.map { String($0.character) }, runs.map(\.character), line.name)
            XCTAssertEqual(decoded.characters.map(\.classIndex), runs.map(\.class), line.name)
            XCTAssertEqual(decoded.characters.map(\.steps), runs.map { $0.first...$0.last }, line.name)
            XCTAssertEqual(decoded.characters.map(\.probability), runs.map(\.probability), line.name)
        }
    }

    /// Intersection over union of two crop boxes.
    static func iou(_ a: CharacterBoxes.CropBox, _ b: CharacterBoxes.CropBox) -> Double {
        let w = max(0, min(a.right, b.right) - max(a.left, b.left)), h = max(0, min(a.bottom, b.bottom) - max(a.top, b.top))
        let area = { (r: CharacterBoxes.CropBox) in (r.right - r.left) * (r.bottom - r.top) }
        return w * h / (area(a) + area(b) - w * h)
    }

    /// The share of glyphs whose box reaches IoU ≥ 0.5 with their rendered ink box, by method,
    /// over the lines in `folder` (their text read exactly, so characters pair with glyphs).
    static func boxShares(in folder: URL) throws -> (midpoints: Double, inkGaps: Double, glyphs: Int) {
        let alphabet = try TextAlphabet(dictionary: dictionary)
        var hits = [0, 0], glyphs = 0
        for line in try renderedLines(in: folder) where line.string == line.text {
            let decoded = CTCDecoding.greedy(probabilities: line.probabilities(classes: alphabet.classCount), classes: alphabet.classCount,
                                             steps: line.steps, validSteps: line.validSteps, alphabet: alphabet)
            let crop = TextLineCrop(try ImageIO.read(path: folder.appendingPathComponent(line.name + ".png").path))
            let truth = line.glyphs.map {
                CharacterBoxes.CropBox(left: Double($0[0]) - 0.5, top: Double($0[1]) - 0.5, right: Double($0[2]) + 0.5, bottom: Double($0[3]) + 0.5)
            }
            glyphs += truth.count
            for (m, method) in [CharacterBoxes.Method.midpoints, .inkGaps].enumerated() {
                var options = CharacterBoxes.Options()
                options.method = method
                let boxes = CharacterBoxes.boxesInCrop(for: decoded, crop: crop, cropWidth: line.width, options: options)
                hits[m] += zip(boxes, truth).filter { iou($0, $1) >= 0.5 }.count
            }
        }
        return (Double(hits[0]) / Double(glyphs), Double(hits[1]) / Double(glyphs), glyphs)
    }

    func testCharacterBoxesOnRenderedLines() throws {
        let shares = try Self.boxShares(in: Fixtures.root.appendingPathComponent("text-lines"))
        print(String(format: "character boxes with IoU >= 0.5 on %d rendered glyphs: midpoints %.1f %%, ink gaps %.1f %%",
                     shares.glyphs, 100 * shares.midpoints, 100 * shares.inkGaps))
        XCTAssertGreaterThanOrEqual(shares.inkGaps, 0.9)
        XCTAssertGreaterThan(shares.inkGaps, shares.midpoints)
    }

    /// A larger measurement, opt in: TEXT_LINES_FIXTURES=<folder> of
    /// `tools/make_ctc_fixtures.py --random N --out <folder>`.
    func testCharacterBoxesOnManyRenderedLines() throws {
        guard let folder = ProcessInfo.processInfo.environment["TEXT_LINES_FIXTURES"] else {
            throw XCTSkip("set TEXT_LINES_FIXTURES to a folder of tools/make_ctc_fixtures.py --random")
        }
        let shares = try Self.boxShares(in: URL(fileURLWithPath: folder))
        print(String(format: "character boxes with IoU >= 0.5 on %d rendered glyphs: midpoints %.1f %%, ink gaps %.1f %%",
                     shares.glyphs, 100 * shares.midpoints, 100 * shares.inkGaps))
    }
}
