#version 450
#extension GL_GOOGLE_include_directive : require
// Transposed convolution, kernel 2, stride 2 (ExecutionPlan.TransposedConv2D): one invocation
// per output value, out[o][Y][X] = act(bias[o] + sum_c in[c][Y/2][X/2] * w[c][o][Y%2][X%2]),
// act the fused activation (activation.glsl; PReLU's slope per output channel).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F [in][H][W]
layout(binding = 1) uniform samplerBuffer weights;  // R32F [in][out][2][2]
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] (zeros without bias), then PReLU slopes [out]
#include "storage_format.glsl"
layout(binding = 3, GS_OUTPUT_R) uniform writeonly imageBuffer outputs;

layout(push_constant) uniform Push {
    int inWidth, inHeight, inChannels, outChannels;
    uint total;      // output values
    uint rowLength;  // invocations per row of the dispatch grid
    uint activation;
    float alpha, beta;
} p;

#include "activation.glsl"

void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * p.rowLength;
    if (id >= p.total) return;
    int outWidth = 2 * p.inWidth, outPlane = 4 * p.inWidth * p.inHeight;
    int o = int(id / uint(outPlane)), pixel = int(id % uint(outPlane));
    int oy = pixel / outWidth, ox = pixel % outWidth;
    int source = (oy / 2) * p.inWidth + ox / 2, tap = (oy % 2) * 2 + ox % 2;
    int inPlane = p.inWidth * p.inHeight;
    float acc = texelFetch(extras, o).r;
    for (int c = 0; c < p.inChannels; c++) {
        acc += texelFetch(inputs, c * inPlane + source).r * texelFetch(weights, (c * p.outChannels + o) * 4 + tap).r;
    }
    float slope = texelFetch(extras, p.outChannels + o).r;
    imageStore(outputs, int(id), vec4(activate(acc, p.activation, p.alpha, p.beta, slope)));
}
