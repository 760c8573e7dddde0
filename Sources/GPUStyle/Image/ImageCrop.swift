extension Image {
    /// The `width` x `height` pixels whose top-left is (`x`, `y`); the rectangle must lie inside
    /// the image. Alpha is kept.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) -> Image {
        precondition(x >= 0 && y >= 0 && w >= 0 && h >= 0 && x + w <= width && y + h <= height, "the crop must lie inside the image")
        func crop(_ plane: ArraySlice<Float>) -> [Float] {
            var out = [Float](repeating: 0, count: w * h)
            let base = plane.startIndex
            for row in 0..<h {
                let source = base + (y + row) * width + x
                for column in 0..<w { out[row * w + column] = plane[source + column] }
            }
            return out
        }
        let plane = width * height
        let rgb = (0..<3).flatMap { crop(self.rgb[($0 * plane)..<(($0 + 1) * plane)]) }
        return Image(width: w, height: h, rgb: rgb, alpha: alpha.map { crop($0[...]) })
    }
}
