#version 450
// The KH x KW graph convolution storing each vec4 of a run as two 64-bit words (pairs of fp32) into a storage buffer (conv2d_graph_general.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_U64_OUTPUT
#include "conv2d_graph_general.glsl"
