import XCTest
@testable import GPUStyle

/// Tiled execution equals the whole-image plan (within 1/255 for every pixel, the bar;
/// the 16-bit block stores move it by < 5e-4) on both paths, with tiles forced small on small
/// photos so that every pass runs many tiles with halos, reflections at every border, odd
/// sizes and both ways of handling contract.1, and with real tile sizes on a larger photo.
final class TiledStylizerTests: XCTestCase {
    static let tolerance: Float = 1.0 / 255
    /// Scratch small enough for 16-32 pixel tiles on these photos.
    static let tinyScratch = 400_000

    static func photo(_ name: String, width: Int? = nil, height: Int? = nil, alpha: Bool = false) throws -> Image {
        let full = try ImageIO.read(path: Fixtures.root.appendingPathComponent("photos/\(name).png").path)
        let w = width ?? full.width, h = height ?? full.height
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 { for y in 0..<h { for x in 0..<w { rgb[(c * h + y) * w + x] = full.rgb[(c * full.height + y) * full.width + x] } } }
        let mask = alpha ? (0..<(w * h)).map { Float($0 % 7) / 6 } : nil
        return Image(width: w, height: h, rgb: rgb, alpha: mask)
    }

    func compare(_ backend: NetworkBackend, _ image: Image, mix: StyleMix, strength: Float = 1, preserveColor: Bool = false,
                 keepsContraction: Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let model = try StyleModel.bundled()
        let stylizer = Stylizer(model: model, backend: backend)
        let whole = try stylizer.stylize(image, mix: mix, strength: strength, preserveColor: preserveColor)
        let layout = TilingLayout(keepsContraction: keepsContraction, scratchBytes: Self.tinyScratch)
        let tiler = TiledStylizer(backend: backend, model: model, layout: layout)
        let tiled = try tiler.stylize(image, mix: mix, strength: strength, preserveColor: preserveColor)
        XCTAssertGreaterThan(tiler.tiles, 18 * 4, "every pass should run several tiles", file: file, line: line)
        XCTAssertEqual(tiled.width, image.width, file: file, line: line)
        XCTAssertEqual(tiled.height, image.height, file: file, line: line)
        XCTAssertEqual(tiled.alpha, image.alpha, file: file, line: line)
        let worst = zip(whole.rgb, tiled.rgb).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, Self.tolerance, "tiled vs whole image", file: file, line: line)
        // Far tighter in practice: a wrong halo or reflection shows as errors of 0.05 and more.
        XCTAssertLessThan(worst, 1.5e-3, file: file, line: line)
    }

    func testCPUTilesEqualTheWholeImage() throws {
        let model = try StyleModel.bundled()
        let cpu = CPUBackend(weights: model.convolutions)
        try compare(cpu, Self.photo("coffee"), mix: try StyleMix(style: 2), keepsContraction: true)
        // Odd sizes (the network's padding to a multiple of 4), a blend, strength, alpha, and
        // contract.0 computed a third time instead of keeping contract.1.
        try compare(cpu, Self.photo("chelsea", width: 127, height: 97, alpha: true), mix: try StyleMix(parsing: "3:0.5,12:0.5"),
                    strength: 0.6, keepsContraction: false)
        // The photo's colours kept, alone and with a mix (the photo kept to the end in tiles too).
        try compare(cpu, Self.photo("coffee", width: 127, height: 93), mix: try StyleMix(style: 7), preserveColor: true,
                    keepsContraction: true)
        try compare(cpu, Self.photo("chelsea", width: 101, height: 90), mix: try StyleMix(style: 7), strength: 0.7,
                    preserveColor: true, keepsContraction: false)
    }

    /// The budget's own layout (~100 MB tiles: whole maps at this size) on a photo whose 8x8
    /// pixel blocks have hard edges: the case where fp16 stores moved pixels by 0.0057.
    func testRealTileSizesOnASharpPhoto() throws {
        let small = try Self.photo("coffee")
        let w = small.width * 8, h = small.height * 8
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 { for y in 0..<h { for x in 0..<w { rgb[(c * h + y) * w + x] = small.rgb[(c * small.height + y / 8) * small.width + x / 8] } } }
        let model = try StyleModel.bundled()
        let cpu = CPUBackend(weights: model.convolutions)
        let stylizer = Stylizer(model: model, backend: cpu)
        let image = Image(width: w, height: h, rgb: rgb)
        let whole = try stylizer.stylize(image, mix: try StyleMix(style: 5))
        let tiled = try stylizer.stylize(image, mix: try StyleMix(style: 5),
                                         layout: TilingLayout(keepsContraction: true, scratchBytes: TilingLayout.preferredScratch))
        let worst = zip(whole.rgb, tiled.rgb).map { abs($0 - $1) }.max()!
        XCTAssertLessThan(worst, 1.5e-3)
    }

    func testVulkanTilesEqualTheWholeImage() throws {
        let context = try VulkanTesting.context()
        let backend = try VulkanBackend(context: context, weights: try StyleModel.bundled().convolutions)
        try compare(backend, Self.photo("astronaut", width: 90, height: 70), mix: try StyleMix(style: 7), keepsContraction: true)
        try compare(backend, Self.photo("coffee", width: 101, height: 66), mix: try StyleMix(style: 19), strength: 0.5,
                    keepsContraction: false)
        VulkanTesting.assertNoValidationErrors(context)
    }

    func testTheBudgetPicksWholeImageOrTiles() throws {
        // 3 MP: ~1.4 GB as a whole-image plan, ~100 MB in tiles.
        let image = Image(width: 2000, height: 1500, rgb: [Float](repeating: Float(128) / 255, count: 3 * 2000 * 1500))
        let plan = try StyleModel.bundled().plan(height: 1500, width: 2000)
        XCTAssertNil(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: 2 << 30), "fits whole")
        let roomy = try XCTUnwrap(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: 1 << 30))
        XCTAssertTrue(roomy.keepsContraction)
        XCTAssertEqual(roomy.scratchBytes, TilingLayout.preferredScratch)
        XCTAssertLessThanOrEqual(roomy.estimatedPeak, 1 << 30)
        // Without room for contract.1's 16 bytes per pixel, contract.0 is recomputed instead.
        let tight = try XCTUnwrap(try TilingLayout.choose(for: image, plan: plan, strength: 1,
                                                          budget: TilingLayout.programBytes + 3_000_000 * 16 + 20 << 20))
        XCTAssertFalse(tight.keepsContraction)
        XCTAssertThrowsError(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: 80 << 20)) { error in
            XCTAssert("\(error)".contains("--max-memory"), "\(error)")
        }
    }

    /// The CPU path never allocates the padded copy of a fused convolution's input (contract.1's
    /// is 128 bytes per pixel), and the budget counts what it allocates: a 3 MP image that the
    /// plan's sizes would send to tiles runs whole on the CPU.
    func testTheCPUBudgetCountsOnlyWhatItAllocates() throws {
        let model = try StyleModel.bundled()
        let image = Image(width: 2000, height: 1500, rgb: [Float](repeating: 0.5, count: 3 * 2000 * 1500))
        let plan = try model.plan(height: 1500, width: 2000)
        let cpu = CPUBackend(weights: model.convolutions)
        let planBytes = 4 * plan.bufferFloats.values.reduce(0, +), cpuBytes = 4 * cpu.bufferFloats(for: plan).values.reduce(0, +)
        XCTAssertLessThan(cpuBytes, planBytes - 100 * 3_000_000, "the full-resolution padded copy is not allocated")
        // The smallest budget (to 1 MB) that runs the image whole with the CPU's sizes.
        var low = 0, high = 8 << 30
        while high - low > 1 << 20 {
            let middle = (low + high) / 2
            if try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: middle,
                                       bufferFloats: cpu.bufferFloats(for: plan)) == nil { high = middle } else { low = middle }
        }
        XCTAssertNotNil(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: high), "the plan's sizes: tiles")
        XCTAssertNotNil(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: high + (planBytes - cpuBytes) - (2 << 20)))
        XCTAssertNil(try TilingLayout.choose(for: image, plan: plan, strength: 1, budget: high + (planBytes - cpuBytes)))
    }

    func testPictureStoreIsLosslessForDecodedSamples() throws {
        let photo = try Self.photo("coffee")
        XCTAssertEqual(TensorStore.Format.compact(photo.rgb), .unorm8)
        let store = try TensorStore(image: photo, format: .unorm8, name: "test")
        var back = [Float](repeating: 0, count: photo.rgb.count)
        back.withUnsafeMutableBufferPointer { store.load(0, photo.rgb.count, into: $0.baseAddress!) }
        XCTAssertEqual(back, photo.rgb)
        XCTAssertEqual(TensorStore.Format.compact([0, Float(1000) / 65535, 1]), .unorm16)
        XCTAssertEqual(TensorStore.Format.compact([0.1234567]), .float)
    }
}
