/// The order of a text rectangle's corners and of the regions on a page, as a recogniser reads
/// them.
///
/// Corners: topLeft -> topRight runs along the rectangle's longer side (a line of text is longer
/// than high), clockwise on screen as `Quad` documents.
/// - Long side within 45° of horizontal (inclusive): it runs left to right, so a line tilted
///   by up to ±45° keeps its long side on top and topLeft is its upper-left corner.
/// - Long side steeper than 45°: it runs top to bottom, i.e. the text is taken as turned 90°
///   clockwise (read downwards, its top facing right, as the titles on English book spines);
///   topLeft is then the rectangle's top-right corner. Text turned 90° anticlockwise reads
///   upwards and cannot be told from this without reading it: the recogniser should also try
///   the quad turned half round (corners 2, 3, 0, 1) when the long side is steeper than 45°.
/// - Sides equal (within `squareTolerance`): the more horizontal side counts as the long one.
///
/// Regions: top to bottom, then left to right within a row. Sorted by their centres' y, a
/// region joins the row of the region that opened it when its centre is less than half a line
/// height (the smaller of the two quads' topLeft -> bottomLeft sides) below that region's
/// centre; each row is then sorted by centre x. (PaddleOCR's `sorted_boxes` is alike: sorted by
/// the top-left corner's y, then neighbours less than 10 px apart in y put in x order.)
enum TextReadingOrder {
    /// Relative difference under which a rectangle's two sides count as equal.
    static let squareTolerance = 1e-6

    /// `rectangle`'s corners in reading direction.
    static func quad(_ rectangle: MinimumAreaRectangle) -> Quad {
        let c = rectangle.corners
        let centre = Point.mean(c)
        let along = c[1] - c[0], across = c[2] - c[1]
        let longer: Point, shorterLength: Double
        let a = along.length, b = across.length
        if abs(a - b) <= squareTolerance * max(a, b) {
            (longer, shorterLength) = abs(along.x) >= abs(across.x) ? (along, b) : (across, a)
        } else {
            (longer, shorterLength) = a > b ? (along, b) : (across, a)
        }
        var u = longer
        if abs(u.x) >= abs(u.y) ? u.x < 0 : u.y < 0 { u = u * -1 }
        // The text's "down": the reading direction turned 90° clockwise on screen.
        let down = Point(x: -u.y, y: u.x) * (shorterLength / u.length)
        let halfU = u * 0.5, halfDown = down * 0.5
        return Quad(topLeft: centre - halfU - halfDown, topRight: centre + halfU - halfDown,
                    bottomRight: centre + halfU + halfDown, bottomLeft: centre - halfU + halfDown)
    }

    /// The height of a line: its quad's topLeft -> bottomLeft side.
    static func lineHeight(_ quad: Quad) -> Double { quad.topLeft.distance(to: quad.bottomLeft) }

    /// `regions` top to bottom, then left to right in each row.
    static func sorted(_ regions: [TextRegion]) -> [TextRegion] {
        let byHeight = regions.sorted { ($0.quad.centre.y, $0.quad.centre.x) < ($1.quad.centre.y, $1.quad.centre.x) }
        var result: [TextRegion] = []
        result.reserveCapacity(regions.count)
        var row: [TextRegion] = []
        func closeRow() {
            result += row.sorted { ($0.quad.centre.x, $0.quad.centre.y) < ($1.quad.centre.x, $1.quad.centre.y) }
            row.removeAll(keepingCapacity: true)
        }
        for region in byHeight {
            if let opener = row.first {
                let halfLine = 0.5 * min(lineHeight(opener.quad), lineHeight(region.quad))
                if region.quad.centre.y - opener.quad.centre.y >= halfLine { closeRow() }
            }
            row.append(region)
        }
        closeRow()
        return result
    }
}
