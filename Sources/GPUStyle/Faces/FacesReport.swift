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
    public static func json(_ faces: [Face], file: String, width: Int, height: Int) -> String {
        let w = Double(width), h = Double(height)
        let items: [[String: Any]] = faces.map { face in
            func points(_ map: (Point) -> [Double]) -> [String: [Double]] {
                Dictionary(uniqueKeysWithValues: Face.Landmark.allCases.map { ($0.name, map(face[$0])) })
            }
            return [
                "box": [face.x, face.y, face.width, face.height],
                "confidence": Double(face.confidence),
                "points5": points { [$0.x, $0.y] },
                "normalized": [
                    "box": [face.x / w, 1 - (face.y + face.height) / h, face.width / w, face.height / h],
                    "points5": points { [$0.x / w, 1 - $0.y / h] },
                ] as [String: Any],
            ]
        }
        let object: [String: Any] = ["file": file, "width": width, "height": height, "faces": items]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    /// The photo with each face's box, its five points and its confidence drawn.
    public static func overlay(_ faces: [Face], on image: Image, renderer: TextRenderer) throws -> Image {
        let thickness = max(2, Double(min(image.width, image.height)) / 300)
        var out = QuadOverlay.draw(faces.map(quad), on: image, thickness: thickness)
        let radius = max(2, Int(thickness.rounded()))
        let style = LabelStyle.scaled(toHeight: image.height)
        for face in faces {
            for point in face.landmarks { dot(at: point, radius: radius, on: &out) }
            let bitmap = try renderer.render(String(format: "%.0f%%", face.confidence * 100), pixelSize: style.pixelSize)
            let labelHeight = bitmap.height + 2 * style.padding
            LabelDrawing.draw(bitmap, on: &out, x: Int(face.x.rounded()), y: Int(face.y.rounded()) - labelHeight - 2, style: style)
        }
        return out
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
