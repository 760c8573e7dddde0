import Foundation
import XCTest
@testable import GPUStyle

/// Shared helpers of the Vulkan tests (kept in a Vulkan*Tests file so they travel with them).
enum VulkanTesting {
    /// The device the Vulkan tests run on: GPUSTYLE_TEST_VULKAN_DEVICE=index (an index from
    /// `gpustyle devices`; tools/gpu-report --gpu-id sets it), else the library's own choice
    /// (discrete > integrated > virtual > cpu). Only the tests read it: the library reads no
    /// environment.
    static var deviceIndex: Int? { ProcessInfo.processInfo.environment["GPUSTYLE_TEST_VULKAN_DEVICE"].flatMap { Int($0) } }

    /// A fresh context with the validation layer on, or a skip when this machine has no Vulkan.
    static func context() throws -> VulkanContext {
        do {
            return try VulkanContext(deviceIndex: deviceIndex, validation: true)
        } catch let error as VulkanError {
            if case .loaderMissing = error { throw XCTSkip("no Vulkan loader: \(error)") }
            if case .noDevice = error { throw XCTSkip("no Vulkan device") }
            throw error
        }
    }

    static func assertNoValidationErrors(_ context: VulkanContext, file: StaticString = #filePath, line: UInt = #line) {
        let errors = context.validationErrors
        XCTAssertTrue(errors.isEmpty, "validation layer reported:\n" + errors.prefix(5).joined(separator: "\n"),
                      file: file, line: line)
    }

    static func fixture(_ path: String) throws -> [String: NamedTensor] {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw XCTSkip("test fixtures are not bundled")
        }
        let url = root.appendingPathComponent(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCTSkip("fixture \(path) is missing") }
        return try TensorFile.parse(Data(contentsOf: url))
    }

    static func fixtures(prefix: String) throws -> [String] {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw XCTSkip("test fixtures are not bundled")
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("ops").path)) ?? []
        let names = files.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".gpsw") }.sorted()
        if names.isEmpty { throw XCTSkip("no \(prefix)*.gpsw fixtures yet") }
        return names.map { "ops/\($0)" }
    }


    /// Max |a - b| must stay within `relative` of the reference's magnitude (at least 1).
    static func assertClose(_ actual: [Float], _ expected: [Float], relative: Float = 1e-4, _ message: String,
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.count, expected.count, message, file: file, line: line)
        let magnitude = max(1, expected.map(abs).max() ?? 0)
        var worst: Float = 0, worstIndex = 0
        for i in 0..<min(actual.count, expected.count) {
            let d = abs(actual[i] - expected[i])
            if !(d <= worst) { worst = d; worstIndex = i }  // also catches NaN
        }
        XCTAssertLessThanOrEqual(worst, relative * magnitude,
                                 "\(message): max error \(worst) at \(worstIndex) (got \(actual[worstIndex]), want \(expected[worstIndex]))",
                                 file: file, line: line)
    }

    static func random(_ count: Int, seed: UInt64, range: ClosedRange<Float> = -1...1) -> [Float] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17  // xorshift64
            return range.lowerBound + (range.upperBound - range.lowerBound) * Float(state >> 40) / Float(1 << 24)
        }
    }
}

final class VulkanContextTests: XCTestCase {
    func testDevicesAreListed() throws {
        let devices: [VulkanDeviceInfo]
        do { devices = try VulkanContext.devices() } catch VulkanError.loaderMissing { throw XCTSkip("no Vulkan loader") }
        XCTAssertFalse(devices.isEmpty)
        for (i, device) in devices.enumerated() {
            XCTAssertEqual(device.index, i)
            XCTAssertFalse(device.name.isEmpty)
            XCTAssertGreaterThan(device.maxStorageBufferRange, 0)
            XCTAssertTrue(device.apiVersion.hasPrefix("1."), device.apiVersion)
        }
    }

    func testContextWithValidationStartsClean() throws {
        let context = try VulkanTesting.context()
        XCTAssertTrue(context.validationEnabled)
        XCTAssertFalse(context.info.name.isEmpty)
        // Automatic choice prefers real GPUs over CPU implementations.
        let best = try VulkanContext.devices().map(\.kind.preference).min()
        XCTAssertEqual(context.info.kind.preference, best)
        VulkanTesting.assertNoValidationErrors(context)
    }

