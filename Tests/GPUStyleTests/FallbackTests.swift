import Foundation
import XCTest
@testable import GPUStyle

/// A GPU failure is not the user's failure: under `auto` the work is re-run on the CPU with a
/// warning; under `--device gpu` it is a clear error. The device-lost failure comes from the
/// test hook `ComputeOptions.fault` (the binary's GPUSTYLE_VULKAN_FAULT=device-lost), which
/// makes every submit fail.
final class FallbackTests: VulkanTestCase {
    func testDeviceLostMidRunFallsBackToTheCPU() throws {
        let model = try StyleModel.bundled()
        let vulkan = try VulkanBackend(context: context, weights: model.convolutions)
        let cpu = CPUBackend(weights: model.convolutions)
        let fallback = FallbackBackend(primary: vulkan, fallback: { cpu })
        var warnings: [String] = []
        fallback.warn = { warnings.append($0) }

        let fixture = try Fixtures.tensors("network/astronaut.gpsw")
        let photo = NetworkTests.image(from: fixture["input"]!)
        let stylizer = Stylizer(model: model, backend: fallback)
        let mix = try StyleMix(style: 2)
        let before = try stylizer.stylize(photo, mix: mix)  // the GPU works

        context.setFault(.deviceLost)
        defer { context.setFault(nil) }
        let after = try stylizer.stylize(photo, mix: mix)  // fails on the GPU, re-runs on the CPU
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssert(warnings.first?.contains("VK_ERROR_DEVICE_LOST") == true, "\(warnings)")
        XCTAssertTrue(fallback.name.hasPrefix("cpu"), fallback.name)
        assertClose(after.rgb, fixture["style_2"]!.values, tolerance: NetworkTests.tolerance, "after fallback")
        assertClose(before.rgb, fixture["style_2"]!.values, tolerance: NetworkTests.tolerance, "before the fault")

        _ = try stylizer.stylize(photo, mix: mix)  // stays on the CPU: no second warning
        XCTAssertEqual(warnings.count, 1)
    }

    /// The face detector hands its input to the backend as a writer
    /// (`NetworkBackend.run(_:writingInput:outputs:)`): on Vulkan through the protocol's array
    /// default, and a `FallbackBackend` forwards it, re-running the writer on the CPU path's own
    /// buffer after a lost device. The faces are the CPU path's, before and after the fault.
    func testFaceDetectionFallsBackWithItsInputWriter() throws {
        let photo = try ImageIO.read(path: FaceFixtures.root.appendingPathComponent("00-astronaut.jpg").path)
        let expected = try FaceDetector(backend: CPUBackend(weights: [])).detect(photo)
        XCTAssertEqual(expected.count, 1, "\(expected)")
        let fallback = FallbackBackend(primary: try VulkanBackend(context: context, weights: []), fallback: { CPUBackend(weights: []) })
        var warnings: [String] = []
        fallback.warn = { warnings.append($0) }
        let detector = try FaceDetector(backend: fallback)
        func assertSameFaces(_ faces: [Face], _ label: String) {
            XCTAssertEqual(faces.count, expected.count, label)
            for (face, reference) in zip(faces, expected) {
                XCTAssertGreaterThan(face.overlap(reference), 0.999, label)
                XCTAssertEqual(face.confidence, reference.confidence, accuracy: 1e-4, label)
            }
        }
        assertSameFaces(try detector.detect(photo), "on Vulkan")
        XCTAssertTrue(warnings.isEmpty, "\(warnings)")

        context.setFault(.deviceLost)
        defer { context.setFault(nil) }
        assertSameFaces(try detector.detect(photo), "after falling back")
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(fallback.name.hasPrefix("cpu"), fallback.name)
    }

    /// With the fault on from the start, the device is lost while the weights are uploaded:
    /// `--device gpu` cannot start, which is status 2 with one line, and no fallback.
    func testExplicitGPURequestReportsALostDevice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-fault-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.png").path
        let photo = Fixtures.root.appendingPathComponent("photos/astronaut.png").path
        let result = try TestProcess.gpustyle(["--style", "2", "--device", "gpu", photo, output],
                                              environment: ["GPUSTYLE_VULKAN_FAULT": "device-lost"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssert(result.stderr.contains("VK_ERROR_DEVICE_LOST"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
