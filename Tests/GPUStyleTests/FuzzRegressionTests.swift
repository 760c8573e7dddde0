import CImageShims
import Foundation
import XCTest
@testable import GPUStyle

/// What the fuzz targets found (tools/fuzz, docs/tests.md "Fuzzing"), each input fed back to the reader
/// that failed on it. Inputs of their own are in Fixtures/fuzz; one found among the existing
/// fixtures is read from there.
final class FuzzRegressionTests: XCTestCase {
    /// cimageshims.h promises a JPEG's EXIF block until gps_reader_destroy, but it pointed into
    /// libjpeg's image pool, which jpeg_finish_decompress frees at the end of the pixels: the jpeg
    /// target (which reads the block after the pixels) hit a heap use-after-free under ASan on the
    /// seed images/progressive_exif8.jpg. The block is now the decoder's own copy.
    func testJPEGExifBlockOutlivesThePixels() throws {
        let data = try ImageFixtures.data("progressive_exif8.jpg")
        try data.withUnsafeBytes { bytes in
            let reader = try XCTUnwrap(gps_reader_create(-1, bytes.baseAddress, bytes.count))
            defer { gps_reader_destroy(reader) }
            var header = gps_image_header()
            var error = gps_decode_error()
            XCTAssertEqual(gps_reader_read_header(reader, &header, &error), GPS_OK)
            let exif = try XCTUnwrap(header.exif)
            let before = Array(UnsafeBufferPointer(start: exif, count: header.exif_size))
            let count = Int(header.width * header.height)
            var rgb = [Float](repeating: 0, count: 3 * count)
            XCTAssertEqual(gps_reader_read_pixels(reader, &rgb, nil, &error), GPS_OK)
            // Without ASan, reuse makes a freed block visible: glibc hands the blocks just freed
            // (libjpeg's saved markers among them) to the next mallocs of their size, so fill
            // eight blocks of every size up to 1 KiB. The freed EXIF then reads 0xA5.
            var blocks: [UnsafeMutableRawPointer] = []
            for size in stride(from: 16, through: 1024, by: 16) {
                for _ in 0..<8 {
                    let block = try XCTUnwrap(malloc(size))
                    memset(block, 0xA5, size)
                    blocks.append(block)
                }
            }
            defer { blocks.forEach { free($0) } }
            let after = Array(UnsafeBufferPointer(start: exif, count: header.exif_size))
            XCTAssertEqual(after, before)
            XCTAssertEqual(ExifOrientation.fromTIFF(after), .rotate90CounterClockwise)
        }
    }

    /// Mutations of onnx/mixed_ops.onnx whose folded constants were huge: a ConstantOfShape of
    /// ~10^8 values took 30 s under ASan to refuse (most of it describing them in Pad's error),
    /// and with folding capped at 2^24 a Transpose of a folded 2^24 values took 24 s. Folding now
    /// stops at ONNXGraphBuilder.maximumFoldedElements (2^20), with an error at once.
    func testONNXHugeFoldedConstantIsRefusedAtOnce() throws {
        for name in ["onnx-timeout-huge-folded-constant.onnx", "onnx-slow-transpose-folded-constant.onnx"] {
            let data = try Self.fuzzInput(name)
            let start = Date()
            XCTAssertThrowsError(try ModelConversion.fromONNX(data, source: name, metadata: .init(name: "fuzz"))) { error in
                XCTAssertTrue(error is ONNXImportError, "\(error)")
                XCTAssertTrue("\(error)".contains("are folded"), "\(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(start), 2, name)
        }
    }

    static func fuzzInput(_ name: String) throws -> Data {
        try Data(contentsOf: Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("fuzz/\(name)"))
    }

    /// A 1.9 KB PNG whose tEXt chunk declares 1.9 GB: libpng reports the length as a benign
    /// error and then allocates it anyway, so once benign errors became warnings the png target
    /// ran out of memory (malloc(1901449769)). Such a chunk is now refused as damage at once
    /// ("chunk data is too large"), before any allocation; before the fix the error was the
    /// later "file is truncated".
    func testPNGChunkDeclaringGigabytesIsRefusedBeforeItsAllocation() throws {
        let name = "png-oom-huge-text-chunk.png"
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertTrue("\(error)".contains("chunk data is too large"), "\(error)")
        }
    }

    /// A HEIC whose nclx box holds code points libheif 1.15 does not accept: libheif handed
    /// over a profile and an error, and the profile leaked (52 bytes, LeakSanitizer in the heic
    /// target). The leak itself shows only under LeakSanitizer (`tools/fuzz/run.sh heic` with
    /// this file as the corpus); here the file must give an image or one clean error.
    func testHEICWithUnknownNclxCodePointsDecodesOrFailsCleanly() throws {
        let name = "heic-leak-nclx-unknown-code-points.heic"
        do {
            let image = try ImageIO.decode(Self.fuzzInput(name), name: name)
            XCTAssertGreaterThan(image.pixelCount, 0)
        } catch let error as ImageError {
            XCTAssertTrue(error.description.hasPrefix(name + ": "), error.description)
        }
    }

    /// A 1.4 KB HEIC whose overlay primary declares a 42926x59405 canvas (the fixture's name
    /// says alpha: its alpha reference misled the first diagnosis): with libheif's side limit
    /// raised to 65536, libheif 1.15 allocated 2.5 GB and crashed in a memset (gpustyle died
    /// with SIGSEGV; the heic target saw the allocation). libheif's own 32768 limit refused it;
    /// heif_boxes.c's canvas check now refuses it first.
    func testHEICWithAHugeOverlayCanvasIsRefusedNotACrash() throws {
        let name = "heic-crash-huge-alpha-image.heic"
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertTrue("\(error)".hasPrefix(name + ": unsupported HEIC"), "\(error)")
        }
    }

