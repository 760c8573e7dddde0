import CFreeType
import Foundation

/// One line of text as 8-bit coverage (0 = no ink, 255 = full ink), antialiased by FreeType.
public struct TextBitmap: Sendable, Equatable {
    public let width: Int
    /// The font's line height at this size (ascender + descender), the same for any text.
    public let height: Int
    /// Rows from the top of the bitmap down to the baseline (the font's ascender).
    public let baseline: Int
    /// `[height][width]`.
    public var coverage: [UInt8]

    public subscript(x: Int, y: Int) -> UInt8 { coverage[y * width + x] }
}

/// Renders text with FreeType from a TrueType/OpenType font: glyphs placed by their advances
/// and the font's kerning pairs, on one baseline.
///
/// One FreeType face is not safe to use from two threads at once: calls are serialised.
public final class TextRenderer: @unchecked Sendable {
    public let fontPath: String
    private let library: FT_Library
    private let face: FT_Face
    private let lock = NSLock()

    /// Opens `fontPath`, or the default font (`FontLocator`) when nil.
    public init(fontPath: String? = nil) throws {
        let path = try fontPath ?? FontLocator.defaultFont()
        guard FileManager.default.fileExists(atPath: path) else { throw TextError.font(path: path, reason: "no such file") }
        var library: FT_Library?
        var status = FT_Init_FreeType(&library)
        guard status == 0, let library else { throw TextError.font(path: path, reason: Self.describe(status)) }
        var face: FT_Face?
        status = FT_New_Face(library, path, 0, &face)
        guard status == 0, let face else {
            FT_Done_FreeType(library)
            throw TextError.font(path: path, reason: Self.describe(status))
        }
        self.fontPath = path
        self.library = library
        self.face = face
    }

    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    /// `text` on one line at `pixelSize` pixels per em. Control characters are skipped;
    /// characters the font lacks show as its missing-glyph box.
    public func render(_ text: String, pixelSize: Int) throws -> TextBitmap {
        precondition(pixelSize > 0 && pixelSize <= 1024, "pixel size out of range")
        return try lock.withLock { try renderLocked(text, pixelSize: pixelSize) }
    }

    private struct Glyph {
        let x: Int
        let top: Int
        let width: Int
        let rows: Int
        let pixels: [UInt8]
    }

    private func renderLocked(_ text: String, pixelSize: Int) throws -> TextBitmap {
        try check(FT_Set_Pixel_Sizes(face, 0, FT_UInt(pixelSize)), "cannot size the font")
        let metrics = face.pointee.size.pointee.metrics
        // 26.6 fixed point: 64 units per pixel.
        let ascent = Int((Double(metrics.ascender) / 64).rounded(.up))
        let descent = Int((Double(-metrics.descender) / 64).rounded(.up))
        let kerning = gs_ft_has_kerning(face) != 0
        var glyphs: [Glyph] = []
        var pen = 0  // 26.6
        var previous: FT_UInt = 0
        for scalar in text.unicodeScalars where !scalar.properties.generalCategory.isControl {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if kerning && previous != 0 && index != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 {
                    pen += Int(delta.x)
                }
            }
            try check(FT_Load_Glyph(face, index, gs_ft_load_render()), "cannot render U+\(String(scalar.value, radix: 16, uppercase: true))")
            let slot = face.pointee.glyph!.pointee
            let bitmap = slot.bitmap
            let width = Int(bitmap.width), rows = Int(bitmap.rows)
            if width > 0 && rows > 0, Int32(bitmap.pixel_mode) == gs_ft_pixel_mode_gray(), let buffer = bitmap.buffer {
                var pixels = [UInt8](repeating: 0, count: width * rows)
                let pitch = Int(bitmap.pitch)
                for row in 0..<rows {
                    // A negative pitch means the rows run upwards from the buffer's start.
                    let source = pitch >= 0 ? row * pitch : (rows - 1 - row) * -pitch
                    for column in 0..<width { pixels[row * width + column] = buffer[source + column] }
                }
                glyphs.append(Glyph(x: ((pen + 32) >> 6) + Int(slot.bitmap_left), top: Int(slot.bitmap_top),
                                    width: width, rows: rows, pixels: pixels))
            }
            pen += Int(slot.advance.x)
            previous = index
        }
        // The box runs from the pen's start to its end, widened for ink that overhangs either.
        let left = min(0, glyphs.map(\.x).min() ?? 0)
        let right = max((pen + 63) >> 6, glyphs.map { $0.x + $0.width }.max() ?? 0)
        let width = right - left, height = ascent + descent
        var coverage = [UInt8](repeating: 0, count: width * height)
        for glyph in glyphs {
            for row in 0..<glyph.rows {
                let y = ascent - glyph.top + row
                guard y >= 0 && y < height else { continue }
                for column in 0..<glyph.width {
                    let target = y * width + glyph.x - left + column
                    // Overlapping glyphs (kerned pairs): the darker ink wins.
                    coverage[target] = max(coverage[target], glyph.pixels[row * glyph.width + column])
                }
            }
        }
        return TextBitmap(width: width, height: height, baseline: ascent, coverage: coverage)
    }

    private func check(_ status: FT_Error, _ what: String) throws {
        guard status != 0 else { return }
        throw TextError.font(path: fontPath, reason: "\(what) (\(Self.describe(status)))")
    }

    /// FreeType's message for the common errors (Debian's build leaves out `FT_Error_String`'s table).
    static func describe(_ status: FT_Error) -> String {
        switch status {
        case 0x01: return "cannot open the file"
        case 0x02: return "not a font file FreeType knows"
        case 0x03: return "broken font file"
        case 0x06: return "invalid argument"
        case 0x17: return "invalid pixel size"
        case 0x40: return "out of memory"
        default: return "FreeType error \(status)"
        }
    }
}

private extension Unicode.GeneralCategory {
    var isControl: Bool { self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator }
}
