import Foundation
import XCTest
@testable import GPUStyle

/// The one device-choice mechanism: `ComputeChoice.choose` (start-up rules) and `DeviceFallback`
/// (the switch to the CPU during a run), on stand-in stages and on the colour conversion.
final class ComputeChoiceTests: VulkanTestCase {
    private struct Failure: Error, CustomStringConvertible { var description: String { "boom" } }

    /// A stand-in stage: which path it is, and whether it fails.
    private final class Stage {
        let name: String
        var fails = false
        var runs = 0
        init(_ name: String) { self.name = name }
        func run() throws -> String {
            runs += 1
            if fails { throw Failure() }
            return name
        }
    }

    func testFallbackSwitchesOnceAndForGood() throws {
        let gpu = Stage("gpu")
        var made = 0
        let fallback = DeviceFallback(primary: gpu, fallback: { made += 1; return Stage("cpu") }) { stage, error in
            "warning: \(stage.name) failed (\(error))"
        }
        var warnings: [String] = []
        fallback.warn = { warnings.append($0) }
        XCTAssertEqual(try fallback.run { try $0.run() }, "gpu")
        XCTAssertEqual(made, 0, "the CPU stage is made only when needed")
        gpu.fails = true
        XCTAssertEqual(try fallback.run { try $0.run() }, "cpu", "the failed work is re-run on the CPU")
        XCTAssertEqual(warnings, ["warning: gpu failed (boom)"])
        XCTAssertTrue(fallback.hasFallenBack)
        gpu.fails = false
        XCTAssertEqual(try fallback.run { try $0.run() }, "cpu", "no way back to the GPU")
        XCTAssertEqual(try fallback.run { try $0.run() }, "cpu")
        XCTAssertEqual(warnings.count, 1)
        XCTAssertEqual(made, 1)
        XCTAssertEqual(gpu.runs, 2)
    }

    func testFallbackFailureIsThrown() {
        let gpu = Stage("gpu"), cpu = Stage("cpu")
        gpu.fails = true
        cpu.fails = true
        let fallback = DeviceFallback(primary: gpu, fallback: { cpu }) { _, _ in "switch" }
        fallback.warn = { _ in }
        XCTAssertThrowsError(try fallback.run { try $0.run() }) { XCTAssertTrue($0 is Failure) }
    }

    /// The rules on this machine's devices: cpu never touches Vulkan; gpu runs the Vulkan maker
    /// without a fallback; auto takes a real GPU (with a fallback) or, with only a CPU
    /// implementation such as lavapipe, the CPU stage without a warning.
    func testRules() throws {
        var vulkanCalls: [Bool] = []
        func choose(_ device: DevicePreference) throws -> ComputeChoice<String> {
            try ComputeChoice<String>.choose(ComputeOptions(device: device), cpuName: "the test stage", vulkan: { context, fallback in
                vulkanCalls.append(fallback != nil)
                return "vulkan \(context.info.index)"
            }, cpu: { "cpu" })
        }
        let cpu = try choose(.cpu)
        XCTAssertEqual(cpu.stage, "cpu")
        XCTAssertEqual(cpu.reason, "--device cpu")
        XCTAssertNil(cpu.device)
        XCTAssertEqual(vulkanCalls, [])

        let gpu = try choose(.gpu(index: context.info.index))
        XCTAssertEqual(gpu.stage, "vulkan \(context.info.index)")
        XCTAssertEqual(gpu.device?.index, context.info.index)
        XCTAssertEqual(vulkanCalls, [false], "no fallback under --device gpu")
        XCTAssertThrowsError(try choose(.gpu(index: 99)))

        let auto = try choose(.auto)
        XCTAssertEqual(auto.warnings, [])
        let devices = try VulkanContext.devices()
        if devices.contains(where: { $0.kind != .cpu && $0.kind != .other }) {
            XCTAssertNotNil(auto.device)
            XCTAssertEqual(vulkanCalls.last, true, "a fallback under auto")
        } else {
            XCTAssertEqual(auto.stage, "cpu")
            XCTAssertTrue(auto.reason.contains("CPU implementation"), auto.reason)
            XCTAssertTrue(auto.reason.contains("the test stage"), auto.reason)
            XCTAssertEqual(vulkanCalls.count, 1, "lavapipe alone is not started")
        }
    }

