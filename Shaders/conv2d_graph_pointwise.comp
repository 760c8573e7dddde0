#version 450
// 1x1 graph convolution storing one float per store (conv2d_graph_pointwise.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_pointwise.glsl"
