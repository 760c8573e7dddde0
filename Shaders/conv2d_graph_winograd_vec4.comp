#version 450
// The F(2x2, 3x3) Winograd graph convolution storing 4 pixels per store through an RGBA view (conv2d_graph_winograd.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_VEC4_OUTPUT
#include "conv2d_graph_winograd.glsl"