    /// Without a GPU device node, auto takes the CPU stage without loading Vulkan (a missing
    /// loader is not even noticed); with one, the loader is consulted as before.
    func testAutoSkipsVulkanWithoutAGPUNode() throws {
        let dev = FileManager.default.temporaryDirectory.appendingPathComponent("gpustyle-dev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dev.appendingPathComponent("dri"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dev) }
        _ = FileManager.default.createFile(atPath: dev.appendingPathComponent("null").path, contents: nil)
        func choose() throws -> ComputeChoice<String> {
            let options = ComputeOptions(vulkanLoader: "/nonexistent/libvulkan.so.1", skipsVulkanWithoutGPUNode: true,
                                         deviceDirectory: dev.path)
            return try ComputeChoice<String>.choose(options, vulkan: { _, _ in "vulkan" }, cpu: { "cpu" })
        }
        XCTAssertEqual(GPUDeviceNodes.present(under: dev.path), [])
        let skipped = try choose()
        XCTAssertEqual(skipped.stage, "cpu")
        XCTAssertEqual(skipped.warnings, [], "Vulkan was not loaded, so its absence is not reported")
        XCTAssertTrue(skipped.reason.hasPrefix("no GPU device node"), skipped.reason)

        _ = FileManager.default.createFile(atPath: dev.appendingPathComponent("dri/renderD128").path, contents: nil)
        XCTAssertEqual(GPUDeviceNodes.present(under: dev.path), [dev.path + "/dri/renderD128"])
        let consulted = try choose()
        XCTAssertEqual(consulted.stage, "cpu")
        XCTAssertTrue(consulted.reason.hasPrefix("Vulkan unavailable"), consulted.reason)
        XCTAssertEqual(consulted.warnings.count, 1)

        XCTAssertTrue(ComputeOptions().skipsVulkanWithoutGPUNode, "on with the default loader")
        XCTAssertFalse(ComputeOptions(vulkanLoader: "/x/libvulkan.so.1").skipsVulkanWithoutGPUNode, "a named loader is consulted")
        var named = ComputeOptions()
        named.vulkanLoader = "/x/libvulkan.so.1"
        XCTAssertFalse(named.skipsVulkanWithoutGPUNode, "also when named after init (as the binary does)")
    }

    /// Without Vulkan, auto warns and takes the CPU stage; a start-up failure does the same.
    func testUnavailableAndFailingVulkan() throws {
        let missing = ComputeOptions(vulkanLoader: "/nonexistent/libvulkan.so.1")
        let choice = try ComputeChoice<String>.choose(missing, vulkan: { _, _ in "vulkan" }, cpu: { "cpu" })
        XCTAssertEqual(choice.stage, "cpu")
        XCTAssertEqual(choice.warnings, ["warning: " + choice.reason])
        XCTAssertTrue(choice.reason.hasPrefix("Vulkan unavailable"), choice.reason)

        guard try VulkanContext.devices().contains(where: { $0.kind != .cpu && $0.kind != .other }) else { return }
        let failing = try ComputeChoice<String>.choose(ComputeOptions(), vulkan: { _, _ in throw Failure() }, cpu: { "cpu" })
        XCTAssertEqual(failing.stage, "cpu")
        XCTAssertEqual(failing.warnings.count, 1)
        XCTAssertTrue(failing.reason.contains("failed to start (boom)"), failing.reason)
    }

    /// The colour conversion on a device that is lost mid-run: the frame is re-converted by the
    /// CPU kernel (identical output) with one warning, and the converter stays on the CPU.
    func testFrameConverterFallsBackOnDeviceLost() throws {
        let converter = FallbackFrameConverter(primary: try VulkanFrameConverter(context: context), fallback: { CPUFrameConverter() })
        var warnings: [String] = []
        converter.warn = { warnings.append($0) }
        let frame = VulkanFrameConverterTests.randomFrame(width: 37, height: 23, chroma: .yuv420(centred: true), seed: 5)
        let cpu = YUVConversion.image(from: frame, fullRange: false)
        XCTAssertTrue(converter.name.hasPrefix("vulkan"), converter.name)
        _ = try converter.image(from: frame, fullRange: false)
        XCTAssertEqual(warnings, [])

        context.setFault(.deviceLost)
        defer { context.setFault(nil) }
        let after = try converter.image(from: frame, fullRange: false)
        XCTAssertEqual(after.rgb, cpu.rgb)
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("VK_ERROR_DEVICE_LOST"), warnings[0])
        XCTAssertEqual(converter.name, "cpu")
        _ = try converter.image(from: frame, fullRange: false)
        XCTAssertEqual(warnings.count, 1)
    }
}

/// The rectangle detector's edge stages on the same mechanism (`ComputeChoice<EdgeStage>.choose`, `.fallback`).
final class EdgeStageChoiceTests: VulkanTestCase {
    func testEdgeStageFallsBackOnDeviceLost() throws {
        let stage = EdgeStage.fallback(DeviceFallback(primary: try .vulkan(context: context), fallback: { .cpu }) { _, error in
            "switched: \(error)"
        })
        guard case .fallback(let stages) = stage else { return XCTFail("not a fallback stage") }
        var warnings: [String] = []
        stages.warn = { warnings.append($0) }
        let image = try DetectVulkanTests.photo("rectangles/000.png")
        let cpu = DetectEdges.run(image)
        _ = try stage.run(image)
        XCTAssertFalse(stages.hasFallenBack)

        context.setFault(.deviceLost)
        defer { context.setFault(nil) }
        let after = try stage.run(image)
        XCTAssertEqual(after.magnitude, cpu.magnitude, "re-run by the CPU kernels")
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("VK_ERROR_DEVICE_LOST"), warnings[0])
        XCTAssertTrue(stages.hasFallenBack)
    }

    func testChooseFollowsTheRules() throws {
        guard case .cpu = try ComputeChoice<EdgeStage>.choose(ComputeOptions(device: .cpu)).stage else { return XCTFail("cpu") }
        guard case .vulkan = try ComputeChoice<EdgeStage>.choose(ComputeOptions(device: .gpu(index: context.info.index))).stage else {
            return XCTFail("gpu: the Vulkan stage alone")
        }
        let missing = try ComputeChoice<EdgeStage>.choose(ComputeOptions(vulkanLoader: "/nonexistent/libvulkan.so.1"))
        guard case .cpu = missing.stage else { return XCTFail("no Vulkan: cpu") }
        XCTAssertEqual(missing.warnings.count, 1)
        let auto = try ComputeChoice<EdgeStage>.choose(ComputeOptions())
        switch auto.stage {
        case .fallback: XCTAssertNotNil(auto.device)
        case .cpu: XCTAssertNil(auto.device)  // lavapipe only
        case .vulkan: XCTFail("auto always has a CPU fallback")
        }
    }
}

