// The weights of one uniform-buffer graph convolution dispatch (conv2d_graph_pointwise.glsl,
// conv2d_graph_general.glsl, conv2d_graph_depthwise.glsl): up to GRAPH_WEIGHT_PIECES pieces of
// one input-channel chunk (VulkanGraphWeights), each a 64 KiB uniform binding of
// BLOCKS_PER_PIECE output-channel blocks, bound as one descriptor array. The workgroup's block
// (gl_WorkGroupID.y) picks its piece by a workgroup-uniform index (lavapipe on Mesa 22.3 still
// gathers the weight vec4s per lane: docs/speed.md "What bounds the 1x1 shader"). One piece per dispatch made MobileNetV2's 53 convolutions 173
// dispatches (27 for the 320 -> 1280 one at 7x7, 6 workgroups each; 63 with 8 pieces), and
// lavapipe spends ~20 us on any dispatch (VulkanDispatchFloorTimingTests, AMD EPYC Zen 4).
// Needs GL_GOOGLE_include_directive (for this include) only; the array is indexed dynamically
// (shaderUniformBufferArrayDynamicIndexing, enabled by VulkanContext).
layout(constant_id = 9) const int BLOCKS_PER_PIECE = 1;
const int GRAPH_WEIGHT_PIECES = 8;  // VulkanBackend.graphWeightPieces
layout(std140, binding = 1) uniform Weights { vec4 weights[4096]; } pieces[GRAPH_WEIGHT_PIECES];  // 64 KiB each, the most a UBO binding may hold

// The piece holding the workgroup's block, and the block's index inside it.
uint weightPiece() { return gl_WorkGroupID.y / uint(BLOCKS_PER_PIECE); }
uint blockInPiece() { return gl_WorkGroupID.y % uint(BLOCKS_PER_PIECE); }
