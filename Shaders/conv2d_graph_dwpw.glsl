// A depthwise KH x KW graph convolution fused into the 1x1 projection that reads it (an inverted
// residual block's depthwise -> projection, VulkanConv2DGraphDepthwisePointwise.swift): the
// depthwise output is never stored. Each invocation owns a PY x PX tile of output pixels
// (PY rows of PX consecutive pixels; the two convolutions share the map) and NB blocks of BLOCK
// projection output channels. For each expanded channel e (the loop counter, so every weight
// address is workgroup-uniform) it fetches the tile's ROWS input row windows as
// conv2d_graph_depthwise.glsl does, computes the tile's depthwise outputs in registers with the
// depthwise bias and activation, then adds their products with the projection's weights of
// channel e into the register tile of PY * PX pixels x NB * BLOCK output channels. The depthwise
// work is redone for each workgroup row of blocks (outChannels / (NB * BLOCK) times).
//
// Why: a depthwise layer does 9 multiply-adds per stored float, and on lavapipe a storage texel
// store is a loop over the SIMD lanes per 32-bit word, so the standalone depthwise shader spends
// most of its time storing (conv2d_graph_depthwise.glsl's header); here the stores are the
// projection's (outChannels per pixel instead of the expanded channels) and the projection no
// longer fetches the depthwise output.
//
// Bindings: 0 the depthwise input (R32F, or RGBA32F with VEC_INPUT), 1 the projection's weight
// pieces (VulkanGraphWeights' pointwise layout, one input-channel chunk: piece blocks are
// [block][expanded][BLOCK / 4] vec4s), 2 the projection's extras (bias [out] then PReLU slopes),
// 3 the output, 4 the residual add's other operand (ADD), 5 the depthwise weights (its layout's
// one piece: [channel][KH * KW padded to vec4s]), 6 the depthwise extras.
// With ADD the block's residual add is the epilogue: the projection's sum plus its bias, through
// its activation, plus binding 4. Fake quantisation is never fused here (such blocks run as parts).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int PX = 4;
layout(constant_id = 2) const int PY = 2;
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SY = 1;  // the depthwise strides
layout(constant_id = 6) const int SX = 1;
// As conv2d_graph_depthwise.glsl: rows of whole vec4s read as aligned vec4s, SHIFT = 4 - padLeft.
layout(constant_id = 7) const bool VEC_INPUT = false;
layout(constant_id = 8) const int SHIFT = 0;
// ids 9 (conv2d_graph_weights.glsl) and 10-13 (conv2d_graph_epilogue.glsl: the projection's).
layout(constant_id = 14) const int NB = 2;        // projection weight blocks per invocation
layout(constant_id = 15) const int BLOCK = 8;     // output channels per block (the layout's co)
layout(constant_id = 16) const uint DW_ACTIVATION = 0u;
layout(constant_id = 17) const bool ADD = false;
const int SPAN = (PX - 1) * SX + KW;
const int SPAN4 = (SHIFT + SPAN + 3) / 4;
const int ROWS = (PY - 1) * SY + KH;
const int TAPS4 = (KH * KW + 3) / 4;
const int BLOCK4 = BLOCK / 4;
const int CB4 = NB * BLOCK4;
const int PIXELS = PY * PX;

layout(binding = 0) uniform samplerBuffer inputs;
layout(binding = 2) uniform samplerBuffer extras;
layout(binding = 4) uniform samplerBuffer addend;
layout(std140, binding = 5) uniform DepthwiseWeights { vec4 dwWeights[4096]; };
layout(binding = 6) uniform samplerBuffer dwExtras;
#include "storage_format.glsl"
#include "conv2d_graph_output.glsl"

