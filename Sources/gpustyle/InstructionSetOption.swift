import ArgumentParser
import GPUStyle

extension InstructionSet: ExpressibleByArgument {
    public init?(argument: String) {
        guard let level = InstructionSet.allCases.first(where: { $0.argumentName == argument }) else { return nil }
        self = level
    }

    /// `avx512`, `avx2`, `portable`.
    var argumentName: String {
        switch self {
        case .portable: "portable"
        case .avx2: "avx2"
        case .avx512: "avx512"
        }
    }

    public static var allValueStrings: [String] { allCases.map(\.argumentName) }
}

extension ConvolutionPrecision: ExpressibleByArgument {
    public init?(argument: String) {
        guard let precision = ConvolutionPrecision.allCases.first(where: { $0.description == argument }) else { return nil }
        self = precision
    }

    public static var allValueStrings: [String] { allCases.map(\.description) }
}

/// `--isa` and `--precision`: the CPU kernels' lower twins (the measurement commands) and the
/// bf16 arithmetic of the style network's and classify's convolutions (opt-in: see
/// docs/speed.md#bf16).
struct InstructionSetOption: ParsableArguments {
    @Option(help: ArgumentHelp("Cap the CPU kernels' instruction set: avx512, avx2 or portable.",
                               discussion: "Default: the best this CPU supports. The report names the set in use."))
    var isa: InstructionSet?

    @Option(help: ArgumentHelp("The CPU convolutions of the style network and of classify: fp32 (default) or bf16.",
                               discussion: """
                               bf16 rounds the convolutions' inputs and weights to bf16 and sums in fp32 (VDPBF16PS), on \
                               CPUs with AVX512_BF16 (AMD Zen 4, Intel Sapphire Rapids). Style network: 0.6-0.75x the \
                               time, under 1/255 from fp32 on average but tens of levels in places. Classify (the \
                               MobileNetV2 blocks' 1x1 convolutions and the classifier): 0.6-0.75x the time, \
                               probabilities within 0.044 of fp32, but another top class on 10 of the repository's 333 \
                               distinct photos (onnxruntime sides with fp32 on all 10), so fp32 stays the default \
                               there too (docs/speed.md#bf16).
                               """))
    var precision: ConvolutionPrecision?

    /// Applies the cap and the precision; a level this CPU lacks is an error (the report would
    /// name another), and so is bf16 without AVX512_BF16 in use (it would run emulated, slower).
    func apply() throws {
        if let isa {
            let inUse = InstructionSet.limit(to: isa)
            if inUse != isa {
                InstructionSet.limit(to: nil)
                throw ValidationError("--isa \(isa.argumentName): this CPU supports at most \(InstructionSet.supported.argumentName)")
            }
        }
        if let precision {
            if precision == .bf16 && !ConvolutionPrecision.bf16InHardware {
                throw ValidationError(ConvolutionPrecision.bf16Supported
                                      ? "--precision bf16 needs --isa avx512 (VDPBF16PS is an AVX-512 instruction)"
                                      : "--precision bf16: this CPU has no AVX512_BF16")
            }
            ConvolutionPrecision.use(precision)
        }
    }
}
