#version 450
// Graph convolution (ExecutionPlan.Conv2D): dense [C][H][W] regions, zero padding, groups,
// bias, a fused activation and a fused fake quantisation (fake_quant.glsl; none when qScale is 0). Each invocation computes PX consecutive output pixels (in
// the plane's row-major order) for CO x CB output channels of one group:
// - CO = 4 when the group's output channels are a multiple of 4: weights packed as vec4s
//   [group][block of 4][in][kh][kw]; CB = 2 such blocks when they are a multiple of 8;
// - CO = 1 otherwise (depthwise), reading the ONNX layout [out][in/groups][kh][kw].
// Register blocking matters on lavapipe, where every fetch is a gather: with one pixel x 4
// channels per invocation MobileNetV2's 1x1 convolutions ran at 0.4 GFLOP/s, with 4 pixels x
// 8 channels at 1.7, 2.3 with the input read as vec4s (conv2d.comp's uniform-buffer weights
// reach 15-20: a next step).
// Invocations are numbered pixel-fastest, so a workgroup's invocations share their weights
// and read neighbouring input pixels; a 1x1 output (a fully connected layer) uses PX = 1.
//
// Tensors and weights are read through texel views and written through a storage texel view:
// on lavapipe storage-buffer loads are per-lane loops (see conv2d.comp).
#extension GL_EXT_control_flow_attributes : require
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int CO = 4;
layout(constant_id = 1) const int CB = 1;
layout(constant_id = 2) const int PX = 1;
// A 1x1 stride-1 unpadded convolution of planes of a multiple of 4 pixels, PX = 4: binding 0
// is an RGBA32F view and the 4 pixels are one fetch.
layout(constant_id = 3) const bool VEC_INPUT = false;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F, the input region
layout(binding = 1) uniform samplerBuffer weights;  // RGBA32F (CO = 4) or R32F (CO = 1)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
#include "storage_format.glsl"
layout(binding = 3, GS_OUTPUT_R) uniform writeonly imageBuffer outputs;

layout(push_constant) uniform Push {
    int inWidth, inHeight, outWidth, outHeight;
    int inPerGroup, outPerGroup, blocksPerGroup, outChannels;
    int kernelHeight, kernelWidth, strideY, strideX, padTop, padLeft;
    uint activation;
    float alpha, beta;
    uint total;     // pixel runs x blocks x groups
    uint rowLength; // invocations per row of the dispatch grid
    float qScale, qZeroPoint, qLow, qHigh;
} p;

#include "activation.glsl"
#include "fake_quant.glsl"

void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * p.rowLength;
    if (id >= p.total) return;
    int outPlane = p.outWidth * p.outHeight;
    int runs = (outPlane + PX - 1) / PX;
    int firstPixel = int(id % uint(runs)) * PX;
    int block = int(id / uint(runs));
    int group = block / p.blocksPerGroup, blockInGroup = block % p.blocksPerGroup;
    int firstInGroup = blockInGroup * CO * CB;
    int taps = p.kernelHeight * p.kernelWidth;
    int inPlane = p.inWidth * p.inHeight;

    int y0[PX], x0[PX];
    [[unroll]] for (int i = 0; i < PX; i++) {
        int pixel = min(firstPixel + i, outPlane - 1);
        y0[i] = pixel / p.outWidth * p.strideY - p.padTop;
        x0[i] = pixel % p.outWidth * p.strideX - p.padLeft;
    }
    vec4 acc[CB][PX];
    [[unroll]] for (int b = 0; b < CB; b++) [[unroll]] for (int i = 0; i < PX; i++) acc[b][i] = vec4(0.0);
    for (int ci = 0; ci < p.inPerGroup; ci++) {
        int plane = (group * p.inPerGroup + ci) * inPlane;
        // CO = 4: vec4 block (group, blockInGroup * CB + b); CO = 1: output channel firstOut.
        int w = CO == 4 ? ((group * p.blocksPerGroup + blockInGroup) * CB * p.inPerGroup + ci) * taps
                        : ((group * p.outPerGroup + firstInGroup) * p.inPerGroup + ci) * taps;
        for (int ky = 0; ky < p.kernelHeight; ky++) {
            for (int kx = 0; kx < p.kernelWidth; kx++) {
                float v[PX];
                if (VEC_INPUT) {
                    vec4 x4 = texelFetch(inputs, (plane + firstPixel) / 4);
                    [[unroll]] for (int i = 0; i < PX; i++) v[i] = x4[i % 4];
                } else {
                    [[unroll]] for (int i = 0; i < PX; i++) {
                        int iy = y0[i] + ky, ix = x0[i] + kx;
                        v[i] = iy >= 0 && iy < p.inHeight && ix >= 0 && ix < p.inWidth
                            ? texelFetch(inputs, plane + iy * p.inWidth + ix).r : 0.0;
                    }
                }
                int tap = ky * p.kernelWidth + kx;
                [[unroll]] for (int b = 0; b < CB; b++) {
                    vec4 wv = texelFetch(weights, w + b * p.inPerGroup * taps + tap);
                    [[unroll]] for (int i = 0; i < PX; i++) acc[b][i] += v[i] * wv;
                }
            }
        }
    }
    [[unroll]] for (int b = 0; b < CB; b++) {
        [[unroll]] for (int c = 0; c < CO; c++) {
            int inGroup = firstInGroup + b * CO + c;
            if (inGroup >= p.outPerGroup) break;
            int o = group * p.outPerGroup + inGroup;
            float bias = texelFetch(extras, o).r, slope = texelFetch(extras, p.outChannels + o).r;
            [[unroll]] for (int i = 0; i < PX; i++) {
                if (firstPixel + i < outPlane) {
                    float y = activate(acc[b][i][c] + bias, p.activation, p.alpha, p.beta, slope);
                    imageStore(outputs, o * outPlane + firstPixel + i, vec4(fakeQuantize(y, p.qScale, p.qZeroPoint, p.qLow, p.qHigh)));
                }
            }
        }
    }
}
