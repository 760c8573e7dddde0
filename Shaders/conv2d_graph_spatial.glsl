// The bindings, push constants and shared functions of the graph's spatial convolutions that
// read a row window of the input (conv2d_graph_general.glsl, conv2d_graph_winograd.glsl): the
// input through a texel view, the bias and PReLU slopes, the output (R, or RGBA in the
// GRAPH_VEC4_OUTPUT builds), and the window, weight-piece, epilogue and store functions.
// Included after the including shader's specialization constants (PX, CO, SPAN4, ...).
layout(binding = 0) uniform samplerBuffer inputs;   // R32F, or RGBA32F (VEC_INPUT)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
#ifdef GRAPH_VEC4_OUTPUT
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
