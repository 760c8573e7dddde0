#version 450
// The depthwise graph convolution storing each pair of a run as one 64-bit word into a storage
// buffer, for fp32 outputs whose rows are of an even width but not whole vec4s (MobileNetV2's
// 14x14 maps): one loop over the SIMD lanes per pair on lavapipe instead of one per float
// (conv2d_graph_depthwise.glsl, VulkanBackend.depthwiseStoresPairs).
#extension GL_GOOGLE_include_directive : require
#define GRAPH_PAIR_OUTPUT
#include "conv2d_graph_depthwise.glsl"