/// The perspective warp on the same mechanism (`ComputeChoice<PerspectiveWarper>.choose`,
/// `FallbackPerspectiveWarper`).
final class PerspectiveWarperChoiceTests: VulkanTestCase {
    private let quad = Quad(topLeft: Point(x: 21.3, y: 10.7), topRight: Point(x: 179.4, y: 15.1),
                            bottomRight: Point(x: 176.2, y: 100.9), bottomLeft: Point(x: 18.8, y: 104.2))

    /// A device lost mid-run: the warp is re-run by the CPU kernel (the CPU kernel's exact
    /// image) with one warning, and the warper stays on the CPU.
    func testWarpFallsBackOnDeviceLost() throws {
        let warper = FallbackPerspectiveWarper(primary: try VulkanPerspectiveWarper(context: context),
                                               fallback: { CPUPerspectiveWarper() })
        var warnings: [String] = []
        warper.warn = { warnings.append($0) }
        let source = WarpFixtures.procedural(width: 192, height: 108)
        let cpu = try PerspectiveCorrection.rectify(source, quad: quad, width: 96, height: 64, interpolation: .bicubic)
        XCTAssertTrue(warper.name.hasPrefix("vulkan"), warper.name)
        let before = try PerspectiveCorrection.rectify(source, quad: quad, width: 96, height: 64, interpolation: .bicubic, warper: warper)
        assertClose(before.rgb, cpu.rgb, tolerance: 2 / 255, "GLSL warp before the failure")
        XCTAssertEqual(warnings, [])
        XCTAssertFalse(warper.hasFallenBack)

        context.setFault(.deviceLost)
        defer { context.setFault(nil) }
        let after = try PerspectiveCorrection.rectify(source, quad: quad, width: 96, height: 64, interpolation: .bicubic, warper: warper)
        XCTAssertEqual(after.rgb, cpu.rgb, "re-run by the CPU kernel")
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].hasPrefix("warning: the GPU warp failed"), warnings[0])
        XCTAssertTrue(warnings[0].contains("VK_ERROR_DEVICE_LOST"), warnings[0])
        XCTAssertTrue(warper.hasFallenBack)
        XCTAssertTrue(warper.name.hasPrefix("cpu"), warper.name)
        _ = try PerspectiveCorrection.rectify(source, quad: quad, width: 96, height: 64, warper: warper)
        XCTAssertEqual(warnings.count, 1, "one warning for good")
    }

    /// cpu: the CPU kernel; gpu: the GLSL kernel alone, whose failures are thrown (here
    /// `ComputeOptions.fault` fails every submit); auto: a fallback warper on a real GPU, the CPU
    /// kernel with lavapipe alone.
    func testChooseFollowsTheRules() throws {
        XCTAssertTrue(try ComputeChoice<PerspectiveWarper>.choose(ComputeOptions(device: .cpu)).stage is CPUPerspectiveWarper)
        let lost = ComputeOptions(device: .gpu(index: context.info.index), fault: .deviceLost)
        let gpu = try ComputeChoice<PerspectiveWarper>.choose(lost)
        XCTAssertTrue(gpu.stage is VulkanPerspectiveWarper, gpu.stage.name)
        let source = WarpFixtures.procedural(width: 64, height: 48)
        XCTAssertThrowsError(try PerspectiveCorrection.rectify(source, quad: Quad(topLeft: Point(x: 2, y: 2), topRight: Point(x: 60, y: 3),
                                                                                  bottomRight: Point(x: 58, y: 44), bottomLeft: Point(x: 3, y: 45)),
                                                               width: 32, height: 24, warper: gpu.stage)) { error in
            XCTAssertTrue("\(error)".contains("VK_ERROR_DEVICE_LOST"), "\(error)")
        }
        let auto = try ComputeChoice<PerspectiveWarper>.choose(ComputeOptions())
        if auto.device == nil {
            XCTAssertTrue(auto.stage is CPUPerspectiveWarper, auto.stage.name)
            XCTAssertTrue(auto.reason.contains("the CPU kernel"), auto.reason)
        } else {
            XCTAssertTrue(auto.stage is FallbackPerspectiveWarper, auto.stage.name)
        }
    }
}
