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
