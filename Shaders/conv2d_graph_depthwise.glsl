// Depthwise KH x KW graph convolution (groups = input = output channels; any strides, zero
// padding) with conv2d_graph.comp's epilogue (bias, fused activation, fused fake quantisation).
//
// Built as conv2d.comp is for lavapipe (see its header): the input through a texel view and
// the KH * KW weights of the channel from a UNIFORM buffer at workgroup-uniform addresses (the
// channel comes from gl_WorkGroupID.y). Each invocation computes a PX x PY tile of output
// pixels (PY rows of PX consecutive pixels), so one input row of SPAN values feeds up to
// KW * PX multiply-adds for each of the rows it serves; the old conv2d_graph.comp computed one
// pixel run per channel with a texel fetch per weight and ran at 0.4 GFLOP/s. Invocations are
// numbered along tile rows, so narrow maps still fill the SIMD lanes; a tap outside the map
// reads zero.
//
// The weights are [channel][KH * KW] floats, each channel padded to whole vec4s.
// Texel fetches and storage texel stores are per-lane gathers and scatters on lavapipe, and a
// depthwise or narrow layer does only 9-27 multiply-adds per float it moves: rows of whole vec4s
// are read as vec4s (VEC_INPUT) and, in the conv2d_graph_depthwise_vec4 build, stored as vec4s.
//
// Stores are most of a depthwise layer's cost on lavapipe: a storage texel store is one loop
// over the SIMD lanes per 32-bit word (an rgba32f store is four such loops), so with 9
// multiply-adds per output the stores took ~40 % of the time (VulkanConv2DGraphTimingTests with
// the stores skipped but every sum kept: stride 1 6.3-8.0 GFLOP/s against 4.0-4.4; AMD EPYC Zen
// 4, 2 shared cores). A storage-buffer store is one loop over the lanes per store whatever its
// width, so the conv2d_graph_depthwise_u64 build (GRAPH_U64_OUTPUT; fp32 output, shaderInt64)
// stores each vec4 of a run as a u64vec2 of float pairs: 25-40 % faster (see
// VulkanBackend.depthwiseStoresU64). Tried and dropped (same sittings, 1x1 layers as the
// control): vec4 storage-buffer stores, no faster than rgba32f texel stores (four 32-bit words
// per lane each); u64vec4 stores of 8-pixel runs, no faster than u64vec2; staging the workgroup's
// input tile in shared memory (cooperative vec4 fetches, barrier, compute from shared memory):
// 2.5 against 7.6 GFLOP/s, since lavapipe runs every shared-memory load and store as a loop over
// the lanes too; one invocation walking PY rows of a strip with the 3 row windows rolled in
// registers (a third fewer fetches): 3.8 against 7.6 (1x1 control 10.1 against 17.8: 0.38 against
// 0.43 of it), as fetches are not the bound (fetching one row in 6: 5.8 against 4.5). Stride 2
// needs no even/odd de-interleave here: each window float is its own SIMD register, so the
// stride costs only the wider span fetched.
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int PX = 4;
layout(constant_id = 2) const int PY = 2;
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SY = 1;  // strides
layout(constant_id = 6) const int SX = 1;
// The input rows are whole vec4s (width a multiple of 4, region on a vec4) and PX * SX a
// multiple of 4: binding 0 is an RGBA view and a row's window is SPAN4 aligned fetches from 4
// floats before the run's first column, SHIFT = 4 - padLeft of them before the window.
layout(constant_id = 7) const bool VEC_INPUT = false;
layout(constant_id = 8) const int SHIFT = 0;
// CHANNEL_RUNS > 0: several channels per workgroup. Invocation x of piece gl_WorkGroupID.y is
// run x % CHANNEL_RUNS of the piece's block x / CHANNEL_RUNS (CHANNEL_RUNS = the runs of one
// channel's map), so small maps fill whole workgroups of 64 (VulkanBackend.depthwisePacksChannels);
// the channel's taps are then loaded at lane-varying addresses (a gather from the uniform buffer).
layout(constant_id = 14) const int CHANNEL_RUNS = 0;
const int SPAN = (PX - 1) * SX + KW;
const int SPAN4 = (SHIFT + SPAN + 3) / 4;
const int ROWS = (PY - 1) * SY + KH;
const int TAPS4 = (KH * KW + 3) / 4;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F, or RGBA32F (VEC_INPUT)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
#include "conv2d_graph_output.glsl"

layout(push_constant) uniform Push {
    int inWidth, inHeight, outWidth, outHeight, padTop, padLeft;
    uint runsPerRow, channels, channelStart;
    float alpha, beta;
    float qScale, qZeroPoint, qLow, qHigh;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"
#include "conv2d_graph_epilogue.glsl"
#include "conv2d_graph_weights.glsl"
#include "conv2d_graph_window.glsl"
#include "conv2d_graph_depthwise_sums.glsl"
#include "conv2d_graph_store.glsl"

void main() {
    uint run = gl_GlobalInvocationID.x, block = blockInPiece(), piece = weightPiece();
    uint c = p.channelStart + gl_WorkGroupID.y;
    if (CHANNEL_RUNS > 0) {
        block = run / uint(CHANNEL_RUNS);
        run %= uint(CHANNEL_RUNS);
        piece = gl_WorkGroupID.y;
        c = p.channelStart + piece * uint(BLOCKS_PER_PIECE) + block;
        if (block >= uint(BLOCKS_PER_PIECE) || c >= p.channels) return;
    }
    int y0 = int(run / p.runsPerRow) * PY;
    if (y0 >= p.outHeight) return;
    int x0 = int(run % p.runsPerRow) * PX;
    uint w4 = block * uint(TAPS4);

    float wt[TAPS4 * 4];
    [[unroll]] for (int t = 0; t < TAPS4; t++) {
        vec4 v = pieces[piece].weights[w4 + uint(t)];
        wt[4 * t] = v.x; wt[4 * t + 1] = v.y; wt[4 * t + 2] = v.z; wt[4 * t + 3] = v.w;
    }

    int xs = x0 * SX - p.padLeft;
    bool inside[SPAN];
    [[unroll]] for (int s = 0; s < SPAN; s++) inside[s] = xs + s >= 0 && xs + s < p.inWidth;

    float acc[PY * PX];
    [[unroll]] for (int k = 0; k < PY * PX; k++) acc[k] = 0.0;
    int planeStart = int(c * uint(p.inWidth * p.inHeight));
    GRAPH_DEPTHWISE_SUMS(planeStart, y0 * SY - p.padTop, xs, x0, inside, wt, acc)

    float bias = texelFetch(extras, int(c)).r, slope = texelFetch(extras, int(p.channels + c)).r;
    uint plane = uint(p.outWidth * p.outHeight);
    [[unroll]] for (int oy = 0; oy < PY; oy++) {
        if (y0 + oy >= p.outHeight) break;
        float v[PX];
        [[unroll]] for (int i = 0; i < PX; i++)
            v[i] = epilogue(acc[oy * PX + i], bias, slope);
        storeRun(c * plane + uint((y0 + oy) * p.outWidth + x0), p.outWidth - x0, v);
    }
}
