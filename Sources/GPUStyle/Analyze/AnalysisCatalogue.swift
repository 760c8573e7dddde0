import Foundation

/// A request the catalogue can make for `gpustyle analyze`: with its command's defaults, on
/// stages from the device choice.
public protocol CatalogueRequest: AnalysisRequest {
    /// The request on stages from `stages` (a backend of its own from `stages.backend()`; a
    /// stage shared with other requests only with the requests of its lane).
    init(stages: AnalysisStages) throws
}

/// The requests `gpustyle analyze` knows: `--requests` is parsed, listed in the help and its
/// errors, and made from this list. A new request is one file (a `CatalogueRequest`) and one
/// line in `builtin`.
public struct AnalysisCatalogue {
    /// In the order listed (also the order the stages are made, and the lanes', `ImageAnalyzer`).
    public let types: [any CatalogueRequest.Type]

    public init(_ types: [any CatalogueRequest.Type]) {
        precondition(Set(types.map { $0.name }).count == types.count, "two requests of one name")
        self.types = types
    }

    /// The built-in requests.
    public static var builtin: AnalysisCatalogue {
        AnalysisCatalogue([
            RectanglesRequest.self,
            FacesRequest.self,
            ClassifyRequest.self,
            DigitsRequest.self,
            TextRequest.self,
        ])
    }

    public var names: [RequestName] { types.map { $0.name } }

    /// The request type of that name.
    public func type(named name: RequestName) -> (any CatalogueRequest.Type)? { types.first { $0.name == name } }

    /// Its place in the list; nil: not listed.
    public func index(of name: RequestName) -> Int? { types.firstIndex { $0.name == name } }

    /// A name not in the catalogue: "'nose' is not one of rectangles, faces, classify, digits".
    public struct UnknownRequest: Error, CustomStringConvertible {
        public let name: String
        public let known: [RequestName]
        public var description: String {
            "\(name.isEmpty ? "an empty name" : "'\(name)'") is not one of " + known.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// The names in a comma-separated list (spaces around a name ignored), each once, in the
    /// order first given.
    public func parse(_ list: String) throws -> [RequestName] {
        var names: [RequestName] = []
        for text in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let name = RequestName(rawValue: text)
            guard index(of: name) != nil else { throw UnknownRequest(name: text, known: self.names) }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The named requests (each listed), in the order given; their stages are made in the
    /// catalogue's order.
    public func make(_ names: [RequestName], stages: AnalysisStages) throws -> [any AnalysisRequest] {
        var made: [RequestName: any AnalysisRequest] = [:]
        for type in types where names.contains(type.name) {
            made[type.name] = try type.init(stages: stages)
        }
        return try names.map { name in
            guard let request = made[name] else { throw UnknownRequest(name: name.rawValue, known: self.names) }
            return request
        }
    }
}

/// What the catalogue's requests are made on: the command's device choice (`--device`), or a
/// test's backends. Used on one thread, while the requests are made.
public final class AnalysisStages {
    private let makeBackend: () throws -> NetworkBackend
    private let makeDetector: () throws -> RectangleDetector
    private let makeWarper: () throws -> PerspectiveWarper
    private var made: [String: Any] = [:]

    public init(backend: @escaping () throws -> NetworkBackend, detector: @escaping () throws -> RectangleDetector,
                warper: @escaping () throws -> PerspectiveWarper) {
        makeBackend = backend
        makeDetector = detector
        makeWarper = warper
    }

    /// A new backend for a request's networks (a lane's backend is used by no other lane).
    public func backend() throws -> NetworkBackend { try makeBackend() }

    /// The rectangle detector: made on first use, the same for every request (so only for the
    /// requests of `RectanglesRequest.lane`, which share it and its edges of the photo).
    public func detector() throws -> RectangleDetector { try shared("rectangle detector", makeDetector) }

    /// A new perspective warper.
    public func warper() throws -> PerspectiveWarper { try makeWarper() }

    /// The value under `key`, made on first use and the same for every request that asks (which
    /// must then share a lane).
    public func shared<Value>(_ key: String, _ make: () throws -> Value) rethrows -> Value {
        if let value = made[key] {
            guard let value = value as? Value else { preconditionFailure("\(key) is shared as \(type(of: value)), not \(Value.self)") }
            return value
        }
        let value = try make()
        made[key] = value
        return value
    }
}
