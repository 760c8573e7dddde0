/// How one stylize run fits a memory budget: the whole-image plan when it fits, else tiles.
///
/// Estimates count what the run holds at its peak: the decoded picture, the result, the plan's
/// buffers or the tiled passes' stores and scratch, and the program itself. They are estimates
/// of the heap, checked against measured peak RSS by `tools/bench_memory.py` (docs/devices-and-memory.md, "Memory").
public struct TilingLayout: Sendable, Equatable, CustomStringConvertible {
    /// Keep contract.1's raw output (16 bytes per pixel) rather than computing the first 9x9
    /// convolution a third time.
    public var keepsContraction: Bool
    /// Bytes one tile's plan and transfer arrays may use; sets every pass's tile size.
    public var scratchBytes: Int
    /// Estimated peak bytes of the run.
    public var estimatedPeak: Int

    public init(keepsContraction: Bool, scratchBytes: Int, estimatedPeak: Int = 0) {
        self.keepsContraction = keepsContraction
        self.scratchBytes = scratchBytes
        self.estimatedPeak = estimatedPeak
    }

    public var description: String {
        "\(ByteCount.decimal(scratchBytes)) per tile, contract.1 \(keepsContraction ? "kept" : "recomputed"), "
            + "estimated peak \(ByteCount.decimal(estimatedPeak))"
    }

    /// Resident memory of the program itself (binary, libraries, weights, thread stacks):
    /// `gpustyle` peaked at 31 MB of RSS on a 128x96 photo (CPU path); a device's driver adds
    /// `DeviceMemoryLimits.driverBytes`.
    public static let programBytes = 40 << 20
    /// Below this, tiles get small enough that their halos cost more than the layers they feed
    /// (a 9x9 convolution's 8-pixel halo on a 64-pixel tile recomputes 27%).
    public static let minimumScratch = 16 << 20
    /// Tile scratch on the CPU path: 512x512 tiles of contract.0+1 fit, their halos recompute
    /// < 1%; tiles ran 1.11x the whole-image time at 4 MP, against 1.32x with 64 MB.
    public static let preferredScratch = 96 << 20
    /// Tile scratch on a device: less, because the device's buffers, staging and the driver
    /// (lavapipe alone holds ~100 MB) also count; keeps 12 MP within 40 bytes per pixel there
    /// (38.7 measured on lavapipe).
    public static let preferredDeviceScratch = 64 << 20

    public struct BudgetError: Error, CustomStringConvertible {
        public let width: Int
        public let height: Int
        public let needed: Int
        public let budget: Int
        public var description: String {
            "a \(width)x\(height) image needs at least \(ByteCount.decimal(needed)) to stylize, "
                + "more than the memory budget of \(ByteCount.decimal(budget)) (--max-memory)"
        }
    }

    /// nil when the whole-image `plan` fits `budget`; else the tiled layout, or `BudgetError`
    /// when not even small tiles fit. `bufferFloats`: what the backend allocates for the plan
    /// (`NetworkBackend.bufferFloats(for:)`; nil: the plan's sizes).
    public static func choose(for image: Image, plan: ExecutionPlan, strength: Float, budget: Int,
                              device: DeviceMemoryLimits? = nil,
                              bufferFloats: [ExecutionPlan.Buffer: Int]? = nil) throws -> TilingLayout? {
        let decoded = 4 * (image.rgb.count + (image.alpha?.count ?? 0))
        let result = decoded
        let buffers = bufferFloats ?? plan.bufferFloats
        let planBytes = 4 * buffers.values.reduce(0, +)
        // The padded input and the downloaded output exist as arrays beside the plan buffers
        // (and once more in a device's staging memory).
        let transfers = 2 * 4 * (plan.bufferFloats[.input]! + plan.bufferFloats[plan.output]!)
        let program = programBytes + (device?.driverBytes ?? 0)
        let whole = program + decoded + result + planBytes + transfers
        let largestPlane = plan.steps.map(\.largestPlaneFloats).max() ?? 0
        let fitsDevice = device.map { planBytes <= $0.memoryBytes && 4 * largestPlane <= $0.bindingBytes } ?? true
        if whole <= budget && fitsDevice { return nil }

        let h = roundUp(image.height, StyleNetwork.sizeMultiple), w = roundUp(image.width, StyleNetwork.sizeMultiple)
        let picture = TensorStore.bytes(channels: 3, height: image.height, width: image.width,
                                        format: TensorStore.Format.compact(image.rgb))
        let quarter = 32 * (h / 4) * (w / 4) * 2, half = (h / 2) * (w / 2) * 2
        let kept = strength == 1 ? 0 : picture
        func peak(keeping: Bool) -> Int {
            program + max(decoded + picture,                               // compacting the picture
                          keeping ? max(picture + 32 * half, kept + 32 * half + quarter)  // contract.1 kept, then contract.2
                                  : picture + quarter,                     // contract.0 three times
                          kept + 3 * quarter,                              // residual blocks
                          kept + quarter + 8 * half,                       // expand.0
                          kept + 8 * half + result)                        // expand.1-2 and the result
        }
        for keeping in [true, false] {
            let fixed = peak(keeping: keeping)
            if fixed + minimumScratch <= budget {
                let preferred = device == nil ? preferredScratch : preferredDeviceScratch
                let scratch = min(preferred, budget - fixed, device?.memoryBytes ?? .max)
                return TilingLayout(keepsContraction: keeping, scratchBytes: scratch, estimatedPeak: fixed + scratch)
            }
        }
        throw BudgetError(width: image.width, height: image.height, needed: peak(keeping: false) + minimumScratch, budget: budget)
    }
}

extension ExecutionPlan.Step {
    /// Floats of the largest channel plane the step binds.
    var largestPlaneFloats: Int {
        switch self {
        case .pad(let pad): max(pad.sourceShape.planeStride, pad.planeStride)
        case .convolution(let conv): max(conv.input.planeStride, conv.outputShape.planeStride)
        case .instanceNormStatistics(let stats): stats.shape.planeStride
        case .instanceNormApply(let apply): apply.shape.planeStride
        case .instanceNormMoments(let moments): moments.shape.planeStride
        case .invertedResidual(let block): block.parts.map(\.largestPlaneFloats).max()!
        case .fusedConvolution(let fused): fused.parts.map(\.largestPlaneFloats).max()!
        default: graphRegions.map { ($0.reads + [$0.writes]).map(\.planeStride).max()! } ?? 0
        }
    }
}
