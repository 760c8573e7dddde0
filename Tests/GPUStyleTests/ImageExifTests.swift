import XCTest
@testable import GPUStyle

/// The EXIF parser and pixel reorientation, with hand-built inputs.
final class ImageExifTests: XCTestCase {
    /// TIFF with IFD0 = [0x010F ASCII (skipped), 0x0112 SHORT orientation].
    func tiff(orientation: UInt16, bigEndian: Bool, type: UInt16 = 3) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        var bytes: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        bytes += u16(42) + u32(8) + u16(2)
        bytes += u16(0x010F) + u16(2) + u32(4) + Array("abc\0".utf8)
        bytes += u16(0x0112) + u16(type) + u32(1) + u16(orientation) + u16(0)
        return bytes + u32(0)
    }

    func testReadsOrientationInBothByteOrders() {
        for value in 1...8 {
            for bigEndian in [false, true] {
                let parsed = ExifOrientation.fromTIFF(tiff(orientation: UInt16(value), bigEndian: bigEndian))
                XCTAssertEqual(parsed.rawValue, value, "value \(value) bigEndian \(bigEndian)")
            }
        }
    }

    func testMalformedExifMeansNormal() {
        XCTAssertEqual(ExifOrientation.fromTIFF([]), .normal)
        XCTAssertEqual(ExifOrientation.fromTIFF(Array("XX*\0\u{8}\0\0\0".utf8)), .normal)
        XCTAssertEqual(ExifOrientation.fromTIFF(tiff(orientation: 9, bigEndian: false)), .normal)
        XCTAssertEqual(ExifOrientation.fromTIFF(tiff(orientation: 0, bigEndian: true)), .normal)
        XCTAssertEqual(ExifOrientation.fromTIFF(tiff(orientation: 6, bigEndian: false, type: 4)), .normal)
        XCTAssertEqual(ExifOrientation.fromTIFF(Array(tiff(orientation: 6, bigEndian: true).prefix(30))), .normal)
    }

    /// A PNG's eXIf chunk (before IDAT, as PNG 3 places it) turns the picture as JPEG's EXIF
    /// does: every orientation against the reorientation of the unturned decode.
    func testPNGeXIfOrientationIsApplied() throws {
        let plain = [UInt8](try ImageFixtures.data("rgb8.png"))  // 7 x 5, no eXIf
        let upright = try ImageIO.decode(Data(plain), name: "plain")
        for value in 1...8 {
            for bigEndian in [false, true] {
                let exif = PNGBytes.chunk("eXIf", tiff(orientation: UInt16(value), bigEndian: bigEndian))
                let tagged = try ImagePNGBenignTests.inserting(exif, into: plain)
                let image = try ImageIO.decode(Data(tagged), name: "exif\(value)")
                let expected = upright.oriented(try XCTUnwrap(ExifOrientation(rawValue: value)))
                XCTAssertEqual(image.width, expected.width, "orientation \(value)")
                XCTAssertEqual(image.rgb, expected.rgb, "orientation \(value) bigEndian \(bigEndian)")
                XCTAssertEqual(image.decodeReport?.orientation, value)
            }
        }
    }

    /// The decoder takes the orientation from the first APP1 segment that is EXIF, past an
    /// XMP APP1 before it.
    func testFindsExifSegmentInJPEGMarkers() throws {
        let plain = [UInt8](try ImageFixtures.data("plain.jpg"))  // 24 x 16, no EXIF
        func app1(_ payload: [UInt8]) -> [UInt8] { [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload }
        let xmp = app1(Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8))
        let exif = app1(Array("Exif\0\0".utf8) + tiff(orientation: 6, bigEndian: true))
        let jpeg = Array(plain.prefix(2)) + xmp + exif + Array(plain.dropFirst(2))
        let image = try ImageIO.decode(Data(jpeg), name: "exif.jpg")
        XCTAssertEqual(image.width, 16)
        XCTAssertEqual(image.height, 24)
        XCTAssertEqual(try ImageIO.decode(Data(plain), name: "plain.jpg").width, 24)
    }

    /// A 3 x 2 picture whose pixel values are their stored index:
    ///   0 1 2
    ///   3 4 5
    func testReorientationMovesPixelsAsEXIFDefines() {
        let values: [Float] = [0, 1, 2, 3, 4, 5]
        let stored = Image(width: 3, height: 2, rgb: values + values + values, alpha: values)
        let expected: [ExifOrientation: (width: Int, rows: [Float])] = [
            .normal: (3, [0, 1, 2, 3, 4, 5]),
            .flipHorizontal: (3, [2, 1, 0, 5, 4, 3]),
            .rotate180: (3, [5, 4, 3, 2, 1, 0]),
            .flipVertical: (3, [3, 4, 5, 0, 1, 2]),
            .transpose: (2, [0, 3, 1, 4, 2, 5]),
            .rotate90Clockwise: (2, [3, 0, 4, 1, 5, 2]),
            .transverse: (2, [5, 2, 4, 1, 3, 0]),
            .rotate90CounterClockwise: (2, [2, 5, 1, 4, 0, 3]),
        ]
        for (orientation, want) in expected {
            let shown = stored.oriented(orientation)
            XCTAssertEqual(shown.width, want.width, "\(orientation)")
            XCTAssertEqual(shown.height, 6 / want.width, "\(orientation)")
            XCTAssertEqual(Array(shown.rgb[0..<6]), want.rows, "\(orientation) red")
            XCTAssertEqual(Array(shown.rgb[12..<18]), want.rows, "\(orientation) blue")
            XCTAssertEqual(shown.alpha, want.rows, "\(orientation) alpha")
        }
    }
}
