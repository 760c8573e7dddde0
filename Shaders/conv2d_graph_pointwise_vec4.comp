#version 450
// 1x1 graph convolution storing 4 pixels per store through an RGBA view (conv2d_graph_pointwise.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_VEC4_OUTPUT
#include "conv2d_graph_pointwise.glsl"
