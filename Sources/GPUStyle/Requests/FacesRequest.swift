import Foundation

/// Faces in the photo, as `gpustyle faces` finds them: the face detector's boxes and five
/// points, each checked by the landmark model and given its regions (Vision's
/// `VNDetectFaceLandmarksRequest`).
public struct FacesRequest: CatalogueRequest {
    /// The faces, and one mesh per face (nil where the landmark model saw no face in the crop).
    public struct Output: Sendable {
        public var faces: [Face]
        public var meshes: [FaceMesh?]

        public init(faces: [Face], meshes: [FaceMesh?]) {
            self.faces = faces
            self.meshes = meshes
        }
    }

    public static let name: RequestName = .faces

    public let detector: FaceDetector
    public let landmarker: FaceLandmarker
    public var options: FaceDetector.Options

    /// The detector and the landmarker may share a backend (they run one after the other).
    public init(detector: FaceDetector, landmarker: FaceLandmarker, options: FaceDetector.Options = FaceDetector.Options()) {
        self.detector = detector
        self.landmarker = landmarker
        self.options = options
    }

    /// Both networks on one backend of their own.
    public init(stages: AnalysisStages) throws {
        let backend = try stages.backend()
        self.init(detector: try FaceDetector(backend: backend), landmarker: try FaceLandmarker(backend: backend))
    }

    public func perform(_ image: Image, in lane: AnalysisLane) throws -> Output {
        let found = try landmarker.verified(try detector.detect(image, options: options), in: image)
        return Output(faces: found.faces, meshes: found.meshes)
    }

    public static func jsonItems(_ output: Output, width: Int, height: Int) throws -> Any {
        FacesReport.items(output.faces, meshes: output.meshes, width: width, height: height)
    }

    public static func text(_ output: Output, file: String) -> String {
        indented(FacesReport.text(output.faces, file: file, showFile: false, landmarks: false))
    }

    /// Over the outlines and the notes' labels.
    public static let overlayLayer = 2

    public static func overlay(_ output: Output, on image: Image, renderer: TextRenderer) throws -> Image {
        try FacesReport.overlay(output.faces, meshes: output.meshes, on: image, renderer: renderer)
    }
}

extension RequestName {
    public static let faces: RequestName = "faces"
}

extension ImageAnalyzer.Result {
    /// The faces request's faces. Set alone, they keep the meshes only if there is one per face.
    public var faces: [Face]? {
        get { self[FacesRequest.self]?.faces }
        set {
            let meshes = self[FacesRequest.self]?.meshes ?? []
            self[FacesRequest.self] = newValue.map { FacesRequest.Output(faces: $0, meshes: meshes.count == $0.count ? meshes : []) }
        }
    }

    /// One per face: nil where the landmark model saw no face in the crop.
    public var meshes: [FaceMesh?]? { self[FacesRequest.self]?.meshes }
}
