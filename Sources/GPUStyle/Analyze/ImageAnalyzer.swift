import Foundation

/// Several requests on one photo, as Vision's `VNImageRequestHandler.perform([...])`: the photo
/// is decoded once and each request (an `AnalysisRequest`) reads the same `Image`.
///
/// The requests run together, in lanes on their own threads, one lane per `AnalysisRequest.lane`:
/// the built-ins make three, rectangles and digits (which share one rectangle detector and its
/// edges of the photo) one after the other in one lane, faces in another, classify in a third.
/// The CPU kernels' worker pool takes one lane's job at a time and the others run on their own
/// threads meanwhile, and on Vulkan each lane submits its own command buffers. A lane's
/// requests must not share a backend (or a detector) with another lane's.
public final class ImageAnalyzer {
    /// A request by name (`AnalysisCatalogue.builtin`'s names); the requests are `AnalysisRequest`s.
    public typealias Request = RequestName

    /// What it performs, in the order given (one per name).
    public let requests: [any AnalysisRequest]

    public init(_ requests: [any AnalysisRequest]) {
        precondition(Set(requests.map { type(of: $0).name }).count == requests.count, "two requests of one name")
        self.requests = requests
    }

    /// The built-in requests on these stages, with their commands' defaults (a request whose
    /// stage is nil is left out, and asking `analyze` for it is a programming error).
    public convenience init(detector: RectangleDetector, faceDetector: FaceDetector?, landmarker: FaceLandmarker?,
                            classifier: ImageClassifier?, noteReader: NoteReader?) {
        var requests: [any AnalysisRequest] = [RectanglesRequest(detector: detector)]
        if let faceDetector, let landmarker { requests.append(FacesRequest(detector: faceDetector, landmarker: landmarker)) }
        if let classifier { requests.append(ClassifyRequest(classifier: classifier)) }
        if let noteReader { requests.append(DigitsRequest(reader: noteReader)) }
        self.init(requests)
    }

    /// The results of every request.
    public func analyze(_ image: Image) throws -> Result {
        try Self.perform(requests, on: image)
    }

    /// The results of the named requests (each one of `requests`), in the order named.
    public func analyze(_ image: Image, requests names: [RequestName]) throws -> Result {
        var asked: [any AnalysisRequest] = []
        for name in names where !asked.contains(where: { type(of: $0).name == name }) {
            guard let request = requests.first(where: { type(of: $0).name == name }) else {
                preconditionFailure("\(name) asked for but not given to the analyzer")
            }
            asked.append(request)
        }
        return try Self.perform(asked, on: image)
    }

    /// The lanes `requests` run in, as indices into it: one per `lane`, each lane's requests in
    /// the order asked. The lanes are in the catalogue's order of their first request (requests
    /// it does not list after, in the order asked), so the lanes, and the error thrown when
    /// several fail (the first lane's), do not depend on the order asked.
    static func lanes(_ requests: [any AnalysisRequest.Type]) -> [[Int]] {
        var names: [String] = []
        var members: [String: [Int]] = [:]
        for (index, request) in requests.enumerated() {
            if members[request.lane] == nil { names.append(request.lane) }
            members[request.lane, default: []].append(index)
        }
        let catalogue = AnalysisCatalogue.builtin
        func rank(_ lane: String) -> Int { members[lane]!.compactMap { catalogue.index(of: requests[$0].name) }.min() ?? .max }
        return names.indices.sorted { (rank(names[$0]), $0) < (rank(names[$1]), $1) }.map { members[names[$0]]! }
    }

    /// The lanes of the built-in requests named.
    static func lanes(_ names: [RequestName]) -> [[RequestName]] {
        let types = names.map { name in
            guard let type = AnalysisCatalogue.builtin.type(named: name) else { preconditionFailure("\(name) is not a built-in request") }
            return type as any AnalysisRequest.Type
        }
        return lanes(types).map { $0.map { names[$0] } }
    }

    /// Each lane on its own thread; each request's seconds are its own lane's time for it.
    private static func perform(_ requests: [any AnalysisRequest], on image: Image) throws -> Result {
        let lanes = Self.lanes(requests.map { type(of: $0) })
        let laneRequests = LaneRequests(lanes.map { $0.map { requests[$0] } })
        let outcomes = LaneOutcomes(count: lanes.count)
        DispatchQueue.concurrentPerform(iterations: lanes.count) { lane in
            let shared = AnalysisLane()
            var done: [(observation: AnalysisObservation, seconds: Double)] = []
            do {
                for request in laneRequests.lanes[lane] {
                    let start = MonotonicClock.seconds()
                    let observation = try request.observe(image, in: shared)
                    done.append((observation, MonotonicClock.seconds() - start))
                }
                outcomes.set(lane, .success(done))
            } catch {
                outcomes.set(lane, .failure(error))
            }
        }
        var done: [RequestName: (observation: AnalysisObservation, seconds: Double)] = [:]
        for outcome in outcomes.all {
            for one in try outcome.get() { done[one.observation.name] = one }
        }
        var result = Result()
        for request in requests {
            let name = type(of: request).name
            guard let one = done[name] else { preconditionFailure("\(name) ran in no lane") }
            result.insert(one.observation)
            result.seconds[name] = one.seconds
        }
        return result
    }
}

/// Each lane's requests, as the lanes see them: a lane's requests are used by its thread only,
/// and share no stage with another lane's (`AnalysisRequest.lane`), hence unchecked.
private final class LaneRequests: @unchecked Sendable {
    let lanes: [[any AnalysisRequest]]
    init(_ lanes: [[any AnalysisRequest]]) { self.lanes = lanes }
}

/// Each lane's results (with each request's seconds) or error, written once by its lane.
private final class LaneOutcomes: @unchecked Sendable {
    typealias Outcome = Swift.Result<[(observation: AnalysisObservation, seconds: Double)], Error>
    private let lock = NSLock()
    private var outcomes: [Outcome?]

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    func set(_ lane: Int, _ outcome: Outcome) { lock.withLock { outcomes[lane] = outcome } }

    /// In lane order (the first lane's error is the one thrown).
    var all: [Outcome] { lock.withLock { outcomes.map { $0! } } }
}
