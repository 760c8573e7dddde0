#version 450
// 1x1 graph convolution storing each vec4 of a run as two 64-bit words (pairs of fp32) into a storage buffer (conv2d_graph_pointwise.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_U64_OUTPUT
#include "conv2d_graph_pointwise.glsl"
