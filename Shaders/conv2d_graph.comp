#version 450
// Graph convolution (ExecutionPlan.Conv2D): dense [C][H][W] regions, zero padding, groups,
// bias and a fused activation. Each invocation computes one output pixel for CO consecutive
// output channels of one group (CO = 4 when the group's output channels are a multiple of 4,
// weights then packed as vec4s [group][block][in][kh][kw]; else CO = 1 reading the ONNX layout
// [out][in/groups][kh][kw]). Invocations are numbered pixel-fastest, so a workgroup's 64
// invocations share their weights and read neighbouring input pixels; a 1x1 output (a fully
// connected layer) still gives one invocation per 4 channels.
//
// Tensors and weights are read through texel views and written through a storage texel view:
// on lavapipe storage-buffer loads are per-lane loops (see conv2d.comp).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int CO = 4;

layout(binding = 0) uniform samplerBuffer inputs;   // R32F, the input region
layout(binding = 1) uniform samplerBuffer weights;  // RGBA32F (CO = 4) or R32F (CO = 1)
layout(binding = 2) uniform samplerBuffer extras;   // R32F: bias [out] then PReLU slopes [out]
layout(binding = 3, r32f) uniform writeonly imageBuffer outputs;

layout(push_constant) uniform Push {
    int inWidth, inHeight, outWidth, outHeight;
    int inPerGroup, outPerGroup, blocksPerGroup, outChannels;
    int kernelHeight, kernelWidth, strideY, strideX, padTop, padLeft;
    uint activation;
    float alpha, beta;
    uint total;     // output pixels x blocks x groups
    uint rowLength; // invocations per row of the dispatch grid
} p;

// Numbered like Swift's `Activation`.
float activate(float x, float slope) {
    switch (p.activation) {
    case 1u: return max(x, 0.0);
    case 2u: return 1.0 / (1.0 + exp(-x));
    case 3u: return clamp(x, 0.0, 6.0);
    case 4u: return x > 0.0 ? x : p.alpha * x;
    case 5u: return clamp(p.alpha * x + p.beta, 0.0, 1.0);
    case 6u: return x * clamp(x + 3.0, 0.0, 6.0) / 6.0;
    case 7u: return x > 0.0 ? x : slope * x;
    default: return x;
    }
}

void main() {
    uint id = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * p.rowLength;
    if (id >= p.total) return;
    int outPlane = p.outWidth * p.outHeight;
    int pixel = int(id % uint(outPlane));
    int block = int(id / uint(outPlane));
    int group = block / p.blocksPerGroup, blockInGroup = block % p.blocksPerGroup;
    int firstOut = group * p.outPerGroup + blockInGroup * CO;
    int oy = pixel / p.outWidth, ox = pixel % p.outWidth;
    int y0 = oy * p.strideY - p.padTop, x0 = ox * p.strideX - p.padLeft;
    int taps = p.kernelHeight * p.kernelWidth;
    int inPlane = p.inWidth * p.inHeight;

    vec4 acc = vec4(0.0);
    for (int ci = 0; ci < p.inPerGroup; ci++) {
        int plane = (group * p.inPerGroup + ci) * inPlane;
        int w = CO == 4 ? (block * p.inPerGroup + ci) * taps : (firstOut * p.inPerGroup + ci) * taps;
        for (int ky = 0; ky < p.kernelHeight; ky++) {
            int iy = y0 + ky;
            if (iy < 0 || iy >= p.inHeight) continue;
            for (int kx = 0; kx < p.kernelWidth; kx++) {
                int ix = x0 + kx;
                if (ix < 0 || ix >= p.inWidth) continue;
                float v = texelFetch(inputs, plane + iy * p.inWidth + ix).r;
                acc += v * texelFetch(weights, w + ky * p.kernelWidth + kx);
            }
        }
    }
    for (int c = 0; c < CO; c++) {
        int o = firstOut + c;
        if (blockInGroup * CO + c >= p.outPerGroup) break;
        float value = acc[c] + texelFetch(extras, o).r;
        imageStore(outputs, o * outPlane + pixel, vec4(activate(value, texelFetch(extras, p.outChannels + o).r)));
    }
}
