import Foundation
import XCTest
@testable import GPUStyle

/// Text through FreeType (DejaVu Sans) and the label drawn from it on RGB images and Y4M frames.
final class TextRendererTests: XCTestCase {
    static let renderer = Result { try TextRenderer() }

    private func renderer() throws -> TextRenderer {
        do { return try Self.renderer.get() } catch {
            throw XCTSkip("no font (tools/install-deps installs fonts-dejavu-core): \(error)")
        }
    }

    private func ink(_ bitmap: TextBitmap) -> Int { bitmap.coverage.reduce(0) { $0 + Int($1) } }

    private func inkRows(_ bitmap: TextBitmap) -> ClosedRange<Int>? {
        let rows = (0..<bitmap.height).filter { y in (0..<bitmap.width).contains { bitmap[$0, y] > 0 } }
        guard let first = rows.first, let last = rows.last else { return nil }
        return first...last
    }

    func testTheDefaultFontIsFound() throws {
        let path = try FontLocator.defaultFont()
        XCTAssertTrue(FileManager.default.isReadableFile(atPath: path), path)
        if let matched = FontLocator.fontconfigMatch("DejaVu Sans") {
            XCTAssertTrue(FileManager.default.isReadableFile(atPath: matched), "fc-match gave \(matched)")
        }
    }

    func testInkIsWhereTheGlyphsAre() throws {
        let renderer = try renderer()
        let i = try renderer.render("I", pixelSize: 32), w = try renderer.render("W", pixelSize: 32)
        XCTAssertGreaterThan(ink(w), 2 * ink(i), "a W has more ink than an I")
        XCTAssertGreaterThan(w.width, 2 * i.width)
        XCTAssertEqual(i.height, w.height, "one line height for any text")
        // An I is a bar standing on the baseline, cap height tall (0.73 em in DejaVu Sans).
        let rows = try XCTUnwrap(inkRows(i))
        XCTAssertEqual(rows.upperBound, i.baseline - 1, "the I stands on the baseline")
        XCTAssertEqual(Double(rows.count), 0.73 * 32, accuracy: 2)
        let full = (0..<i.width).filter { x in rows.allSatisfy { i[x, $0] == 255 } }
        XCTAssertGreaterThanOrEqual(full.count, 2, "a solid stem")
        XCTAssertTrue((0..<i.width).allSatisfy { i[$0, 0] == 0 }, "nothing above the cap height")
        // A g descends below the baseline.
        let g = try renderer.render("g", pixelSize: 32)
        XCTAssertGreaterThan(try XCTUnwrap(inkRows(g)).upperBound, g.baseline + 3)
    }

    func testWidthGrowsWithTheText() throws {
        let renderer = try renderer()
        var previous = 0
        for length in 1...8 {
            let bitmap = try renderer.render(String(repeating: "n", count: length), pixelSize: 20)
            XCTAssertGreaterThan(bitmap.width, previous)
            previous = bitmap.width
        }
        let small = try renderer.render("tabby cat 87 %", pixelSize: 16), large = try renderer.render("tabby cat 87 %", pixelSize: 32)
        XCTAssertEqual(Double(large.width) / Double(small.width), 2, accuracy: 0.15)
        XCTAssertEqual(Double(large.height) / Double(small.height), 2, accuracy: 0.15)
        XCTAssertEqual(try renderer.render("", pixelSize: 20).width, 0)
        XCTAssertEqual(try renderer.render("a\nb", pixelSize: 20), try renderer.render("ab", pixelSize: 20), "control characters are skipped")
    }

    /// "AV" sits closer than "A" then "V" when the font kerns the pair.
    func testKerningPairsMoveCloser() throws {
        let renderer = try renderer()
        let pair = try renderer.render("AV", pixelSize: 40), a = try renderer.render("A", pixelSize: 40)
        let v = try renderer.render("V", pixelSize: 40), plain = try renderer.render("AA", pixelSize: 40)
        XCTAssertLessThan(pair.width, a.width + v.width - 2, "DejaVu Sans kerns AV")
        XCTAssertGreaterThanOrEqual(plain.width, 2 * a.width - 1, "no kerning between two As")
    }

    func testAccentedLettersRender() throws {
        let renderer = try renderer()
        let e = try renderer.render("e", pixelSize: 32), acute = try renderer.render("é", pixelSize: 32)
        XCTAssertGreaterThan(ink(acute), ink(e) + 100, "the accent is drawn")
        XCTAssertLessThan(try XCTUnwrap(inkRows(acute)).lowerBound, try XCTUnwrap(inkRows(e)).lowerBound - 3, "above the e")
        XCTAssertGreaterThan(ink(try renderer.render("Ωß", pixelSize: 32)), 0)
    }

