import Foundation

/// What `gpustyle faces` prints and draws.
public enum FacesReport {
    /// The face's box as a quad (top-left first, clockwise).
    public static func quad(_ face: Face) -> Quad {
        Quad(topLeft: Point(x: face.x, y: face.y), topRight: Point(x: face.x + face.width, y: face.y),
             bottomRight: Point(x: face.x + face.width, y: face.y + face.height), bottomLeft: Point(x: face.x, y: face.y + face.height))
    }

    /// One line per face: "#1 face 0.99: x 177.2 y 56.1 width 95.0 height 120.3", and with
    /// `landmarks` the five points after it; under the file's name when there are several files.
    public static func text(_ faces: [Face], file: String, showFile: Bool, landmarks: Bool) -> String {
        let indent = showFile ? "  " : ""
        var lines: [String] = showFile ? ["\(PrintableText.escaping(file)):"] : []
        if faces.isEmpty { lines.append(indent + "no face found") }
        for (index, face) in faces.enumerated() {
            var line = indent + String(format: "#%d face %.2f: x %.1f y %.1f width %.1f height %.1f",
                                       index + 1, face.confidence, face.x, face.y, face.width, face.height)
            if landmarks {
                line += "; " + Face.Landmark.allCases.map { mark in
                    "\(mark.name) " + String(format: "(%.1f, %.1f)", face[mark].x, face[mark].y)
                }.joined(separator: " ")
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `{"file", "width", "height", "faces": [{"box": [x, y, width, height], "confidence",
    /// "points5": {"leftEye": [x, y], ...}, "normalized": {"box", "points5"}}]}` on one line.
    /// Pixels with the origin at the top-left (as `detect`); "normalized" is Vision's convention:
    /// fractions of the width and height with the origin at the bottom-left (the box's y is its
    /// bottom edge).
    public static func json(_ faces: [Face], meshes: [FaceMesh?], file: String, width: Int, height: Int) -> String {
        let object: [String: Any] = ["file": file, "width": width, "height": height,
                                     "faces": items(faces, meshes: meshes, width: width, height: height)]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The "faces" array of `json` (also `gpustyle analyze`'s).
    public static func items(_ faces: [Face], meshes: [FaceMesh?], width: Int, height: Int) -> [[String: Any]] {
        precondition(meshes.isEmpty || meshes.count == faces.count, "one mesh (or nil) per face")
        let w = Double(width), h = Double(height)
        let items: [[String: Any]] = faces.enumerated().map { index, face in
            func points(_ map: (Point) -> [Double]) -> [String: [Double]] {
                Dictionary(uniqueKeysWithValues: Face.Landmark.allCases.map { ($0.name, map(face[$0])) })
            }
            var normalized: [String: Any] = [
                "box": [face.x / w, 1 - (face.y + face.height) / h, face.width / w, face.height / h],
                "points5": points { [$0.x / w, 1 - $0.y / h] },
            ]
            var item: [String: Any] = [
                "box": [face.x, face.y, face.width, face.height],
                "confidence": Double(face.confidence),
                "points5": points { [$0.x, $0.y] },
            ]
            if !meshes.isEmpty {
                if let mesh = meshes[index] {
                    func regions(_ map: (Point) -> [Double]) -> [String: [[Double]]] {
                        Dictionary(uniqueKeysWithValues: FaceRegion.allCases.map { ($0.rawValue, mesh.points(of: $0).map(map)) })
                    }
                    item["regions"] = regions { [$0.x, $0.y] }
                    normalized["regions"] = regions { [$0.x / w, 1 - $0.y / h] }
                } else {
                    item["regions"] = NSNull()  // the landmark model did not see a face in the crop
                }
            }
            item["normalized"] = normalized
            return item
        }
        return items
    }

    /// The photo with each face's box, its five points and its confidence drawn.
    public static func overlay(_ faces: [Face], meshes: [FaceMesh?] = [], on image: Image, renderer: TextRenderer) throws -> Image {
        let thickness = max(2, Double(min(image.width, image.height)) / 300)
        var out = QuadOverlay.draw(faces.map(quad), on: image, thickness: thickness)
        let radius = max(2, Int(thickness.rounded()))
        let style = LabelStyle.scaled(toHeight: image.height)
        for mesh in meshes.compactMap({ $0 }) {
            for region in FaceRegion.allCases where region.pupilOf == nil && region != .noseCrest {
                polyline(mesh.points(of: region), closed: region.isClosed, on: &out)
            }
        }
        for face in faces {
            for point in face.landmarks { dot(at: point, radius: radius, on: &out) }
            let bitmap = try renderer.render(String(format: "%.0f%%", face.confidence * 100), pixelSize: style.pixelSize)
            let labelHeight = bitmap.height + 2 * style.padding
            LabelDrawing.draw(bitmap, on: &out, x: Int(face.x.rounded()), y: Int(face.y.rounded()) - labelHeight - 2, style: style)
        }
        return out
    }

    /// A one-pixel line through `points` in yellow (joined back to the first when `closed`).
    static func polyline(_ points: [Point], closed: Bool, on image: inout Image) {
        guard points.count >= 2 else { return }
        let plane = image.pixelCount
        let segments = closed ? points.count : points.count - 1
        for i in 0..<segments {
            QuadOverlay.forEachPoint(from: points[i], to: points[(i + 1) % points.count]) { p in
                // Pixel (i, j) covers [i, i + 1) here (the faces' coordinates).
                let x = Int(p.x.rounded(.down)), y = Int(p.y.rounded(.down))
                guard x >= 0, y >= 0, x < image.width, y < image.height else { return }
                let i = y * image.width + x
                image.rgb[i] = 1
                image.rgb[plane + i] = 0.85
                image.rgb[2 * plane + i] = 0.1
            }
        }
    }

    /// A filled disc, white with a dark rim, so a point shows on light and dark skin alike.
    static func dot(at point: Point, radius: Int, on image: inout Image) {
        let plane = image.pixelCount
        let cx = Int(point.x.rounded()), cy = Int(point.y.rounded())
        let outer = radius + 1
        for dy in -outer...outer {
            for dx in -outer...outer {
                let d2 = dx * dx + dy * dy
                guard d2 <= outer * outer else { continue }
                let x = cx + dx, y = cy + dy
                guard x >= 0, y >= 0, x < image.width, y < image.height else { continue }
                let value: Float = d2 <= radius * radius ? 1 : 0
                let i = y * image.width + x
                image.rgb[i] = value
                image.rgb[plane + i] = value
                image.rgb[2 * plane + i] = value
            }
        }
    }
}
