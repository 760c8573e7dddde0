// The write-only output binding (3) of the graph convolution shaders that only store their
// outputs (conv2d_graph_depthwise.glsl, conv2d_graph_dwpw.glsl, conv2d_graph_gemv.glsl; the
// pointwise shader also reads its binding 3 when it accumulates, so it declares its own). The
// build picks the store: GRAPH_U64_OUTPUT each vec4 as two 64-bit words into a storage buffer,
// GRAPH_PAIR_OUTPUT pairs of floats as 64-bit words, GRAPH_VEC4_OUTPUT vec4s through an RGBA
// view, otherwise floats through an R view (conv2d_graph_store.glsl writes through it).
// Needs storage_format.glsl included first (GS_OUTPUT_RGBA, GS_OUTPUT_R).
#define GRAPH_WRITE_ONLY_OUTPUT
#if defined(GRAPH_U64_OUTPUT)
#extension GL_ARB_gpu_shader_int64 : require
layout(std430, binding = 3) writeonly buffer Outputs { u64vec2 outputs[]; };  // fp32 pairs
const bool VEC_OUTPUT = true;
#elif defined(GRAPH_PAIR_OUTPUT)
#extension GL_ARB_gpu_shader_int64 : require
layout(std430, binding = 3) writeonly buffer Outputs { uint64_t outputs[]; };  // fp32 pairs
const bool VEC_OUTPUT = false;
#elif defined(GRAPH_VEC4_OUTPUT)
layout(binding = 3, GS_OUTPUT_RGBA) uniform writeonly imageBuffer outputs;
const bool VEC_OUTPUT = true;
#else
layout(binding = 3, GS_OUTPUT_R) uniform writeonly imageBuffer outputs;
const bool VEC_OUTPUT = false;
#endif