layout(push_constant) uniform Push {
    int inWidth, inHeight, outWidth, outHeight, padTop, padLeft;
    uint runsPerRow, expanded, outChannels, blockStart, blockCount;
    float alpha, beta;
    float qScale, qZeroPoint, qLow, qHigh;
    float dwAlpha, dwBeta;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"
#include "conv2d_graph_epilogue.glsl"
#include "conv2d_graph_weights.glsl"
#include "conv2d_graph_window.glsl"
#include "conv2d_graph_depthwise_sums.glsl"
#include "conv2d_graph_store.glsl"

void main() {
    uint run = gl_GlobalInvocationID.x;
    int y0 = int(run / p.runsPerRow) * PY;
    if (y0 >= p.outHeight) return;
    int x0 = int(run % p.runsPerRow) * PX;
    // The invocation's blocks, counted from the dispatch's first (blockStart); one past the
    // dispatch's last reads the last one's weights (never stored).
    uint firstBlock = gl_WorkGroupID.y * uint(NB);
    uint wBase[NB];
    uint wPiece[NB];
    [[unroll]] for (int k = 0; k < NB; k++) {
        uint b = min(firstBlock + uint(k), p.blockCount - 1u);
        wPiece[k] = b / uint(BLOCKS_PER_PIECE);
        wBase[k] = (b % uint(BLOCKS_PER_PIECE)) * p.expanded * uint(BLOCK4);
    }

    int xs = x0 * SX - p.padLeft;
    bool inside[SPAN];
    [[unroll]] for (int s = 0; s < SPAN; s++) inside[s] = xs + s >= 0 && xs + s < p.inWidth;
    int iy0 = y0 * SY - p.padTop;
    int inPlane = p.inWidth * p.inHeight;

    vec4 acc[PIXELS * CB4];
    [[unroll]] for (int k = 0; k < PIXELS * CB4; k++) acc[k] = vec4(0.0);

    for (uint e = 0u; e < p.expanded; e++) {
        float wt[TAPS4 * 4];
        [[unroll]] for (int t = 0; t < TAPS4; t++) {
            vec4 v = dwWeights[e * uint(TAPS4) + uint(t)];
            wt[4 * t] = v.x; wt[4 * t + 1] = v.y; wt[4 * t + 2] = v.z; wt[4 * t + 3] = v.w;
        }
        float d[PIXELS];
        [[unroll]] for (int k = 0; k < PIXELS; k++) d[k] = 0.0;
        GRAPH_DEPTHWISE_SUMS(int(e) * inPlane, iy0, xs, x0, inside, wt, d)
        float dwBias = texelFetch(dwExtras, int(e)).r, dwSlope = texelFetch(dwExtras, int(p.expanded + e)).r;
        [[unroll]] for (int k = 0; k < PIXELS; k++) d[k] = activate(d[k] + dwBias, DW_ACTIVATION, p.dwAlpha, p.dwBeta, dwSlope);

        [[unroll]] for (int k = 0; k < NB; k++) {
            [[unroll]] for (int j = 0; j < BLOCK4; j++) {
                vec4 wv = pieces[wPiece[k]].weights[wBase[k] + e * uint(BLOCK4) + uint(j)];
                [[unroll]] for (int i = 0; i < PIXELS; i++)
                    acc[i * CB4 + k * BLOCK4 + j] = fma(vec4(d[i]), wv, acc[i * CB4 + k * BLOCK4 + j]);
            }
        }
    }

    uint plane = uint(p.outWidth * p.outHeight);
    [[unroll]] for (int k = 0; k < NB; k++) {
        if (firstBlock + uint(k) >= p.blockCount) break;
        [[unroll]] for (int j = 0; j < BLOCK4; j++) {
            [[unroll]] for (int c = 0; c < 4; c++) {
                uint co = (p.blockStart + firstBlock + uint(k)) * uint(BLOCK) + uint(4 * j + c);
                if (co >= p.outChannels) break;
                float bias = texelFetch(extras, int(co)).r, slope = texelFetch(extras, int(p.outChannels + co)).r;
                [[unroll]] for (int oy = 0; oy < PY; oy++) {
                    if (y0 + oy >= p.outHeight) break;
                    uint at = co * plane + uint((y0 + oy) * p.outWidth + x0);
                    float y[PX];
                    [[unroll]] for (int i = 0; i < PX; i++) {
                        float sum = acc[(oy * PX + i) * CB4 + k * BLOCK4 + j][c];
                        y[i] = ADD ? activate(sum + bias, ACTIVATION, p.alpha, p.beta, slope) : epilogue(sum, bias, slope);
                    }
                    if (ADD) {
                        // The other operand's run, as stored (rows past the map's width are never stored).
                        if (VEC_OUTPUT) {
                            [[unroll]] for (int q = 0; q < PX / 4; q++) {
                                vec4 b = texelFetch(addend, int(at >> 2) + q);
                                [[unroll]] for (int t = 0; t < 4; t++) y[4 * q + t] += b[t];
                            }
                        } else {
                            [[unroll]] for (int i = 0; i < PX; i++)
                                y[i] += texelFetch(addend, int(at) + min(i, p.outWidth - x0 - 1)).r;
                        }
                    }
                    storeRun(at, p.outWidth - x0, y);
                }
            }
        }
    }
}
