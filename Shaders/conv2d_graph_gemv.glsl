// Dense graph convolution whose window covers its whole input and whose output map is one pixel
// (a fully connected layer: MobileNetV2's 1280 -> 1000 classifier after the global average pool,
// a K x K head over a K x K map): y = W x over K = inputs x kh x kw values, the input's [C][H][W]
// order being the weights' [in][kh][kw] order. Lanes run over output channels: each invocation
// sums CO (a multiple of 4) consecutive outputs over all K inputs, reading each input value once
// for its CO multiply-adds (the same index on every lane) and its weights as CO / 4 vec4s packed
// [K][blocks of 4 outputs] (VulkanConv2DGraphGemv.swift), so the lanes of one fetch read
// consecutive vec4s. conv2d_graph.comp puts output pixels on lanes: on a 1x1 map it ran this
// layer at ~1 GFLOP/s, and the 1x1 shader (pixels on lanes, one busy lane of 8) at 0.1.
// Outputs of 4 consecutive channels are 4 consecutive floats of a 1-pixel plane, stored as one
// run of conv2d_graph_store.glsl (PX = 4 channels; one vec4 store in the _vec4 build).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int CO = 8;   // outputs per invocation, a multiple of 4
// Binding 0 as an RGBA view (the input region starts on a vec4 and K is a multiple of 4): 4
// input values per fetch.
layout(constant_id = 2) const bool VEC_INPUT = false;
const int CB4 = CO / 4;
const int PX = 4;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F or RGBA32F (VEC_INPUT)
layout(binding = 1) uniform samplerBuffer weights;  // RGBA32F: [K][blocks]
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
#include "conv2d_graph_output.glsl"

layout(push_constant) uniform Push {
    uint inputs, outChannels, blocks;
    float alpha, beta;
    float qScale, qZeroPoint, qLow, qHigh;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"
#include "conv2d_graph_epilogue.glsl"
#include "conv2d_graph_store.glsl"

void main() {
    uint firstBlock = gl_GlobalInvocationID.x * uint(CB4);
    if (firstBlock >= p.blocks) return;
    // Blocks past the last read the last one's weights; their sums are never stored.
    int w[CB4];
    [[unroll]] for (int j = 0; j < CB4; j++) w[j] = int(min(firstBlock + uint(j), p.blocks - 1u));
    vec4 acc[CB4];
    [[unroll]] for (int j = 0; j < CB4; j++) acc[j] = vec4(0.0);
    int stride = int(p.blocks);
    if (VEC_INPUT) {
        for (uint k = 0u; k < p.inputs; k += 4u) {
            vec4 x = texelFetch(inputs, int(k >> 2));
            [[unroll]] for (int e = 0; e < 4; e++) {
                [[unroll]] for (int j = 0; j < CB4; j++) acc[j] = fma(vec4(x[e]), texelFetch(weights, w[j]), acc[j]);
                [[unroll]] for (int j = 0; j < CB4; j++) w[j] += stride;
            }
        }
    } else {
        for (uint k = 0u; k < p.inputs; k++) {
            float x = texelFetch(inputs, int(k)).r;
            [[unroll]] for (int j = 0; j < CB4; j++) acc[j] = fma(vec4(x), texelFetch(weights, w[j]), acc[j]);
            [[unroll]] for (int j = 0; j < CB4; j++) w[j] += stride;
        }
    }
    [[unroll]] for (int j = 0; j < CB4; j++) {
        uint co = (firstBlock + uint(j)) * 4u;
        if (co >= p.outChannels) break;
        float y[PX];
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint o = min(co + uint(c), p.outChannels - 1u);
            y[c] = epilogue(acc[j][c], texelFetch(extras, int(o)).r, texelFetch(extras, int(p.outChannels + o)).r);
        }
        storeRun(co, int(p.outChannels - co), y);
    }
}
