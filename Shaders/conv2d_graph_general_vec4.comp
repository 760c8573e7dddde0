#version 450
// The KH x KW graph convolution storing 4 pixels per store through an RGBA view (conv2d_graph_general.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_VEC4_OUTPUT
#include "conv2d_graph_general.glsl"
