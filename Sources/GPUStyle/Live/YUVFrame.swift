/// One 8-bit frame of a Y4M stream: a full-size luma plane and two (possibly subsampled) chroma planes.
public struct YUVFrame: Sendable {
    public let width: Int
    public let height: Int
    public let chroma: ChromaLayout
    public var y: [UInt8]
    /// Empty for mono.
    public var u: [UInt8]
    public var v: [UInt8]

    public init(width: Int, height: Int, chroma: ChromaLayout, y: [UInt8], u: [UInt8], v: [UInt8]) {
        let c = chroma.chromaSize(width: width, height: height)
        precondition(y.count == width * height && u.count == c.width * c.height && v.count == u.count, "plane sizes do not match the layout")
        self.width = width
        self.height = height
        self.chroma = chroma
        self.y = y
        self.u = u
        self.v = v
    }

    /// Bytes of the planes of one frame of this size and layout.
    static func byteCount(width: Int, height: Int, chroma: ChromaLayout) -> Int {
        let c = chroma.chromaSize(width: width, height: height)
        return width * height + 2 * c.width * c.height
    }
}
