// 3x3 stride-1 graph convolution with one group by Winograd's F(2x2, 3x3), in one pass, with
// conv2d_graph.comp's epilogue (bias, fused activation, fused fake quantisation). The direct
// shader (conv2d_graph_general.glsl) spends 9 multiply-adds per output, input channel and
// output channel; this one 4 (16 per 2x2 tile), 2.25x fewer, for a transform of the input
// tile (adds only, shared by the CO output channels) and of the summed output tile (once per
// tile and output channel, after the input-channel loop).
//
// Built as conv2d_graph_general.glsl is for lavapipe: the input through a texel view (rows of
// whole vec4s read as vec4s with VEC_INPUT), the pre-transformed weights U = G g G^T
// (VulkanGraphWeights, kind winograd: [block][cinCount][16][CO]) from a UNIFORM buffer at
// workgroup-uniform addresses (meant as one scalar load + broadcast per vec4; Mesa 22.3's
// lavapipe still gathers a vec4's components per lane: docs/speed.md "What bounds the 1x1
// shader on lavapipe"), and a register tile of
// TILES 2x2 tiles side by side (2 output rows x PX = 2 * TILES columns) x CO output channels.
// Each invocation keeps the sums of all 16 transform-domain positions of its tiles across the
// input-channel loop (16 * TILES * CO floats): passes over fewer positions (2 or 1 rows of the
// transform domain per pass, each needing 3 or 2 of the 4 input rows) hold fewer sums but
// re-read the input, and measured 0.78x the direct shader against 1.5x in one pass
// (VulkanConv2DGraphWinogradTimingTests; lavapipe, AMD EPYC Zen 4, 2 cores), and wider tiles
// (more products per weight load and per input row fetched) measured faster: on lavapipe
// fetches and loads, not multiply-adds, bound these shaders (VulkanBackend.winogradTiles).
//
// One dispatch covers `cinCount` input channels from `cinStart` and up to 8 weight pieces
// (conv2d_graph_weights.glsl). A later input-channel chunk adds its output tile to the partial
// sums the previous one stored (ACCUMULATE); the transforms are linear, so that is the sum of
// the chunks' convolutions; the last chunk applies the epilogue. Output rows of whole vec4s are
// stored as vec4s (conv2d_graph_winograd_vec4) or, with fp32 outputs and shaderInt64, as 64-bit
// words (conv2d_graph_winograd_u64, conv2d_graph_store.glsl).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int TILES = 4;  // 2x2 tiles side by side per invocation
layout(constant_id = 2) const int CO = 4;     // multiple of 4
// The input rows are whole vec4s (width a multiple of 4, region on a vec4) and PX a multiple
// of 4: binding 0 is an RGBA view (conv2d_graph_window.glsl).
layout(constant_id = 7) const bool VEC_INPUT = false;
layout(constant_id = 8) const int SHIFT = 0;
const int CB4 = CO / 4;
const int PX = 2 * TILES;  // output columns per invocation
const int SX = 1;
const int SPAN = PX + 2;
const int SPAN4 = (SHIFT + SPAN + 3) / 4;
const int TAPS = 16;  // transform-domain positions per (output, input) channel pair

#include "conv2d_graph_spatial.glsl"

// Row i of B^T d for the 4 input rows d: B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
float transformRow(int i, float d0, float d1, float d2, float d3) {
    return i == 0 ? d0 - d2 : i == 1 ? d1 + d2 : i == 2 ? d2 - d1 : d1 - d3;
}

