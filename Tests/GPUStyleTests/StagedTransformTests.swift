import XCTest
@testable import GPUStyle

/// `StagedTransform`: the arbitrary-style transform layer by layer over one-byte maps, in tiles,
/// against the whole-image plan of the same graph on the same backend, and at sizes the peer
/// never runs (any size, in tiles under a memory budget).
final class StagedTransformTests: GraphOpTestCase {
    /// The first parity pair's content (384x384) and style vector.
    static func pair() throws -> (content: [Float], vector: [Float]) {
        let (content, _, _) = try ArbitraryStyleParityTests.doubledInput("content_00.png")
        let vector = Array(try Fixtures.tensors("arbitrary-style/vectors.gpsw")["style_vectors"]!.values[0..<100])
        return (content, vector)
    }

    func testTheChainIsFoundInTheTransform() throws {
        let chain = try QuantizedChain(try ModelLibrary.builtin(ArbitraryStyle.builtInTransform).graph)
        // 3 contracting layers, 5 residual blocks of 2, 3 expanding layers.
        XCTAssertEqual(chain.layers.count, 16)
        XCTAssertEqual(chain.layers.map(\.outputChannels), [8, 16, 32] + [Int](repeating: 32, count: 10) + [16, 8, 3])
        XCTAssertEqual(chain.layers.filter { $0.norm != nil }.count, 13)
        XCTAssertEqual(chain.layers.filter { $0.residual != nil }.count, 5)
        XCTAssertEqual(chain.layers.map(\.upsample), [1, 1, 1] + [Int](repeating: 1, count: 10) + [2, 2, 1])
        XCTAssertNotNil(chain.layers.last!.final)
        // A graph that is not such a chain is refused with the node named.
        let predictor = try ModelLibrary.builtin(ArbitraryStyle.builtInPredictor).graph
        XCTAssertThrowsError(try QuantizedChain(predictor))
    }

    /// One tile, then tiles of a few thousand floats: every value equal to the whole-image plan's
    /// on each backend (its convolution sums each pixel's products in the same order on a tile
    /// as on the whole map; the statistics from level counts are exact), tiles or not.
    func testStagedEqualsTheWholeImagePlan() throws {
        let (content, vector) = try Self.pair()
        let model = try ModelLibrary.builtin(ArbitraryStyle.builtInTransform)
        let plan = try GraphLowering.lower(model.graph, input: .init(channels: 3, height: 384, width: 384))
        try forEachBackend { backend, name in
            let whole = try backend.run(plan, inputs: [.input: content, .parameters: vector], normParameters: [], affine: nil,
                                        outputs: [.result])[.result]!
            let staged = StagedTransform(backend: backend, chain: try QuantizedChain(model.graph))
            func run(_ tileFloats: Int) throws -> [Float] {
                staged.parameters.tileFloats = tileFloats
                let picture = try content.withUnsafeBufferPointer { try staged.picture($0, width: 384, height: 384) }
                return try staged.run(picture, width: 384, height: 384, styleVector: vector)
            }
            let one = try run(1 << 24)
            XCTAssertEqual(staged.tilesRun, 16, "one tile per layer")
            let tiled = try run(20_000)
            XCTAssertGreaterThan(staged.tilesRun, 16 * 20)
            XCTAssertEqual(tiled, one, "\(name): tiles change the result")
            let off = zip(one, whole).filter { $0 != $1 }.count
            let mean = zip(one, whole).map { abs($0 - $1) }.reduce(0, +) / Float(one.count)
            print("staged vs whole-image plan, \(name): \(off) of \(one.count) values differ, mean \(mean * 255)/255")
            XCTAssertEqual(off, 0, "\(name): the staged run differs from the whole-image plan")
        }
    }

    /// Sizes that are not multiples of 4 are reflected up and cropped back; the full-resolution
    /// call mixes and keeps colours like the 26-style network's; a budget below the maps fails.
    func testAnySizeUnderABudget() throws {
        let (_, vector) = try Self.pair()
        let source = try ImageIO.read(path: ArbitraryStyleTests.root.appendingPathComponent("preprocess_source.png").path)
        let style = try ArbitraryStyle(backend: CPUBackend(weights: []))
        let full = try style.stylizeFullResolution(source, styleVector: vector)
        XCTAssertEqual([full.width, full.height], [150, 100])
        XCTAssertTrue(full.rgb.allSatisfy { $0 >= 0 && $0 <= 1 && ($0 * 256).rounded() == $0 * 256 })
        // Not the photo, and not flat.
        let change = zip(full.rgb, source.rgb).map { abs($0 - $1) }.reduce(0, +) / Float(full.rgb.count)
        XCTAssertGreaterThan(change, 0.05)
        style.forcedTileFloats = 5_000
        let tiled = try style.stylizeFullResolution(source, styleVector: vector, memoryBudget: 256 << 20)
        XCTAssertGreaterThan(style.lastTileCount, 16 * 4)
        XCTAssertEqual(tiled.rgb, full.rgb)
        style.forcedTileFloats = nil
        let half = try style.stylizeFullResolution(source, styleVector: vector, strength: 0.5)
        for i in stride(from: 0, to: half.rgb.count, by: 97) {
            XCTAssertEqual(half.rgb[i], 0.5 * full.rgb[i] + 0.5 * source.rgb[i], accuracy: 1e-6)
        }
        // A 1024x768 picture under a budget that leaves a tile a quarter of its usual floats:
        // the tiles shrink by themselves and the result stays the same.
        let (w, h) = (1024, 768)
        var rgb = [Float](repeating: 0, count: 3 * w * h)
        for c in 0..<3 {
            for y in 0..<h { for x in 0..<w { rgb[(c * h + y) * w + x] = source.rgb[(c * 100 + y % 100) * 150 + x % 150] } }
        }
        let big = Image(width: w, height: h, rgb: rgb)
        let free = try style.stylizeFullResolution(big, styleVector: vector)
        let usual = style.lastTileCount
        let chain = try QuantizedChain(try ModelLibrary.builtin(ArbitraryStyle.builtInTransform).graph)
        let maps = StagedTransform(backend: CPUBackend(weights: []), chain: chain).mapBytes(width: w, height: h)
        let fixed = TilingLayout.programBytes + ArbitraryStyle.predictorBytes + max(4 * rgb.count + 3 * w * h, maps)
        let quarterTile = 5 * 4 * (StagedTransform.Parameters().tileFloats / 4)
        let snug = try style.stylizeFullResolution(big, styleVector: vector, memoryBudget: fixed + quarterTile)
        XCTAssertGreaterThan(style.lastTileCount, 2 * usual, "smaller tiles under the budget")
        XCTAssertEqual(snug.rgb, free.rgb)
        XCTAssertThrowsError(try style.stylizeFullResolution(source, styleVector: vector, memoryBudget: 100_000)) { error in
            XCTAssertTrue(error is TilingLayout.BudgetError, "\(error)")
        }
    }
}
