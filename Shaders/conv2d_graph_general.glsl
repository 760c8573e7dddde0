// KH x KW graph convolution with one group (any strides SY, SX; zero padding), with conv2d_graph.comp's
// epilogue (bias, fused activation, fused fake quantisation); 1x1 layers go to
// conv2d_graph_pointwise.comp, depthwise ones to conv2d_graph_depthwise.comp.
//
// Built as conv2d.comp is for lavapipe (see its header): the input through a texel view, the
// weights from a UNIFORM buffer at workgroup-uniform addresses (the output-channel block from
// gl_WorkGroupID.y, input channel and tap from loop counters: meant as one scalar load +
// broadcast per vec4, though Mesa 22.3's lavapipe gathers the components per lane, docs/speed.md
// "What bounds the 1x1 shader on lavapipe"), and a register tile of PX consecutive output pixels of one row x CO output channels,
// so the SPAN = (PX - 1) * SX + KW inputs of one input row feed KW * PX * CO multiply-adds.
// Invocations are numbered along rows (runsPerRow runs of PX pixels per row), so narrow maps
// (7 or 14 pixels wide) still fill the SIMD lanes; a tap outside the map reads zero.
//
// One dispatch covers `cinCount` input channels from `cinStart` and the blocks of up to 8
// weight pieces ([block][cinCount][KH * KW][CO / 4] vec4s, VulkanGraphWeights,
// conv2d_graph_weights.glsl); as in conv2d_graph_pointwise.comp, later input-channel chunks
// continue from the stored partial sums and the last applies the epilogue, so every output is
// summed in input-channel order.
// Texel fetches and storage texel stores are per-lane gathers and scatters on lavapipe, and a
// depthwise or narrow layer does only 9-27 multiply-adds per float it moves: rows of whole vec4s
// are read as vec4s (VEC_INPUT) and, in the conv2d_graph_general_vec4 build, stored as vec4s;
// the 3-channel stems (PX = 8, VulkanBackend.stemPixels) store them as 64-bit words in the
// conv2d_graph_general_u64 build (conv2d_graph_store.glsl).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 1) const int PX = 4;
layout(constant_id = 2) const int CO = 8;   // multiple of 4
layout(constant_id = 3) const int KH = 3;
layout(constant_id = 4) const int KW = 3;
layout(constant_id = 5) const int SY = 1;  // strides
layout(constant_id = 6) const int SX = 1;
// The input rows are whole vec4s (width a multiple of 4, region on a vec4) and PX * SX a
// multiple of 4: binding 0 is an RGBA view and a row's window is SPAN4 aligned fetches from 4
// floats before the run's first column, SHIFT = 4 - padLeft of them before the window.
layout(constant_id = 7) const bool VEC_INPUT = false;
layout(constant_id = 8) const int SHIFT = 0;
const int CB4 = CO / 4;
const int SPAN = (PX - 1) * SX + KW;
const int SPAN4 = (SHIFT + SPAN + 3) / 4;

#include "conv2d_graph_spatial.glsl"

void main() {
    uint run = gl_GlobalInvocationID.x;
    int y = int(run / p.runsPerRow);
    if (y >= p.outHeight) return;
    int x0 = int(run % p.runsPerRow) * PX;
    uint block = gl_WorkGroupID.y;
    uint plane = uint(p.outWidth * p.outHeight);
    uint inPlane = uint(p.inWidth * p.inHeight);
    uint outFirst = uint(y * p.outWidth + x0);
    uint outLast = uint(y * p.outWidth + p.outWidth - 1);

    vec4 acc[PX * CB4];
    if (ACCUMULATE) {
        [[unroll]] for (int j = 0; j < CB4; j++) [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = min((p.blockStart + block) * uint(CO) + uint(4 * j + c), p.outChannels - 1u);
            float s[PX];
            loadRun(co * plane, outFirst, outLast, s);
            [[unroll]] for (int i = 0; i < PX; i++) acc[i * CB4 + j][c] = s[i];
        }
    } else {
        [[unroll]] for (int k = 0; k < PX * CB4; k++) acc[k] = vec4(0.0);
    }

    // Which window columns lie inside the map (the same for every row and channel).
    int xs = x0 * SX - p.padLeft;
    bool inside[SPAN];
    [[unroll]] for (int s = 0; s < SPAN; s++) inside[s] = xs + s >= 0 && xs + s < p.inWidth;

    uint piece = weightPiece();
    uint w = blockInPiece() * p.cinCount * uint(KH * KW * CB4);
    int iy0 = y * SY - p.padTop;
    for (uint ci = 0u; ci < p.cinCount; ci++) {
        int planeStart = int((p.cinStart + ci) * inPlane);
        [[unroll]] for (int ky = 0; ky < KH; ky++) {
            int iy = iy0 + ky;
            bool rowInside = iy >= 0 && iy < p.inHeight;
            int rowStart = planeStart + iy * p.inWidth + xs;
            float window[SPAN];
            loadWindow(rowStart, rowInside, x0, inside, window);
            [[unroll]] for (int kx = 0; kx < KW; kx++) {
                [[unroll]] for (int j = 0; j < CB4; j++) {
                    vec4 wv = pieces[piece].weights[w + uint((ky * KW + kx) * CB4 + j)];
                    [[unroll]] for (int i = 0; i < PX; i++)
                        acc[i * CB4 + j] = fma(vec4(window[i * SX + kx]), wv, acc[i * CB4 + j]);
                }
            }
        }
        w += uint(KH * KW * CB4);
    }

    [[unroll]] for (int j = 0; j < CB4; j++) {
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = (p.blockStart + block) * uint(CO) + uint(4 * j + c);
            if (co >= p.outChannels) break;
            float bias = 0.0, slope = 0.0;
            if (FINISH) { bias = texelFetch(extras, int(co)).r; slope = texelFetch(extras, int(p.outChannels + co)).r; }
            float v[PX];
            [[unroll]] for (int i = 0; i < PX; i++) {
                v[i] = acc[i * CB4 + j][c];
                v[i] = epilogue(v[i], bias, slope);
            }
            storeRun(co * plane + outFirst, p.outWidth - x0, v);
        }
    }
}
