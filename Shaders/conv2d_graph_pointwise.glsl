// 1x1 stride-1 unpadded graph convolution (ExecutionPlan.Conv2D.isPointwise): a GEMM of the
// [cin][pixels] input by the [cout][cin] weights, with conv2d_graph.comp's epilogue (bias, the
// fused activation, the fused fake quantisation).
//
// Built as conv2d.comp is for lavapipe (see its header): the input through a texel view, the
// weights from a UNIFORM buffer at workgroup-uniform addresses (the output-channel block comes
// from gl_WorkGroupID.y, the input channel from the loop counter), and a register tile of PX
// pixels x CO output channels per invocation (specialization constants, chosen per layer shape
// in VulkanConv2DGraph.swift). Lavapipe (Mesa 22.3) still loads each weight vec4 as a per-lane
// gather (~85 instructions per 8 lanes), splits fma() into a multiply and an add and blends
// every accumulator write with the loop mask: ~10 instructions per 8 multiply-adds in the
// 8 x 8 tile (its JIT code, docs/speed.md "What bounds the 1x1 shader on lavapipe").
// Broadcasting the weights with subgroupBroadcast (0.72x) or reading them through a texel view
// (0.98x, same rounds) did not beat it.
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
// conv2d_graph_pointwise_vec4 build stores 4 pixels per store through an RGBA view, and the
// conv2d_graph_pointwise_u64 build (fp32 outputs, shaderInt64) each vec4 as two 64-bit words
// into storage buffers (conv2d_graph_store.glsl, VulkanBackend.graphStoresU64).
//
// Input fetches are vec4s through an RGBA view on every plane size (VEC_INPUT): a run of PX
// pixels (PX a multiple of 4, starting at a multiple of 4) of channel ci starts at float
// (cinStart + ci) * plane + first, whose offset in its vec4 depends on ci only through
// ci % 4 when the plane is not a multiple of 4 (7x7 = 49 pixels). There the input-channel loop
// takes 4 channels a step, each with its offset known at compile time (SHIFT0-3 from PLANE_MOD4,
// START_MOD4), and takes its PX floats out of PX / 4 + 1 aligned vec4s. Scalar R32 fetches
// (the old path on such planes) ran MobileNetV2's 7x7 layers at 8.1-9.0 GFLOP/s where this runs
// them at 8.5-13.3 (same rounds, lavapipe on AMD EPYC Zen 4, 2 cores under load 9). Passing the
// offset as a function argument instead (folded only after inlining and unrolling) doubled the
// lavapipe CPU time of a classify pass (168 against 80 ms).
//
// A residual add that takes the convolution's output (`ADD`: the projection of an inverted
// residual block) is fused into the store: the sum plus the bias, through the convolution's
// activation, plus the other operand (binding 4), then the add's fake quantisation, stored to
// binding 3; with KEEP_SUM the convolution's own output also goes to binding 5 (when some later
// step may read it).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int PX = 8;   // multiple of 4 when VEC_INPUT
layout(constant_id = 2) const int CO = 8;   // multiple of 4
// Binding 0 is an RGBA view covering every input float (its last vec4 whole) and PX pixels are
// fetched as aligned vec4s.
layout(constant_id = 3) const bool VEC_INPUT = false;
// plane % 4 and (cinStart * plane) % 4 (VEC_INPUT): where channel ci's run starts in its vec4.
layout(constant_id = 4) const int PLANE_MOD4 = 0;
layout(constant_id = 5) const int START_MOD4 = 0;
// The fused residual add (see above) and whether the convolution's output is stored too.
layout(constant_id = 6) const bool ADD = false;
layout(constant_id = 7) const bool KEEP_SUM = false;
const int CB4 = CO / 4;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F or RGBA32F (VEC_INPUT)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
layout(binding = 4) uniform samplerBuffer addend;   // the add's other operand (ADD), like outputs
#include "storage_format.glsl"
#if defined(GRAPH_U64_OUTPUT)
#extension GL_ARB_gpu_shader_int64 : require
layout(std430, binding = 3) buffer Outputs { u64vec2 outputs[]; };  // fp32 pairs
layout(std430, binding = 5) writeonly buffer Sums { u64vec2 sums[]; };
const bool VEC_OUTPUT = true;
#elif defined(GRAPH_VEC4_OUTPUT)
layout(binding = 3, GS_OUTPUT_RGBA) uniform imageBuffer outputs;
layout(binding = 5, GS_OUTPUT_RGBA) uniform writeonly imageBuffer sums;
const bool VEC_OUTPUT = true;
#else
layout(binding = 3, GS_OUTPUT_R) uniform imageBuffer outputs;
layout(binding = 5, GS_OUTPUT_R) uniform writeonly imageBuffer sums;
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

// Where channel cinStart + 4k + t starts in its vec4 (VEC_INPUT; t < 4).
const int SHIFT0 = START_MOD4 & 3;
const int SHIFT1 = (START_MOD4 + PLANE_MOD4) & 3;
const int SHIFT2 = (START_MOD4 + 2 * PLANE_MOD4) & 3;
const int SHIFT3 = (START_MOD4 + 3 * PLANE_MOD4) & 3;