void main() {
    uint run = gl_GlobalInvocationID.x;
    int y0 = 2 * int(run / p.runsPerRow);
    if (y0 >= p.outHeight) return;
    int x0 = int(run % p.runsPerRow) * PX;
    uint block = gl_WorkGroupID.y;
    uint plane = uint(p.outWidth * p.outHeight);
    uint inPlane = uint(p.inWidth * p.inHeight);

    // Which window columns lie inside the map (the same for every row and channel).
    int xs = x0 - p.padLeft;
    bool inside[SPAN];
    [[unroll]] for (int s = 0; s < SPAN; s++) inside[s] = xs + s >= 0 && xs + s < p.inWidth;

    uint piece = weightPiece();
    uint firstWeight = blockInPiece() * p.cinCount * uint(TAPS * CB4);
    int iy0 = y0 - p.padTop;

    // m[(position * TILES + tile) * CB4 + j]: the summed transform-domain products.
    vec4 m[TAPS * TILES * CB4];
    [[unroll]] for (int k = 0; k < TAPS * TILES * CB4; k++) m[k] = vec4(0.0);
    uint w = firstWeight;
    for (uint ci = 0u; ci < p.cinCount; ci++) {
        int planeStart = int((p.cinStart + ci) * inPlane);
        float d[4][SPAN];
        [[unroll]] for (int r = 0; r < 4; r++) {
            int iy = iy0 + r;
            loadWindow(planeStart + iy * p.inWidth + xs, iy >= 0 && iy < p.inHeight, x0, inside, d[r]);
        }
        [[unroll]] for (int i = 0; i < 4; i++) {
            float row[SPAN];
            [[unroll]] for (int s = 0; s < SPAN; s++) row[s] = transformRow(i, d[0][s], d[1][s], d[2][s], d[3][s]);
            [[unroll]] for (int t = 0; t < TILES; t++) {
                // Row i of V = (B^T d) B for tile t (columns 2t .. 2t + 3 of the window).
                float v[4];
                [[unroll]] for (int jj = 0; jj < 4; jj++)
                    v[jj] = transformRow(jj, row[2 * t], row[2 * t + 1], row[2 * t + 2], row[2 * t + 3]);
                [[unroll]] for (int jj = 0; jj < 4; jj++) {
                    [[unroll]] for (int j = 0; j < CB4; j++) {
                        vec4 u = pieces[piece].weights[w + uint((i * 4 + jj) * CB4 + j)];
                        int a = ((i * 4 + jj) * TILES + t) * CB4 + j;
                        m[a] = fma(vec4(v[jj]), u, m[a]);
                    }
                }
            }
        }
        w += uint(TAPS * CB4);
    }

    // Y = A^T M A, A^T = [1 1 1 0; 0 1 -1 -1], then the epilogue, per output row.
    [[unroll]] for (int j = 0; j < CB4; j++) {
        vec4 out0[PX], out1[PX];
        [[unroll]] for (int t = 0; t < TILES; t++) {
            vec4 s0[4], s1[4];
            [[unroll]] for (int jj = 0; jj < 4; jj++) {
                vec4 r0 = m[((0 * 4 + jj) * TILES + t) * CB4 + j], r1 = m[((1 * 4 + jj) * TILES + t) * CB4 + j];
                vec4 r2 = m[((2 * 4 + jj) * TILES + t) * CB4 + j], r3 = m[((3 * 4 + jj) * TILES + t) * CB4 + j];
                s0[jj] = r0 + r1 + r2;
                s1[jj] = r1 - r2 - r3;
            }
            out0[2 * t] = s0[0] + s0[1] + s0[2];
            out0[2 * t + 1] = s0[1] - s0[2] - s0[3];
            out1[2 * t] = s1[0] + s1[1] + s1[2];
            out1[2 * t + 1] = s1[1] - s1[2] - s1[3];
        }
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = (p.blockStart + block) * uint(CO) + uint(4 * j + c);
            if (co >= p.outChannels) break;
            float bias = 0.0, slope = 0.0;
            if (FINISH) { bias = texelFetch(extras, int(co)).r; slope = texelFetch(extras, int(p.outChannels + co)).r; }
            [[unroll]] for (int r = 0; r < 2; r++) {
                int y = y0 + r;
                if (y >= p.outHeight) break;
                uint first = uint(y * p.outWidth + x0), last = uint(y * p.outWidth + p.outWidth - 1);
                float prior[PX];
                if (ACCUMULATE) loadRun(co * plane, first, last, prior);
                float v[PX];
                [[unroll]] for (int i = 0; i < PX; i++) {
                    v[i] = r == 0 ? out0[i][c] : out1[i][c];
                    if (ACCUMULATE) v[i] += prior[i];
                    v[i] = epilogue(v[i], bias, slope);
                }
                storeRun(co * plane + first, p.outWidth - x0, v);
            }
        }
    }
}
