#version 450
// Dense layer on a 1-pixel output map storing one float per store (conv2d_graph_gemv.glsl).
#extension GL_GOOGLE_include_directive : require
#include "conv2d_graph_gemv.glsl"
