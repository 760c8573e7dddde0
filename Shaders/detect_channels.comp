#version 450
// Rectangle detector, stage 1 (CPU kernel: DetectEdges.downscaledChannels): the three channels
// (luma, red-green, green-blue; weights of r, g, b from DetectEdges.channelWeights) averaged over
// scale x scale blocks, written as three planes `planeStride` floats apart. Same operation order
// as the CPU loop (rows dy outer, columns dx inner, one running sum per channel), every product
// and sum `precise` (no fused multiply-add), and the weights and 1/scale^2 passed as the host's
// Float bit patterns: bit-identical to the CPU kernel.
//
// Input: the image's r, g, b planes with rows `srcRowStride` floats apart (a multiple of 4; the
// host pads rows) and planes `srcPlaneStride` floats apart (a multiple of 64, with at least
// 4 * scale floats of slack after the last row), read through a vec4 texel view.
//
// SCALE > 0 (specialization constant, the box size): each invocation makes 4 consecutive output
// pixels, whose scale rows of 4 * SCALE input floats start 4-aligned, so each row is SCALE vec4
// fetches and every input float is fetched once (with one scalar fetch per float per plane this
// stage took ~25 of the edge front's ~48 ms at 1080p on lavapipe; now the front takes ~30 ms).
// The loops unroll at compile time. SCALE = 0: the generic path for large boxes, one output per invocation, box size p.scale.
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int SCALE = 0;

layout(binding = 0) uniform samplerBuffer source4;
layout(binding = 1, r32f) uniform writeonly imageBuffer channels;

layout(push_constant) uniform Push {
    int srcRowStride, srcPlaneStride;
    int width, height, scale, planeStride;
    float w0r, w0g, w0b;   // r, g, b weights of channel 0 (luma), as the host's Float values
    float w1r, w1g, w1b;
    float w2r, w2g, w2b;
    float norm;            // 1 / Float(scale * scale)
} p;

// (wr r + wg g) + wb b, in the CPU kernel's order.
float mixed(vec3 w, float r, float g, float b) {
    precise float v = (w.x * r + w.y * g) + w.z * b;
    return v;
}

void store(int i, vec3 sums) {
    precise vec3 value = sums * p.norm;
    imageStore(channels, i, vec4(value.x));
    imageStore(channels, p.planeStride + i, vec4(value.y));
    imageStore(channels, 2 * p.planeStride + i, vec4(value.z));
}

float component(vec4 v, int k) { return k == 0 ? v.x : (k == 1 ? v.y : (k == 2 ? v.z : v.w)); }

void main() {
    int y = int(gl_GlobalInvocationID.y);
    int g4 = p.srcPlaneStride / 4;
    if (SCALE > 0) {
        int x0 = 4 * int(gl_GlobalInvocationID.x);
        if (x0 >= p.width || y >= p.height) return;
        precise vec3 sum[4] = vec3[4](vec3(0.0), vec3(0.0), vec3(0.0), vec3(0.0));
        [[unroll]] for (int dy = 0; dy < SCALE; dy++) {
            int row4 = ((y * SCALE + dy) * p.srcRowStride + x0 * SCALE) / 4;
            [[unroll]] for (int j = 0; j < SCALE; j++) {
                vec4 r = texelFetch(source4, row4 + j), g = texelFetch(source4, g4 + row4 + j);
                vec4 b = texelFetch(source4, 2 * g4 + row4 + j);
                [[unroll]] for (int k = 0; k < 4; k++) {
                    // Float 4j + k of this row belongs to output (4j + k) / SCALE, column (4j + k) % SCALE.
                    precise vec3 v = vec3(mixed(vec3(p.w0r, p.w0g, p.w0b), r[k], g[k], b[k]), mixed(vec3(p.w1r, p.w1g, p.w1b), r[k], g[k], b[k]),
                                          mixed(vec3(p.w2r, p.w2g, p.w2b), r[k], g[k], b[k]));
                    sum[(4 * j + k) / SCALE] = sum[(4 * j + k) / SCALE] + v;
                }
            }
        }
        [[unroll]] for (int o = 0; o < 4; o++) {
            if (x0 + o < p.width) store(y * p.width + x0 + o, sum[o]);
        }
    } else {
        int x = int(gl_GlobalInvocationID.x);
        if (x >= p.width || y >= p.height) return;
        precise vec3 sum = vec3(0.0);
        for (int dy = 0; dy < p.scale; dy++) {
            int row = (y * p.scale + dy) * p.srcRowStride + x * p.scale;
            for (int dx = 0; dx < p.scale; dx++) {
                int i = row + dx;
                vec4 r = texelFetch(source4, i / 4), g = texelFetch(source4, g4 + i / 4), b = texelFetch(source4, 2 * g4 + i / 4);
                float rv = component(r, i % 4), gv = component(g, i % 4), bv = component(b, i % 4);
                precise vec3 v = vec3(mixed(vec3(p.w0r, p.w0g, p.w0b), rv, gv, bv), mixed(vec3(p.w1r, p.w1g, p.w1b), rv, gv, bv), mixed(vec3(p.w2r, p.w2g, p.w2b), rv, gv, bv));
                sum = sum + v;
            }
        }
        store(y * p.width + x, sum);
    }
}
