import Foundation

/// One request's result with what reports it, its type erased: the results of requests of
/// different types in one collection (`ImageAnalyzer.Result`). `value(as:)` gives it back typed.
public struct AnalysisObservation: Sendable {
    private let box: any ObservationBox

    /// `output` of a request of type `request`, reported as that type says.
    public init<Request: AnalysisRequest>(_ request: Request.Type, _ output: Request.Output) {
        box = TypedObservation<Request>(output: output)
    }

    /// The request's name.
    public var name: RequestName { box.name }
    /// The request's output.
    public var value: any Sendable { box.value }
    /// The output of a request of type `request`; nil when it is another request's.
    public func value<Request: AnalysisRequest>(as request: Request.Type) -> Request.Output? {
        (box as? TypedObservation<Request>)?.output
    }

    /// `AnalysisRequest.jsonKey`, `jsonItems`, `text`, `overlayLayer` and `overlay` of the request.
    public var jsonKey: String { box.jsonKey }
    public func jsonItems(width: Int, height: Int) throws -> Any { try box.jsonItems(width: width, height: height) }
    public func text(file: String) -> String { box.text(file: file) }
    public var overlayLayer: Int { box.overlayLayer }
    public func overlay(on image: Image, renderer: TextRenderer) throws -> Image { try box.overlay(on: image, renderer: renderer) }
}

private protocol ObservationBox: Sendable {
    var name: RequestName { get }
    var value: any Sendable { get }
    var jsonKey: String { get }
    func jsonItems(width: Int, height: Int) throws -> Any
    func text(file: String) -> String
    var overlayLayer: Int { get }
    func overlay(on image: Image, renderer: TextRenderer) throws -> Image
}

private struct TypedObservation<Request: AnalysisRequest>: ObservationBox {
    let output: Request.Output
    var name: RequestName { Request.name }
    var value: any Sendable { output }
    var jsonKey: String { Request.jsonKey }
    func jsonItems(width: Int, height: Int) throws -> Any { try Request.jsonItems(output, width: width, height: height) }
    func text(file: String) -> String { Request.text(output, file: file) }
    var overlayLayer: Int { Request.overlayLayer }
    func overlay(on image: Image, renderer: TextRenderer) throws -> Image { try Request.overlay(output, on: image, renderer: renderer) }
}

extension ImageAnalyzer {
    /// Every request's result, in the order asked, and the time each took. Typed: `result[FacesRequest.self]`,
    /// or each request file's accessor (`result.rectangles`, `result.faces`, ...).
    public struct Result: Sendable {
        /// One per request, in the order asked.
        public private(set) var observations: [AnalysisObservation] = []
        /// Each request's time on its lane.
        public var seconds: [RequestName: Double] = [:]

        public init() {}

        /// The named request's result; nil: not asked for.
        public subscript(name name: RequestName) -> AnalysisObservation? { observations.first { $0.name == name } }

        /// The output of the request of type `request`; nil: not asked for. Setting it replaces
        /// that request's result (nil removes it).
        public subscript<Request: AnalysisRequest>(request: Request.Type) -> Request.Output? {
            get { self[name: Request.name]?.value(as: Request.self) }
            set { set(newValue.map { AnalysisObservation(Request.self, $0) }, for: Request.name) }
        }

        /// Adds `observation`, or replaces the result of the request of the same name.
        public mutating func insert(_ observation: AnalysisObservation) { set(observation, for: observation.name) }

        private mutating func set(_ observation: AnalysisObservation?, for name: RequestName) {
            let index = observations.firstIndex { $0.name == name }
            switch (index, observation) {
            case (let index?, let observation?): observations[index] = observation
            case (let index?, nil): observations.remove(at: index)
            case (nil, let observation?): observations.append(observation)
            case (nil, nil): break
            }
        }
    }
}

extension ImageAnalyzer.Result {
    /// `gpustyle analyze --json`: `{"file", "width", "height", "requests", "milliseconds"}` and
    /// each request's items under its `jsonKey`, on one line, keys sorted.
    public func json(file: String, width: Int, height: Int) throws -> String {
        var object: [String: Any] = ["file": file, "width": width, "height": height, "requests": observations.map(\.name.rawValue),
                                     "milliseconds": Dictionary(uniqueKeysWithValues: seconds.map { ($0.key.rawValue, $0.value * 1000) })]
        for observation in observations {
            precondition(object[observation.jsonKey] == nil, "\(observation.name)'s JSON key \"\(observation.jsonKey)\" is taken")
            object[observation.jsonKey] = try observation.jsonItems(width: width, height: height)
        }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// `gpustyle analyze`'s text: each request's section under its "name:", in the order asked.
    public func text(file: String) -> String {
        observations.map { "\($0.name):\n" + $0.text(file: file) }.joined(separator: "\n")
    }

    /// The photo with every result drawn, lowest `overlayLayer` first (rectangles outlined,
    /// notes labelled, faces boxed with their points and regions, the top class written in the
    /// top-left corner), requests of one layer in the order asked.
    public func overlay(on image: Image, renderer: TextRenderer) throws -> Image {
        let order = observations.indices.sorted { (observations[$0].overlayLayer, $0) < (observations[$1].overlayLayer, $1) }
        return try order.reduce(image) { drawn, index in try observations[index].overlay(on: drawn, renderer: renderer) }
    }
}
