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

/// `--isa`: the measurement commands can run the CPU kernels' lower twins.
struct InstructionSetOption: ParsableArguments {
    @Option(help: ArgumentHelp("Cap the CPU kernels' instruction set: avx512, avx2 or portable.",
                               discussion: "Default: the best this CPU supports. The report names the set in use."))
    var isa: InstructionSet?

    /// Applies the cap; a level this CPU lacks is an error (the report would name another).
    func apply() throws {
        guard let isa else { return }
        let inUse = InstructionSet.limit(to: isa)
        if inUse != isa {
            InstructionSet.limit(to: nil)
            throw ValidationError("--isa \(isa.argumentName): this CPU supports at most \(InstructionSet.supported.argumentName)")
        }
    }
}
