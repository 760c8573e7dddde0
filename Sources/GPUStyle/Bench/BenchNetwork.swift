import Foundation

/// The networks `gpustyle profile --network` and `gpustyle bench --network` time: what each
/// runs on, and which of them take an input size.
public enum BenchNetwork: String, CaseIterable, Sendable {
    /// The 26-style network (`gpustyle stylize`), any size (rounded up to multiples of 4).
    case style
    /// The built-in MobileNetV2 (`gpustyle classify`), 224x224.
    case classify
    /// The RetinaFace face detector (`gpustyle faces`), one pass, sides rounded up to multiples of 32.
    case faces
    /// The 468-point face landmark model, 192x192.
    case mesh
    /// The note-digit network (`gpustyle digits`), one 28x28 glyph.
    case digits
    /// PP-OCRv6 tiny's text detector (`gpustyle text`), sides rounded up to multiples of 32.
    case textDetection = "text-det"
    /// Its recogniser on one 48-pixel-high line, the width rounded up to a multiple of 8.
    case textRecognition = "text-rec"

    /// Whether the network's work depends on the input size (bench runs the others once).
    public var takesSize: Bool {
        switch self {
        case .style, .faces, .textDetection: true
        case .classify, .mesh, .digits, .textRecognition: false
        }
    }

    /// The input size when none is given (WxH).
    public var defaultSize: (width: Int, height: Int) {
        switch self {
        case .style, .faces: (512, 512)
        case .classify: (ClassifierInput().cropSide, ClassifierInput().cropSide)
        case .mesh: (FaceLandmarker.side, FaceLandmarker.side)
        case .digits: (DigitClassifier.side, DigitClassifier.side)
        case .textDetection: (960, 544)  // a 16:9 photo at `gpustyle text`'s 960-px pass
        case .textRecognition: (320, TextRecognitionNetwork.inputHeight)  // the crops' least width
        }
    }

    /// The size the network runs at for a requested `width` x `height`: rounded up to the
    /// network's multiples, or its fixed size.
    public func inputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        func up(_ value: Int, _ multiple: Int) -> Int { (value + multiple - 1) / multiple * multiple }
        switch self {
        case .style: return (up(width, 4), up(height, 4))
        case .faces: return (up(width, 32), up(height, 32))
        case .textDetection: return (up(width, TextDetectionNetwork.sideMultiple), up(height, TextDetectionNetwork.sideMultiple))
        case .textRecognition: return (up(width, TextRecognitionNetwork.stepWidth), TextRecognitionNetwork.inputHeight)
        case .classify, .mesh, .digits: return defaultSize
        }
    }

    /// A comma-separated list of names: the cases' raw values, "text" for both text networks,
    /// "all" for every network. Order kept, repeats dropped.
    public static func parseList(_ text: String) throws -> [BenchNetwork] {
        var list: [BenchNetwork] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let named: [BenchNetwork]
            switch name {
            case "all": named = allCases
            case "text": named = [.textDetection, .textRecognition]
            default:
                guard let network = BenchNetwork(rawValue: name) else {
                    throw BenchError("unknown network '\(name)': expected "
                                     + (allCases.map(\.rawValue) + ["text", "all"]).joined(separator: ", "))
                }
                named = [network]
            }
            for network in named where !list.contains(network) { list.append(network) }
        }
        return list
    }
}

/// A bench or profile request that cannot run (unknown network, bad size).
public struct BenchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