    func testAMissingOrBrokenFontIsAnError() throws {
        XCTAssertThrowsError(try TextRenderer(fontPath: "/nonexistent/font.ttf")) { error in
            XCTAssertEqual(error as? TextError, .font(path: "/nonexistent/font.ttf", reason: "no such file"))
        }
        let notFont = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-notfont-\(UUID().uuidString).ttf")
        try Data("not a font".utf8).write(to: notFont)
        defer { try? FileManager.default.removeItem(at: notFont) }
        XCTAssertThrowsError(try TextRenderer(fontPath: notFont.path)) { error in
            XCTAssertTrue("\(error)".contains("not a font file"), "\(error)")
        }
        XCTAssertTrue(TextError.noFont.description.contains("fonts-dejavu-core"))
    }

    func testTheBoxStaysInsideThePicture() throws {
        let text = try renderer().render("tabby cat 87 %", pixelSize: 20)
        let style = LabelStyle(pixelSize: 20)
        let wanted = LabelDrawing.place(text, style: style, x: 8, y: 8, width: 640, height: 480)
        XCTAssertEqual([wanted.x, wanted.y, wanted.textX - wanted.x], [8, 8, style.padding])
        for (x, y) in [(630, 470), (-50, -50), (600, 5), (3, 475)] {
            let box = LabelDrawing.place(text, style: style, x: x, y: y, width: 640, height: 480)
            XCTAssertEqual(box.width, wanted.width, "moved, not shrunk")
            XCTAssertEqual(box.height, wanted.height)
            XCTAssertTrue(box.x >= 0 && box.y >= 0 && box.x + box.width <= 640 && box.y + box.height <= 480, "\(box)")
        }
        // A picture smaller than the label: the box is clipped to it, and drawing stays in bounds.
        var tiny = Image(width: 40, height: 10, rgb: [Float](repeating: 0.5, count: 3 * 400))
        let box = LabelDrawing.draw(text, on: &tiny, x: 8, y: 8, style: style)
        XCTAssertEqual([box.x, box.y, box.width, box.height], [0, 0, 40, 10])
    }

    func testLabelOnAnImage() throws {
        let text = try renderer().render("Wé", pixelSize: 24)
        let style = LabelStyle(pixelSize: 24)
        var image = Image(width: 120, height: 60, rgb: [Float](repeating: 0.5, count: 3 * 7200))
        let box = LabelDrawing.draw(text, on: &image, x: 100, y: 10, style: style)
        XCTAssertEqual(box.x + box.width, 120, "moved left to fit")
        for y in 0..<60 {
            for x in 0..<120 {
                let value = image.rgb[y * 120 + x]
                XCTAssertEqual(image.rgb[7200 + y * 120 + x], value, "grey stays grey")
                guard box.contains(x: x, y: y) else { XCTAssertEqual(value, 0.5); continue }
                let tx = x - box.textX, ty = y - box.textY
                let a = tx >= 0 && tx < text.width && ty >= 0 && ty < text.height ? Float(text[tx, ty]) / 255 : 0
                XCTAssertEqual(value, 0.2 + 0.8 * a, accuracy: 1e-5, "(\(x), \(y))")
            }
        }
    }

    func testLabelOnAYUVFrame() throws {
        let text = try renderer().render("Wé", pixelSize: 24)
        let style = LabelStyle(pixelSize: 24)
        let (width, height) = (100, 50)
        var frame = YUVFrame(width: width, height: height, chroma: .yuv420(centred: true), y: [UInt8](repeating: 116, count: width * height),
                             u: [UInt8](repeating: 178, count: 50 * 25), v: [UInt8](repeating: 78, count: 50 * 25))
        let box = LabelDrawing.draw(text, on: &frame, fullRange: false, x: 4, y: 4, style: style)
        var bright = 0
        for y in 0..<height {
            for x in 0..<width {
                let luma = frame.y[y * width + x]
                guard box.contains(x: x, y: y) else { XCTAssertEqual(luma, 116); continue }
                let tx = x - box.textX, ty = y - box.textY
                let a = tx >= 0 && tx < text.width && ty >= 0 && ty < text.height ? Float(text[tx, ty]) / 255 : 0
                // Limited range: black 16, white 235; the box keeps 40 % of the way from black.
                let dark: Float = 16 + 100 * 0.4
                XCTAssertEqual(Float(luma), dark + (235 - dark) * a, accuracy: 0.5, "(\(x), \(y))")
                if a == 1 { bright += 1 }
            }
        }
        XCTAssertGreaterThan(bright, 50)
        // Chroma: untouched outside, towards grey inside (50 -> 20 where there is no ink).
        XCTAssertEqual(frame.u[24 * 50 + 49], 178)
        let corner = (box.y / 2) * 50 + box.x / 2
        XCTAssertEqual(Int(frame.u[corner]), 128 + 20, accuracy: 1)
        XCTAssertEqual(Int(frame.v[corner]), 128 - 20, accuracy: 1)
        XCTAssertLessThanOrEqual(frame.u.max()!, 178)
        XCTAssertGreaterThanOrEqual(frame.v.min()!, 78)
    }
}