    /// A HEIC whose overlay primary has a 64x64 'ispe' but declares a 26990x26112 canvas (made
    /// by the heic target, rebuilt by tools/make_heic_derived_fixtures.py): libheif 1.15 filled
    /// a 4.1 GB canvas for the 901-byte file before cropping it, and the target ran out of memory.
    /// The side limit is now the ispe's, so libheif refuses the canvas before allocating it.
    func testHEICOverlayCanvasBeyondItsIspeIsRefusedBeforeItsAllocation() throws {
        let name = "heic-oom-overlay-canvas-beyond-ispe.heic"
        let before = Self.peakResidentBytes()
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertTrue("\(error)".hasPrefix(name + ": unsupported HEIC"), "\(error)")
            XCTAssertTrue("\(error)".contains("26990x26112"), "\(error)")
        }
        // The canvas is 2.1 GB of RGB at least: the process's peak must not have come near it.
        XCTAssertLessThan(Self.peakResidentBytes() - before, 1 << 30)
    }

    /// A grid listing itself among its tiles (the heic target's mutation of grid.heic, rebuilt by
    /// tools/make_heic_derived_fixtures.py): libheif 1.15 recursed into it without end, a canvas
    /// a level, past 2 GB. heif_boxes.c refuses a derived image among a derived image's inputs.
    func testHEICGridListingItselfIsRefusedBeforeDecoding() throws {
        let name = "heic-oom-grid-lists-itself.heic"
        let before = Self.peakResidentBytes()
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertEqual("\(error)", name + ": unsupported HEIC: item 1 (grid) is derived from item 1 (grid), not from a coded image")
        }
        XCTAssertLessThan(Self.peakResidentBytes() - before, 1 << 30)
    }

    /// An overlay whose input is an item of an unknown type ('hvc0', the smoke run's mutation of
    /// overlay.heic): libheif 1.15 failed an assertion and aborted the process (SIGABRT).
    func testHEICOverlayOfAnItemOfUnknownTypeIsRefusedNotAnAbort() throws {
        let name = "heic-abort-overlay-of-unknown-item.heic"
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertEqual("\(error)", name + ": unsupported HEIC: item 1 (iovl) is derived from item 2 (hvc0), not from a coded image")
        }
    }

    /// The same overlay with its 'dimg' box declaring 4,878 bytes inside a 26-byte 'iref' (the
    /// long heic run's mutation): libheif 1.15 still read the reference and aborted; the box
    /// reader, which did not, had let it through. What does not parse is now refused.
    func testHEICReferencesBeyondTheirBoxAreRefusedNotAnAbort() throws {
        let name = "heic-abort-references-beyond-their-box.heic"
        XCTAssertThrowsError(try ImageIO.decode(Self.fuzzInput(name), name: name)) { error in
            XCTAssertEqual("\(error)", name + ": unsupported HEIC: its item references ('iref') do not parse")
        }
    }

    /// The pixel limit covers what libheif decodes, not only what it shows: pillow-heif's
    /// plain.heic is coded 64x64 and cropped ('clap') to 64x48.
    func testHEICPixelLimitCountsTheCodedPictureBeforeItsCrop() throws {
        let data = try ImageHEICWebPTests.data("plain.heic")
        let shown = try ImageIO.decode(data, name: "plain.heic", limits: DecodeLimits(maxPixels: 64 * 64))
        XCTAssertEqual([shown.width, shown.height], [64, 48])
        XCTAssertThrowsError(try ImageIO.decode(data, name: "plain.heic", limits: DecodeLimits(maxPixels: 64 * 48))) { error in
            XCTAssertTrue("\(error)".contains("64x64"), "\(error)")
        }
    }

    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
