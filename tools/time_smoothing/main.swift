// The timing driver of tools/time_smoothing/run.sh (not part of the package).
import Foundation
let width = 1920, height = 1080, plane = width * height
var state: UInt64 = 7
func next() -> UInt64 { state &+= 0x9E37_79B9_7F4A_7C15; var z = state; z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9; z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB; return z ^ (z >> 31) }
let base = (0..<3 * plane).map { _ in Float(next() % 256) / 255 }
func frame(_ t: Int) -> Image {
    var rgb = base
    for c in 0..<3 { for y in 0..<height { for x in width / 2 ..< width { rgb[c * plane + y * width + x] = base[c * plane + y * width + (x + 3 * t) % width] } } }
    for i in stride(from: 0, to: rgb.count, by: 7) { rgb[i] = min(1, rgb[i] + Float(next() % 5) / 255) }
    return Image(width: width, height: height, rgb: rgb)
}
let frames = (0..<16).map(frame)
var smoothing = TemporalSmoothing(.init(strength: 0.8))
var times: [Double] = []
for (i, image) in frames.enumerated() {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = smoothing.apply(input: image, stylized: image)
    if i >= 8 { times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
}
print("1080p, window full, ms:", times.map { String(format: "%.1f", $0) }.joined(separator: " "), "median", String(format: "%.1f", times.sorted()[times.count / 2]))
