// 1x1 stride-1 unpadded graph convolution (ExecutionPlan.Conv2D.isPointwise): a GEMM of the
// [cin][pixels] input by the [cout][cin] weights, with conv2d_graph.comp's epilogue (bias, the
// fused activation, the fused fake quantisation).
//
// Built as conv2d.comp is for lavapipe (see its header): the input through a texel view, the
// weights from a UNIFORM buffer at workgroup-uniform addresses (the output-channel block comes
// from gl_WorkGroupID.y, the input channel from the loop counter, so every weight load is one
// scalar load + broadcast), and a register tile of PX pixels x CO output channels per
// invocation (specialization constants, chosen per layer shape in VulkanConv2DGraph.swift).
// The old conv2d_graph.comp read its weights through a texel view (a gather per vec4) and ran
// MobileNetV2's 1x1 layers at 2.3-2.5 GFLOP/s.
//
// One dispatch covers `cinCount` input channels from `cinStart` and the blocks of up to 8
// weight pieces (VulkanGraphWeights, conv2d_graph_weights.glsl): a piece is
// [block][cinCount][CO / 4] vec4s. When the input channels do not fit one piece, the input-channel
// chunks after the first start from the partial sums the previous one stored (ACCUMULATE) and
// only the last (FINISH) applies the epilogue, so every output is summed in input-channel order
// whatever the chunking.
//
// Storage texel stores are per-lane scatters on lavapipe and dominated layers with few input
// channels (an expansion 16 -> 96 channels does 16 multiply-adds per stored float): where the
// plane is a multiple of 4 pixels and the output region starts on a vec4, the
// conv2d_graph_pointwise_vec4 build stores 4 pixels per store through an RGBA view.
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int PX = 8;   // multiple of 4 when VEC_INPUT
layout(constant_id = 2) const int CO = 8;   // multiple of 4
// The plane is a multiple of 4 pixels and the region starts on a vec4: binding 0 is an RGBA
// view and PX pixels are PX / 4 fetches.
layout(constant_id = 3) const bool VEC_INPUT = false;
const int CB4 = CO / 4;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F or RGBA32F (VEC_INPUT)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
#ifdef GRAPH_VEC4_OUTPUT
layout(binding = 3, GS_OUTPUT_RGBA) uniform imageBuffer outputs;
const bool VEC_OUTPUT = true;
#else
layout(binding = 3, GS_OUTPUT_R) uniform imageBuffer outputs;
const bool VEC_OUTPUT = false;
#endif

layout(push_constant) uniform Push {
    uint plane, outChannels, cinStart, cinCount, blockStart;
    float alpha, beta;
    float qScale, qZeroPoint, qLow, qHigh;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"
#include "conv2d_graph_epilogue.glsl"
#include "conv2d_graph_weights.glsl"
#include "conv2d_graph_store.glsl"

void main() {
    uint first = gl_GlobalInvocationID.x * uint(PX);
    if (first >= p.plane) return;
    uint block = gl_WorkGroupID.y;
    uint last = p.plane - 1u;

    vec4 acc[PX * CB4];
    if (ACCUMULATE) {
        [[unroll]] for (int j = 0; j < CB4; j++) [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = min((p.blockStart + block) * uint(CO) + uint(4 * j + c), p.outChannels - 1u);
            float s[PX];
            loadRun(co * p.plane, first, last, s);
            [[unroll]] for (int i = 0; i < PX; i++) acc[i * CB4 + j][c] = s[i];
        }
    } else {
        [[unroll]] for (int k = 0; k < PX * CB4; k++) acc[k] = vec4(0.0);
    }

    uint piece = weightPiece();
    uint w = blockInPiece() * p.cinCount * uint(CB4);
    for (uint ci = 0u; ci < p.cinCount; ci++) {
        uint row = (p.cinStart + ci) * p.plane;
        float v[PX];
        if (VEC_INPUT) {
            [[unroll]] for (int q = 0; q < PX / 4; q++) {
                vec4 x4 = texelFetch(inputs, int((row + min(first + uint(4 * q), last)) >> 2));
                v[4 * q] = x4.x; v[4 * q + 1] = x4.y; v[4 * q + 2] = x4.z; v[4 * q + 3] = x4.w;
            }
        } else {
            [[unroll]] for (int i = 0; i < PX; i++) v[i] = texelFetch(inputs, int(row + min(first + uint(i), last))).r;
        }
        [[unroll]] for (int j = 0; j < CB4; j++) {
            vec4 wv = pieces[piece].weights[w + uint(j)];
            [[unroll]] for (int i = 0; i < PX; i++) acc[i * CB4 + j] = fma(vec4(v[i]), wv, acc[i * CB4 + j]);
        }
        w += uint(CB4);
    }

    [[unroll]] for (int j = 0; j < CB4; j++) {
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = (p.blockStart + block) * uint(CO) + uint(4 * j + c);
            if (co >= p.outChannels) break;
            float bias = 0.0, slope = 0.0;
            if (FINISH) { bias = texelFetch(extras, int(co)).r; slope = texelFetch(extras, int(p.outChannels + co)).r; }
            float y[PX];
            [[unroll]] for (int i = 0; i < PX; i++) {
                y[i] = acc[i * CB4 + j][c];
                y[i] = epilogue(y[i], bias, slope);
            }
            storeRun(co * p.plane + first, int(p.plane - first), y);
        }
    }
}
