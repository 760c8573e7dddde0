import Foundation

/// One thing to find in a photo, as one of Apple Vision's `VNRequest` subclasses: a type that
/// knows its name, the lane it runs in, how it runs on the decoded photo and how its result is
/// reported (JSON items, a text section, a drawing). `ImageAnalyzer` performs several on one
/// photo; `AnalysisCatalogue` lists the built-in ones and makes them for `gpustyle analyze`.
///
/// A request holds the stages it runs on (its detector, its networks' backend): made for it by
/// `CatalogueRequest.init(stages:)`, or given by the caller. Requests of one lane run one after
/// another on that lane's thread; different lanes run at the same time, so requests of different
/// lanes must not share a backend or a detector (`AnalysisStages` makes each its own, except
/// what a lane shares).
public protocol AnalysisRequest {
    /// What it finds (Vision's `results`); made on its lane's thread, read on the caller's.
    associatedtype Output: Sendable

    /// In `--requests`, the text report's headings and the JSON's "requests" and "milliseconds".
    static var name: RequestName { get }

    /// The lane it runs in: requests naming the same lane run one after another on one thread
    /// and share what they compute on the photo (`AnalysisLane.shared`), so they may share
    /// stages. Default: its name (a lane of its own).
    static var lane: String { get }

    /// Its result on `image`, on its lane's thread.
    func perform(_ image: Image, in lane: AnalysisLane) throws -> Output

    /// The key of its items in `analyze --json` (not one of "file", "width", "height",
    /// "requests", "milliseconds"). Default: its name.
    static var jsonKey: String { get }

    /// Its JSON items (what `JSONSerialization` writes: arrays, dictionaries, numbers, strings,
    /// `NSNull`), as its own command prints them.
    static func jsonItems(_ output: Output, width: Int, height: Int) throws -> Any

    /// Its section of the text report, printed under its "name:" heading (indent the lines:
    /// `indented`).
    static func text(_ output: Output, file: String) -> String

    /// Where its drawing goes in the overlay: lower layers are drawn first and higher ones over
    /// them (the built-ins: rectangles 0, digits 1, faces 2, classify 3). Default: 0.
    static var overlayLayer: Int { get }

    /// `image` with `output` drawn on it. Default: nothing drawn.
    static func overlay(_ output: Output, on image: Image, renderer: TextRenderer) throws -> Image
}

extension AnalysisRequest {
    public static var lane: String { name.rawValue }
    public static var jsonKey: String { name.rawValue }
    public static var overlayLayer: Int { 0 }
    public static func overlay(_ output: Output, on image: Image, renderer: TextRenderer) throws -> Image { image }

    /// `text` with two spaces before each line (a report section's lines).
    public static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }

    /// `perform`'s result with its reporting, type-erased.
    func observe(_ image: Image, in lane: AnalysisLane) throws -> AnalysisObservation {
        AnalysisObservation(Self.self, try perform(image, in: lane))
    }
}

/// A request's name ("rectangles", "faces", ...): what `--requests` lists and the results are
/// keyed by. Each request file declares its own (`RequestName.rectangles`).
public struct RequestName: RawRepresentable, Hashable, Sendable, CaseIterable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public var description: String { rawValue }
    /// The built-in requests' names, in the catalogue's order (`AnalysisCatalogue.builtin`).
    public static var allCases: [RequestName] { AnalysisCatalogue.builtin.names }
}

/// What one lane's requests share while they run on a photo: the rectangle detector's edges
/// of it for the rectangles and the note finder (`RectangleDetector.edges(of:sharedIn:)`).
/// Used by its lane's thread only.
public final class AnalysisLane {
    private var values: [AnyHashable: Any] = [:]

    public init() {}

    /// The value under `key`: made by `make` for the first of the lane's requests that asks,
    /// kept for the others.
    public func shared<Value>(_ key: AnyHashable, _ make: () throws -> Value) rethrows -> Value {
        if let value = values[key] {
            guard let value = value as? Value else { preconditionFailure("\(key) is shared as \(type(of: value)), not \(Value.self)") }
            return value
        }
        let value = try make()
        values[key] = value
        return value
    }
}
