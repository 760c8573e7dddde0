#version 450
// A depthwise convolution fused into the 1x1 projection reading it, storing one float per store (conv2d_graph_dwpw.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_dwpw.glsl"
