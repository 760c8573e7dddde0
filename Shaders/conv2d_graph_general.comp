#version 450
// The KH x KW graph convolution storing one float per store (conv2d_graph_general.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_general.glsl"
