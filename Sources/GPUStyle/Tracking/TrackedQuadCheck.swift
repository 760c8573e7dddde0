import Foundation

/// Why `QuadTracker.track` gave up on a frame.
enum QuadTrackingFailure: String, Sendable, Equatable {
    case frameSizeChanged = "frame size changed"
    case tooFewPoints = "too few points tracked"
    case noConsistentMotion = "no homography fits the tracked points"
    case tooFewInliers = "too few points follow one homography"
    case notConvex = "the quad is no longer convex"
    case areaChange = "the quad's area changed too much in one frame"
    case cornerAngle = "a corner angle is implausible"
    case leftFrame = "the quad is mostly outside the frame"
}

/// Is a tracked quad still a picture seen by a camera? A wrong homography from a few bad points
/// usually produces a quad that folds, collapses, balloons or flies off: cheap tests catch it.
enum TrackedQuadCheck {
    static func failure(of quad: Quad, previous: Quad, frameWidth: Int, frameHeight: Int,
                        options: QuadTrackerOptions) -> QuadTrackingFailure? {
        guard (try? quad.validateForWarp()) != nil else { return .notConvex }
        let ratio = quad.area / previous.area
        guard ratio.isFinite, ratio <= options.maximumAreaChange, ratio >= 1 / options.maximumAreaChange else {
            return .areaChange
        }
        let low = options.minimumCornerAngle, high = 180 - options.minimumCornerAngle
        let corners = quad.corners
        guard (0..<4).allSatisfy({ i in
            let angle = Quad.cornerAngle(corners, at: i)
            return angle >= low && angle <= high
        }) else { return .cornerAngle }
        guard visibleShare(quad, width: frameWidth, height: frameHeight) >= options.minimumVisibleShare else {
            return .leftFrame
        }
        return nil
    }

    /// Share of the quad's area inside the frame's pixels ([−0.5, W − 0.5] × [−0.5, H − 0.5]):
    /// the quad clipped by each side of the frame in turn (Sutherland and Hodgman, 1974; exact
    /// for a convex polygon against a rectangle).
    static func visibleShare(_ quad: Quad, width: Int, height: Int) -> Double {
        let total = quad.area
        guard total > 0 else { return 0 }
        var polygon = quad.corners
        let x0 = -0.5, y0 = -0.5, x1 = Double(width) - 0.5, y1 = Double(height) - 0.5
        // Each half-plane as a signed distance, positive inside.
        let sides: [(Point) -> Double] = [{ $0.x - x0 }, { x1 - $0.x }, { $0.y - y0 }, { y1 - $0.y }]
        for side in sides {
            guard !polygon.isEmpty else { break }
            var clipped: [Point] = []
            for i in 0..<polygon.count {
                let a = polygon[i], b = polygon[(i + 1) % polygon.count]
                let da = side(a), db = side(b)
                if da >= 0 { clipped.append(a) }
                if (da >= 0) != (db >= 0) {
                    let t = da / (da - db)
                    clipped.append(a + (b - a) * t)
                }
            }
            polygon = clipped
        }
        guard polygon.count >= 3 else { return 0 }
        var area = 0.0
        for i in 0..<polygon.count {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            area += a.x * b.y - b.x * a.y
        }
        return abs(area) / 2 / total
    }
}
