import Foundation

/// The kernel device nodes through which a GPU's Vulkan driver reaches its hardware. Without
/// any, every device a Vulkan loader could list is a CPU implementation (lavapipe, SwiftShader),
/// so `ComputeChoice`'s `auto` rule can take the CPU path without loading Vulkan: creating
/// lavapipe's instance just to learn it is a CPU costs ~25 ms of CPU and 47 MB of peak memory
/// per command on this machine (`gpustyle --style 2 examples/photo.png` with `--device auto`:
/// 181 MiB peak, against 134 MiB with `--device cpu`).
public enum GPUDeviceNodes {
    /// Name prefixes in `/dev`, and in `/dev/dri`: DRM render nodes (Mesa's drivers for AMD,
    /// Intel, Broadcom, Qualcomm and virtio-gpu; NVIDIA's with nvidia-drm), NVIDIA's own nodes,
    /// WSL's paravirtual GPU, Arm Mali's and Qualcomm KGSL's kernel drivers.
    public static let devPrefixes = ["nvidia", "dxg", "mali", "kgsl"]
    public static let driPrefixes = ["renderD", "card"]

    /// The GPU nodes under `root` (default `/dev`), by path.
    public static func present(under root: String = "/dev") -> [String] {
        let files = FileManager.default
        let top = ((try? files.contentsOfDirectory(atPath: root)) ?? [])
            .filter { name in devPrefixes.contains { name.hasPrefix($0) } }.map { "\(root)/\($0)" }
        let dri = ((try? files.contentsOfDirectory(atPath: "\(root)/dri")) ?? [])
            .filter { name in driPrefixes.contains { name.hasPrefix($0) } }.map { "\(root)/dri/\($0)" }
        return (top + dri).sorted()
    }
}
