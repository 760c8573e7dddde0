#version 450
// K x K convolution, no bias, of a padded tensor into a dense one (see ExecutionPlan.Convolution).
//
// Register blocking for lavapipe (barriers and shared memory are slow there): each invocation
// computes PX consecutive output pixels of one row for CO output channels, so one input window
// load (vec4s, aligned because rows and planes are multiples of 8/64 floats and PX of 4) feeds
// K * PX * CO multiply-adds, and each vec4 of weights feeds PX of them.
//
// Memory access paths matter more than arithmetic on lavapipe (Mesa 22): a storage-buffer load
// or store becomes a branchy loop over the SIMD lanes (~30 cycles per float per lane), so the
// input is read through texel views (vector gathers), the output written as a storage texel
// buffer, and the weights read from a uniform buffer at workgroup-uniform addresses (meant as
// one scalar load + broadcast; Mesa 22.3's lavapipe still gathers a vec4's components per lane:
// docs/speed.md "What bounds the 1x1 shader on lavapipe"). With storage buffers this shader
// ran at 1-2 GFLOP/s; now 15-20.
//
// Stride 2 reads the split layout: tap kx of output x reads column x + kx/2 of the even half
// (kx even) or oddColumnsStart + x + kx/2 (kx odd), so both halves are contiguous windows.
//
// Large tensors are split into channel chunks so no binding exceeds maxStorageBufferRange: a
// dispatch covers `cinChunk` input channels and `coutChunk` output channels of its bindings;
// with `accumulate` it adds to what the previous input chunk wrote.
//
// The bound weight chunk is [group][weightInputs][K][K] vec4s, a group being 4 output channels
// (zero padded); this dispatch starts at group `weightGroupOffset` and input `weightInputOffset`.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;
layout(constant_id = 2) const int K = 3;
layout(constant_id = 3) const int STRIDE = 1;
layout(constant_id = 4) const int PX = 8;   // multiple of 4
layout(constant_id = 5) const int CO = 8;   // multiple of 4
// oddColumnsStart % 4: the odd half of split rows starts off vec4 alignment by this much, so
// its window is read as aligned vec4s and shifted at compile time.
layout(constant_id = 6) const int ODD_SHIFT = 0;

const int CB4 = CO / 4;
// Input floats one output block reads per row: stride 1 spans PX + K - 1 columns; stride 2
// spans PX + (K - 1) / 2 columns in each half.
const int SPAN = PX + (K - 1) / STRIDE;
const int SPAN4 = (SPAN + 3) / 4;
const int ODD_SPAN = (STRIDE - 1) * (PX + (K - 1) / 2) + 2 - STRIDE;  // 1 when unused
const int ODD_SPAN4 = (ODD_SHIFT + ODD_SPAN + 3) / 4;

// The padded input as a vec4 texel view.
layout(binding = 0) uniform samplerBuffer input4;
layout(std140, binding = 1) uniform Weights { vec4 weights[4096]; };  // 64 KiB, the most a UBO binding may hold
// GPUSTYLE_FP16 (the "_f16" build) writes a 16-bit float view: fp16 activation storage.
#ifdef GPUSTYLE_FP16
layout(binding = 2, r16f) uniform imageBuffer outputs;
#else
layout(binding = 2, r32f) uniform imageBuffer outputs;
#endif

layout(push_constant) uniform Push {
    uint inRowStride, inPlaneStride, oddColumnsStart;
    uint outWidth, outHeight, outPlaneStride;
    uint cinChunk, weightInputs, weightInputOffset, weightGroupOffset;
    uint coutChunk, accumulate;
} p;

void main() {
    uint xb = gl_GlobalInvocationID.x * uint(PX);
    uint y = gl_GlobalInvocationID.y;
    // CO-channel block within this chunk; from the workgroup ID (local_size_z is 1) so the
    // compiler can prove the weight addresses uniform across the workgroup.
    uint block = gl_WorkGroupID.z;
    if (xb >= p.outWidth || y >= p.outHeight) return;

    vec4 acc[PX * CB4];
    [[unroll]] for (int k = 0; k < PX * CB4; k++) acc[k] = vec4(0.0);

    uint taps = uint(K * K);
    uint weightBlockStride = p.weightInputs * taps;  // vec4s between 4-output-channel groups
    uint weightBase = (p.weightGroupOffset + block * uint(CB4)) * weightBlockStride + p.weightInputOffset * taps;
    uint rowStart = y * uint(STRIDE) * p.inRowStride + xb;

    for (uint ci = 0u; ci < p.cinChunk; ci++) {
        for (int ky = 0; ky < K; ky++) {
            uint r = ci * p.inPlaneStride + rowStart + uint(ky) * p.inRowStride;
            uint w = weightBase + ci * taps + uint(ky * K);
            float window[SPAN4 * 4];
            [[unroll]] for (int q = 0; q < SPAN4; q++) {
                vec4 v = texelFetch(input4, int((r >> 2) + uint(q)));
                window[4 * q] = v.x; window[4 * q + 1] = v.y; window[4 * q + 2] = v.z; window[4 * q + 3] = v.w;
            }
            float odd[ODD_SPAN4 * 4];
            if (STRIDE == 2) {
                uint o = (r + p.oddColumnsStart - uint(ODD_SHIFT)) >> 2;
                [[unroll]] for (int q = 0; q < ODD_SPAN4; q++) {
                    vec4 v = texelFetch(input4, int(o + uint(q)));
                    odd[4 * q] = v.x; odd[4 * q + 1] = v.y; odd[4 * q + 2] = v.z; odd[4 * q + 3] = v.w;
                }
            }
            [[unroll]] for (int kx = 0; kx < K; kx++) {
                [[unroll]] for (int j = 0; j < CB4; j++) {
                    vec4 wv = weights[w + uint(kx) + uint(j) * weightBlockStride];
                    [[unroll]] for (int i = 0; i < PX; i++) {
                        float v = STRIDE == 1 ? window[i + kx] : ((kx & 1) == 0 ? window[i + kx / 2] : odd[ODD_SHIFT + i + kx / 2]);
                        acc[i * CB4 + j] = fma(vec4(v), wv, acc[i * CB4 + j]);
                    }
                }
            }
        }
    }

    uint rowOut = y * p.outWidth + xb;
    [[unroll]] for (int j = 0; j < CB4; j++) {
        [[unroll]] for (int c = 0; c < 4; c++) {
            uint co = block * uint(CO) + uint(4 * j + c);
            if (co >= p.coutChunk) continue;
            uint base = co * p.outPlaneStride + rowOut;
            [[unroll]] for (int i = 0; i < PX; i++) {
                if (xb + uint(i) >= p.outWidth) break;
                float v = acc[i * CB4 + j][c];
                if (p.accumulate != 0u) v += imageLoad(outputs, int(base + uint(i))).x;
                imageStore(outputs, int(base + uint(i)), vec4(v));
            }
        }
    }
}
