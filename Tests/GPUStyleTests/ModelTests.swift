import Foundation
import XCTest
@testable import GPUStyle

final class ModelTests: XCTestCase {
    /// The bundled weights are exactly the file tools/make_weights.py wrote (checksum in
    /// Weights/NOTICE), and every tensor has the shape the network expects.
    func testBundledWeightsChecksumAndShapes() throws {
        let data = Data(base64Encoded: EmbeddedWeights.base64["multistyle26"]!)!
        XCTAssertEqual(try SHA256Digest.hex(data), "3804b9af6b21937bdc1335d7c7b96beb96bc02499b3cced80d8fd24353c57364")
        let tensors = try TensorFile.parse(data)
        XCTAssertEqual(tensors.count, 54)
        XCTAssertEqual(tensors.values.map(\.values.count).reduce(0, +), 166_104)
        XCTAssertEqual(tensors["contract.0.w"]?.shape, [32, 3, 9, 9])
        XCTAssertEqual(tensors["expand.2.w"]?.shape, [3, 4, 9, 9])
        XCTAssertEqual(tensors["res.5.1.norm.gamma"]?.shape, [26, 32])
        let model = try StyleModel(tensors: tensors)
        XCTAssertEqual(model.convolutions.count, StyleNetwork.layers.count)
    }

    func testWrongShapeIsRejected() throws {
        var tensors = try TensorFile.parse(Data(base64Encoded: EmbeddedWeights.base64["multistyle26"]!)!)
        tensors["expand.1.w"] = NamedTensor(name: "expand.1.w", shape: [4, 8, 3, 2], values: [Float](repeating: 0, count: 192))
        XCTAssertThrowsError(try StyleModel(tensors: tensors)) { XCTAssert("\($0)".contains("expand.1.w")) }
    }

    func testTruncatedTensorFileIsRejected() throws {
        let data = Data(base64Encoded: EmbeddedWeights.base64["multistyle26"]!)!
        XCTAssertThrowsError(try TensorFile.parse(data.prefix(1000)))
        XCTAssertThrowsError(try TensorFile.parse(Data("nope".utf8)))
    }

    func testStyleMixParsing() throws {
        XCTAssertEqual(try StyleMix(parsing: "2").weights[2], 1)
        let blend = try StyleMix(parsing: "3:0.5,12:0.5")
        XCTAssertEqual(blend.weights[3], 0.5)
        XCTAssertEqual(blend.weights[12], 0.5)
        XCTAssertEqual(try StyleMix(parsing: "1:1,2:3").weights[2], 0.75, "weights are normalised")
        for bad in ["26", "-1", "x", "3:", "3:abc", "3:0.5,,4", "", "1:-2", "0:0"] {
            XCTAssertThrowsError(try StyleMix(parsing: bad), "'\(bad)' should be refused")
        }
    }

    func testBlendMixesNormParameters() throws {
        let model = try StyleModel.bundled()
        let a = model.normParameters(for: try StyleMix(style: 3))
        let b = model.normParameters(for: try StyleMix(style: 12))
        let mix = model.normParameters(for: try StyleMix(parsing: "3:0.5,12:0.5"))
        for i in 0..<a.count { XCTAssertEqual(mix[i], 0.5 * a[i] + 0.5 * b[i], accuracy: 1e-6) }
    }
}
