#version 450
// A depthwise convolution fused into the 1x1 projection reading it, storing 4 pixels per store through an RGBA view
// (conv2d_graph_dwpw.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_VEC4_OUTPUT
#include "conv2d_graph_dwpw.glsl"
