#version 450
// The F(2x2, 3x3) Winograd graph convolution storing one float per store (conv2d_graph_winograd.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_winograd.glsl"
