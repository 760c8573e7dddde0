/// A YUV4MPEG2 stream header: `YUV4MPEG2 W640 H480 F30000:1001 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED`.
///
/// The format (as written by ffmpeg's yuv4mpegpipe muxer and mjpegtools): one header line, then
/// per frame a `FRAME` line (possibly with parameters) followed by the raw planes Y, U, V, 8 bits
/// per sample. Only the 8-bit layouts are read: 4:2:0 (any chroma siting), 4:2:2, 4:4:4 and mono.
public struct Y4MHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Frames per second as a fraction (numerator, denominator); 0:0 when the stream left it unknown.
    public var frameRate: (numerator: Int, denominator: Int)
    public var chroma: ChromaLayout
    /// `XCOLORRANGE=FULL` (ffmpeg's extension); otherwise video ("limited", 16–235) range.
    public var fullRange: Bool
    /// Tokens we pass through unchanged (interlacing, pixel aspect, other extensions).
    public var otherTokens: [String]

    public init(width: Int, height: Int, frameRate: (numerator: Int, denominator: Int), chroma: ChromaLayout,
                fullRange: Bool = false, otherTokens: [String] = []) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.chroma = chroma
        self.fullRange = fullRange
        self.otherTokens = otherTokens
    }

    public static func == (a: Y4MHeader, b: Y4MHeader) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.chroma == b.chroma
            && a.fullRange == b.fullRange && a.otherTokens == b.otherTokens
    }

    /// Frames per second, or nil when the stream does not say.
    public var framesPerSecond: Double? {
        frameRate.numerator > 0 && frameRate.denominator > 0 ? Double(frameRate.numerator) / Double(frameRate.denominator) : nil
    }

    /// Largest frame accepted (a 8K UHD frame): a corrupt header must not make us allocate gigabytes.
    public static let maximumPixels = 7680 * 4320

    /// Parses the header line (without its newline).
    public init(line: String) throws {
        var tokens = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard tokens.first == "YUV4MPEG2" else {
            throw Y4MError("not a Y4M stream (it must start with YUV4MPEG2)")
        }
        tokens.removeFirst()
        var width: Int?, height: Int?
        var rate = (numerator: 0, denominator: 0)
        var chroma = ChromaLayout.yuv420(centred: true)
        var fullRange = false
        var others: [String] = []
        for token in tokens {
            let value = String(token.dropFirst())
            switch token.first {
            case "W": width = Int(value)
                if width == nil { throw Y4MError("bad width \(token)") }
            case "H": height = Int(value)
                if height == nil { throw Y4MError("bad height \(token)") }
            case "F":
                let parts = value.split(separator: ":")
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n >= 0, d >= 0 else {
                    throw Y4MError("bad frame rate \(token)")
                }
                rate = (n, d)
            case "C":
                guard let layout = ChromaLayout(tag: value) else {
                    throw Y4MError("unsupported colour layout C\(value) (supported: 420, 422, 444 and mono, 8 bits)")
                }
                chroma = layout
            case "X" where value.uppercased().hasPrefix("COLORRANGE="):
                fullRange = value.uppercased() == "COLORRANGE=FULL"
                others.append(token)
            default:
                others.append(token)
            }
        }
        guard let width, let height else { throw Y4MError("header has no W (width) or H (height)") }
        guard width > 0, height > 0, width.multipliedReportingOverflow(by: height).partialValue <= Self.maximumPixels,
              width <= Self.maximumPixels, height <= Self.maximumPixels else {
            throw Y4MError("frame size \(width)x\(height) is out of range (at most \(Self.maximumPixels) pixels)")
        }
        self.init(width: width, height: height, frameRate: rate, chroma: chroma, fullRange: fullRange, otherTokens: others)
    }

    /// The header line, newline included.
    public var line: String {
        var tokens = ["YUV4MPEG2", "W\(width)", "H\(height)"]
        if frameRate.numerator > 0 && frameRate.denominator > 0 { tokens.append("F\(frameRate.numerator):\(frameRate.denominator)") }
        tokens.append("C" + chroma.tag)
        tokens += otherTokens
        return tokens.joined(separator: " ") + "\n"
    }
}

/// How the chroma planes of a Y4M frame are subsampled.
public enum ChromaLayout: Sendable, Equatable {
    /// 4:2:0; `centred` is false for MPEG-2 siting (chroma co-sited with the left luma column).
    case yuv420(centred: Bool)
    case yuv422
    case yuv444
    /// Luma only.
    case mono

    init?(tag: String) {
        switch tag {
        case "420jpeg", "420paldv", "420": self = .yuv420(centred: true)
        case "420mpeg2": self = .yuv420(centred: false)
        case "422": self = .yuv422
        case "444": self = .yuv444
        case "mono": self = .mono
        default: return nil
        }
    }

    var tag: String {
        switch self {
        case .yuv420(let centred): return centred ? "420jpeg" : "420mpeg2"
        case .yuv422: return "422"
        case .yuv444: return "444"
        case .mono: return "mono"
        }
    }

    /// Horizontal and vertical subsampling factors of the chroma planes.
    var factors: (x: Int, y: Int) {
        switch self {
        case .yuv420: return (2, 2)
        case .yuv422: return (2, 1)
        case .yuv444, .mono: return (1, 1)
        }
    }

    /// Size of one chroma plane (0 x 0 for mono) for a width x height frame.
    func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        if case .mono = self { return (0, 0) }
        let f = factors
        return ((width + f.x - 1) / f.x, (height + f.y - 1) / f.y)
    }
}

/// A malformed, truncated or unsupported Y4M stream; `description` is one line.
public struct Y4MError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