// One input channel's multiply-adds into acc: the channel's plane starts at float `row`, SHIFT
// floats into its vec4 (VEC_INPUT), and its weights at vec4 `w` of the piece; PX inputs from
// pixel `first`. Pixels past `last` read `last` (scalar) or whatever follows it in the view
// (vec4s): their sums are never stored.
#define CHANNEL_STEP(row, SHIFT, w) { \
    float v[PX]; \
    if (VEC_INPUT) { \
        uint base = ((row) + first) >> 2, end = ((row) + last) >> 2; \
        vec4 x[PX / 4 + 1]; \
        [[unroll]] for (int q = 0; q < PX / 4; q++) x[q] = texelFetch(inputs, int(min(base + uint(q), end))); \
        if (SHIFT > 0) x[PX / 4] = texelFetch(inputs, int(min(base + uint(PX / 4), end))); \
        [[unroll]] for (int i = 0; i < PX; i++) v[i] = x[(i + SHIFT) >> 2][(i + SHIFT) & 3]; \
    } else { \
        [[unroll]] for (int i = 0; i < PX; i++) v[i] = texelFetch(inputs, int((row) + min(first + uint(i), last))).r; \
    } \
    [[unroll]] for (int j = 0; j < CB4; j++) { \
        vec4 wv = pieces[piece].weights[(w) + uint(j)]; \
        [[unroll]] for (int i = 0; i < PX; i++) acc[i * CB4 + j] = fma(vec4(v[i]), wv, acc[i * CB4 + j]); \
    } \
}

// The add's other operand for the run from pixel `first` of the plane starting at `base`
// (indices past `last` read `last`), as conv2d_graph_store.glsl's loadRun does for binding 3,
// and the store of the convolution's own outputs to binding 5 (KEEP_SUM).
void loadAddend(uint base, uint first, uint last, out float b[PX]) {
    if (VEC_OUTPUT) {
        [[unroll]] for (int q = 0; q < PX / 4; q++) {
            vec4 v = texelFetch(addend, int((base + min(first + uint(4 * q), last)) >> 2));
            [[unroll]] for (int e = 0; e < 4; e++) b[4 * q + e] = v[e];
        }
    } else {
        [[unroll]] for (int i = 0; i < PX; i++) b[i] = texelFetch(addend, int(base + min(first + uint(i), last))).r;
    }
}

GRAPH_STORE_RUN(storeSums, sums)

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
    uint row = p.cinStart * p.plane;
    if (!VEC_INPUT || PLANE_MOD4 == 0) {
        // Every channel starts SHIFT0 floats into its vec4.
        for (uint ci = 0u; ci < p.cinCount; ci++) {
            CHANNEL_STEP(row, SHIFT0, w)
            row += p.plane;
            w += uint(CB4);
        }
    } else {
        // Four channels a step, each with its own offset.
        uint ci = 0u;
        for (; ci + 4u <= p.cinCount; ci += 4u) {
            CHANNEL_STEP(row, SHIFT0, w)
            CHANNEL_STEP(row + p.plane, SHIFT1, w + uint(CB4))
            CHANNEL_STEP(row + 2u * p.plane, SHIFT2, w + uint(2 * CB4))
            CHANNEL_STEP(row + 3u * p.plane, SHIFT3, w + uint(3 * CB4))
            row += 4u * p.plane;
            w += uint(4 * CB4);
        }
        // The last cinCount % 4 (ci is a multiple of 4 here).
        if (ci < p.cinCount) CHANNEL_STEP(row, SHIFT0, w)
        if (ci + 1u < p.cinCount) CHANNEL_STEP(row + p.plane, SHIFT1, w + uint(CB4))
        if (ci + 2u < p.cinCount) CHANNEL_STEP(row + 2u * p.plane, SHIFT2, w + uint(2 * CB4))
    }

    [[unroll]] for (int j = 0; j < CB4; j++) {
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = (p.blockStart + block) * uint(CO) + uint(4 * j + c);
            if (co >= p.outChannels) break;
            float bias = 0.0, slope = 0.0;
            if (FINISH) { bias = texelFetch(extras, int(co)).r; slope = texelFetch(extras, int(p.outChannels + co)).r; }
            uint at = co * p.plane + first;
            int valid = int(p.plane - first);
            float y[PX];
            if (ADD) {
                float s[PX];
                [[unroll]] for (int i = 0; i < PX; i++) s[i] = activate(acc[i * CB4 + j][c] + bias, ACTIVATION, p.alpha, p.beta, slope);
                if (KEEP_SUM) storeSums(at, valid, s);
                float b[PX];
                loadAddend(co * p.plane, first, last, b);
                [[unroll]] for (int i = 0; i < PX; i++) {
                    y[i] = s[i] + b[i];
                    if (QUANTIZE) y[i] = fakeQuantize(y[i], p.qScale, p.qZeroPoint, p.qLow, p.qHigh);
                }
            } else {
                [[unroll]] for (int i = 0; i < PX; i++) y[i] = epilogue(acc[i * CB4 + j][c], bias, slope);
            }
            storeRun(at, valid, y);
        }
    }
}
