#version 450
// Dense layer on a 1-pixel output map storing 4 channels per store through an RGBA view
// (conv2d_graph_gemv.glsl).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_VEC4_OUTPUT
#include "conv2d_graph_gemv.glsl"
