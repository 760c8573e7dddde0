// The bindings, push constants and shared functions of the graph's spatial convolutions that
// read a row window of the input (conv2d_graph_general.glsl, conv2d_graph_winograd.glsl): the
// input through a texel view, the bias and PReLU slopes, the output (R, RGBA in the
// GRAPH_VEC4_OUTPUT builds, a storage buffer of u64vec2s in the GRAPH_U64_OUTPUT ones, see
// conv2d_graph_store.glsl), and the window, weight-piece, epilogue and store functions.
// Included after the including shader's specialization constants (PX, CO, SPAN4, ...).
layout(binding = 0) uniform samplerBuffer inputs;   // R32F, or RGBA32F (VEC_INPUT)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
#if defined(GRAPH_U64_OUTPUT)
#extension GL_ARB_gpu_shader_int64 : require
layout(std430, binding = 3) buffer Outputs { u64vec2 outputs[]; };  // fp32 pairs
const bool VEC_OUTPUT = true;
#elif defined(GRAPH_VEC4_OUTPUT)
layout(binding = 3, GS_OUTPUT_RGBA) uniform imageBuffer outputs;
const bool VEC_OUTPUT = true;
#else
layout(binding = 3, GS_OUTPUT_R) uniform imageBuffer outputs;
const bool VEC_OUTPUT = false;
#endif

layout(push_constant) uniform Push {
    int inWidth, inHeight, outWidth, outHeight, padTop, padLeft;
    uint runsPerRow, outChannels, cinStart, cinCount, blockStart;
    float alpha, beta;
    float qScale, qZeroPoint, qLow, qHigh;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"
#include "conv2d_graph_epilogue.glsl"
#include "conv2d_graph_weights.glsl"
#include "conv2d_graph_window.glsl"
#include "conv2d_graph_store.glsl"
