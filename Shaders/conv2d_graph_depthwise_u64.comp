#version 450
// The depthwise graph convolution storing each vec4 of a run as two 64-bit words (pairs of fp32)
// into a storage buffer: one loop over the SIMD lanes per store on lavapipe instead of one per
// float (conv2d_graph_depthwise.glsl, VulkanBackend.depthwiseStoresU64).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_U64_OUTPUT
#include "conv2d_graph_depthwise.glsl"
