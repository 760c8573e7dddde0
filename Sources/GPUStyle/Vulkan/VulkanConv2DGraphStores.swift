import CVulkan

/// Where the 1x1, Winograd and general graph convolutions store their outputs as 64-bit words
/// (the "_u64" builds, conv2d_graph_store.glsl's GRAPH_U64_OUTPUT): each vec4 of an output run
/// as two packed pairs of fp32 into a storage buffer aliasing the output region. Lavapipe runs a
/// storage texel store as one loop over the SIMD lanes per 32-bit word and a storage-buffer
/// store as one per store (as for the depthwise shader's `depthwiseStoresU64`).
///
/// Device time with rgba32f texel stores over time with 64-bit stores, per kind
/// (VulkanConv2DGraphStoresTimingTests: MobileNetV2's chain at 224x224, RetinaFace-like 3x3
/// layers at 160x120, a 3 -> 8 3x3/2 stem at 640x480; medians of 9-15 alternating rounds in one
/// process, seven runs, lavapipe on AMD EPYC Zen 4, 2 cores shared at load 4-6.5): 1x1 0.95-1.14
/// (median 1.07), Winograd 0.90-1.17 (1.06), the 3-channel stems 1.07-1.87 (1.16), depthwise (the
/// control) 0.85-1.35 (1.12); the general 16 -> 64 3x3/2 0.95-0.99 in three runs, no gain (144
/// multiply-adds per stored float, the stems 27), so other general layers keep texel stores.
extension VulkanBackend {
    /// Per shader kind, whether its vec4 output runs take the u64 build where `storesU64` allows.
    static let pointwiseStoresU64 = true
    static let winogradStoresU64 = true
    // General layers: the stems only (VulkanBackend.stemMaximumInputs input channels or fewer).

    /// Whether a dispatch may bind these output regions as u64vec2 storage buffers: the device
    /// has shaderInt64 (not under `ComputeOptions.Fault.noInt64`), the regions are fp32 (an fp16
    /// buffer keeps the "_f16" texel-store build) and start on the storage-buffer offset
    /// alignment. The caller has checked they are runs of whole vec4s (its VEC_OUTPUT).
    func storesU64(_ regions: [ExecutionPlan.Region]) -> Bool {
        let alignment = Int(context.limits.minStorageBufferOffsetAlignment)
        return context.int64 && regions.allSatisfy { !isHalf($0.buffer) && (4 * $0.offset) % alignment == 0 }
    }
}
