import CKernels

/// The instruction set the CPU kernels run: each C kernel is compiled as twins (portable,
/// AVX2+FMA, and AVX-512 where it pays; `CKernels/isa_twins.h`) and dispatches on one
/// process-wide level (`CKernels/isa.c`): the best this CPU supports, or lower when limited
/// (`gpustyle bench --isa`, tests that run every twin on a machine that has the best).
public enum InstructionSet: Int32, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case portable = 0
    case avx2 = 1
    case avx512 = 2

    /// The best this CPU supports.
    public static var supported: InstructionSet { InstructionSet(rawValue: gs_isa_supported()) ?? .portable }

    /// The level every kernel runs now.
    public static var inUse: InstructionSet { InstructionSet(rawValue: gs_isa_level()) ?? .portable }

    /// Caps every kernel at `level` (nil: no cap), process-wide; returns the level now in use
    /// (lower than `level` when the CPU lacks it).
    @discardableResult
    public static func limit(to level: InstructionSet?) -> InstructionSet {
        InstructionSet(rawValue: gs_isa_limit(level?.rawValue ?? -1)) ?? .portable
    }

    public var description: String { String(cString: gs_isa_name(rawValue)) }

    public static func < (a: InstructionSet, b: InstructionSet) -> Bool { a.rawValue < b.rawValue }
}

/// The arithmetic of the style network's convolutions on the CPU path (`PackedConvolution`):
/// fp32 (the default), or bf16 — inputs and weights rounded to bf16, the products summed in fp32
/// by VDPBF16PS on CPUs with AVX512_BF16 (`CKernels/conv2d_bf16.c`; Winograd layers stay fp32).
/// In the graph networks bf16 runs the fused inverted residual blocks' 1x1 convolutions, the GEMV
/// and the small-map 1x1 kernel (`CKernels/conv2d_graph_bf16.c`: classify); the rest stays fp32. Like
/// the instruction-set cap it is set process-wide by the caller (`gpustyle --precision`); the
/// library reads no environment. An AMX twin would be another way to run `.bf16`.
public enum ConvolutionPrecision: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case fp32 = 0
    case bf16 = 1

    /// The precision every style convolution runs in now.
    public static var inUse: ConvolutionPrecision { ConvolutionPrecision(rawValue: gs_conv_precision()) ?? .fp32 }

    /// Sets the precision for every later run, process-wide.
    public static func use(_ precision: ConvolutionPrecision) { gs_conv_precision_set(precision.rawValue) }

    /// Whether this CPU has AVX512_BF16 (VDPBF16PS).
    public static var bf16Supported: Bool { gs_bf16_supported() != 0 }

    /// Whether `.bf16` runs on VDPBF16PS now (the CPU has it at the instruction-set level in use);
    /// otherwise the kernels emulate it with fp32 FMAs: the same result, slower than fp32.
    public static var bf16InHardware: Bool { gs_has_avx512_bf16() != 0 }

    /// Tests: the emulation even where the CPU has the instruction.
    static func emulateBF16(_ on: Bool) { gs_bf16_emulate(on ? 1 : 0) }

    public var description: String { self == .fp32 ? "fp32" : "bf16" }
}