    func testDeviceIndexOutOfRange() throws {
        let context = try VulkanTesting.context()
        let devices = try VulkanContext.devices()
        XCTAssertThrowsError(try VulkanContext(deviceIndex: devices.count, validation: true)) { error in
            XCTAssertEqual(error as? VulkanError, .deviceIndexOutOfRange(index: devices.count, count: devices.count))
            XCTAssertTrue("\(error)".contains("out of range"), "\(error)")
        }
        VulkanTesting.assertNoValidationErrors(context)
    }

    func testMissingLoaderIsACleanError() throws {
        let options = ComputeOptions(validation: true, vulkanLoader: "/nonexistent/libvulkan.so.1")
        XCTAssertThrowsError(try VulkanContext.devices(options: options)) { error in
            XCTAssertEqual(error as? VulkanError, .loaderMissing(path: "/nonexistent/libvulkan.so.1"))
            XCTAssertEqual("\(error)", "Vulkan loader /nonexistent/libvulkan.so.1 not found")
        }
        XCTAssertThrowsError(try VulkanContext(options: options)) { error in
            XCTAssertEqual(error as? VulkanError, .loaderMissing(path: "/nonexistent/libvulkan.so.1"))
        }
        // Under auto the network and the warp fall back to the CPU; under gpu the error is thrown.
        let weights = [ConvolutionWeights(outputChannels: 1, inputChannels: 1, kernel: 3, values: [Float](repeating: 0.1, count: 9))]
        let choice = try ComputeChoice<NetworkBackend>.choose(options, convolutions: weights)
        XCTAssertTrue(choice.stage is CPUBackend, choice.stage.name)
        XCTAssertEqual(choice.warnings.count, 1)
        let warp = try ComputeChoice<PerspectiveWarper>.choose(options)
        XCTAssertTrue(warp.stage is CPUPerspectiveWarper)
        XCTAssertNil(warp.device)
        var gpu = options
        gpu.device = .gpu(index: nil)
        XCTAssertThrowsError(try ComputeChoice<NetworkBackend>.choose(gpu, convolutions: weights))
        XCTAssertThrowsError(try ComputeChoice<PerspectiveWarper>.choose(gpu))
        XCTAssertEqual("\(VulkanError.loaderMissing(path: "libvulkan.so.1"))", "Vulkan loader libvulkan.so.1 not found")
    }

    func testInjectedDeviceLostSurfacesAsVulkanError() throws {
        let context = try VulkanTesting.context()
        let weights = [ConvolutionWeights(outputChannels: 1, inputChannels: 1, kernel: 3, values: [Float](repeating: 0.1, count: 9))]
        let backend = try VulkanBackend(context: context, weights: weights)
        let shape = ExecutionPlan.DenseShape(channels: 1, height: 8, width: 8)
        let pad = ExecutionPlan.Pad(source: .input, destination: .padded, sourceShape: shape, upsample: false, padding: 1, split: false)
        let plan = ExecutionPlan(steps: [.pad(pad)], bufferFloats: [.input: shape.floatCount, .padded: pad.floatCount],
                                 inputShape: shape, output: .padded, outputShape: shape)
        let input = [Float](repeating: 1, count: shape.floatCount)

        context.setFault(.deviceLost)
        XCTAssertThrowsError(try backend.run(plan, inputs: [.input: input], normParameters: [])) { error in
            guard let error = error as? VulkanError else { return XCTFail("not a VulkanError: \(error)") }
            XCTAssertTrue(error.isDeviceLost)
            XCTAssertEqual("\(error)", "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST")
        }
        context.setFault(nil)
        // The hook does not break the backend: the next run works.
        let output = try backend.run(plan, inputs: [.input: input], normParameters: [])
        XCTAssertEqual(output[pad.rowStride + 1], 1)
        VulkanTesting.assertNoValidationErrors(context)
    }

    func testErrorMessagesNameTheResult() {
        XCTAssertEqual("\(VulkanError.failed(call: "vkCreateDevice", result: -3))", "vkCreateDevice failed: VK_ERROR_INITIALIZATION_FAILED")
        XCTAssertEqual("\(VulkanError.noDevice)", "no Vulkan device found")
        XCTAssertEqual("\(VulkanError.deviceIndexOutOfRange(index: 3, count: 1))", "Vulkan device index 3 out of range (1 device available)")
    }
}

/// Base class for tests that run on a validating Vulkan context: any validation message the
/// test caused fails it in `tearDown`.
class VulkanTestCase: XCTestCase {
    var context: VulkanContext!

    override func setUpWithError() throws {
        context = try VulkanTesting.context()
    }

    override func tearDown() {
        if let context { VulkanTesting.assertNoValidationErrors(context) }
        context = nil
    }
}
