#version 450
// The depthwise graph convolution storing one float per store (conv2d_graph_depthwise.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_depthwise.glsl"
