// Per-channel mean and biased variance over H x W in fp32, folded with the layer's γ/β into
// scale = γ / sqrt(var + 1e-5) and shift = β - mean * scale; or, in moments mode (tiled
// execution), written out as [mean, M2 = variance * count] for the host to merge over tiles. One workgroup per channel; the
// map is read as vec4 texels (cheap on lavapipe, unlike storage-buffer loads).
//
// Accuracy on maps of millions of pixels: each invocation sums blocks of BLOCK strided vec4s
// and adds the block sums to its total (two-level summation keeps the error near
// BLOCK + count / (4 * WORKGROUP * BLOCK) ulps instead of count / (4 * WORKGROUP); at 1080p
// with 8 invocations that is ~512 instead of ~65000), then the workgroup adds the invocations'
// totals: with subgroupAdd where the device has subgroup arithmetic in compute shaders
// (instance_norm_statistics_subgroup.comp defines GPUSTYLE_SUBGROUP), else in a shared-memory
// tree (instance_norm_statistics.comp; the host's workgroup sizes are powers of two). Vulkan 1.1
// guarantees only the basic subgroup operations, so the tree is what such devices run. The
// variance is a second pass over (x - mean)^2, so there is no cancellation between E[x^2] and
// mean^2. Needs the including stage's GL_GOOGLE_include_directive.

// Workgroup size (spec constant 0): each subgroup of a workgroup is a coroutine on lavapipe and
// barriers switch between them, so the host picks one subgroup's worth there.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
layout(std140, binding = 1) uniform Parameters { vec4 params[1024]; };  // per layer: γ[32], β[32]
layout(std430, binding = 2) writeonly buffer Table { float table[]; };  // per layer: scale[32], shift[32]

layout(push_constant) uniform Push {
    uint count;          // H * W
    uint planeStride4;   // plane stride in vec4s
    uint channelBase;    // first channel of this chunk (the source binding starts at it)
    uint tableOffset;    // layer * 64
    uint moments;        // 1: write [mean, M2] per channel at 2c (a tile's moments), not scale/shift
} p;

const uint WORKGROUP = gl_WorkGroupSize.x;
const uint BLOCK = 64u;
shared float partial[gl_WorkGroupSize.x];  // per subgroup (GPUSTYLE_SUBGROUP) or per invocation

float workgroupSum(float v) {
#ifdef GPUSTYLE_SUBGROUP
    v = subgroupAdd(v);
    if (subgroupElect()) partial[gl_SubgroupID] = v;
    barrier();
    float total = 0.0;
    for (uint s = 0u; s < gl_NumSubgroups; s++) total += partial[s];
#else
    uint lane = gl_LocalInvocationID.x;
    partial[lane] = v;
    barrier();
    for (uint half_ = WORKGROUP / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) partial[lane] += partial[lane + half_];
        barrier();
    }
    float total = partial[0];
#endif
    barrier();  // everyone has read before the array is reused
    return total;
}

// Lanes of vec4 `i` of this channel that lie inside the map (the plane's alignment padding
// past H * W holds garbage).
bvec4 inside(uint i) {
    return lessThan(uvec4(4u * i) + uvec4(0u, 1u, 2u, 3u), uvec4(p.count));
}

void main() {
    uint channel = gl_WorkGroupID.x;
    uint base = channel * p.planeStride4;
    uint lane = gl_LocalInvocationID.x;
    uint count4 = (p.count + 3u) / 4u;

    vec4 total = vec4(0.0);
    for (uint start = lane; start < count4; start += WORKGROUP * BLOCK) {
        vec4 block = vec4(0.0);
        uint end = min(count4, start + WORKGROUP * BLOCK);
        for (uint i = start; i < end; i += WORKGROUP) block += mix(vec4(0.0), texelFetch(source, int(base + i)), inside(i));
        total += block;
    }
    float mean = workgroupSum((total.x + total.y) + (total.z + total.w)) / float(p.count);

    vec4 squares = vec4(0.0);
    for (uint start = lane; start < count4; start += WORKGROUP * BLOCK) {
        vec4 block = vec4(0.0);
        uint end = min(count4, start + WORKGROUP * BLOCK);
        for (uint i = start; i < end; i += WORKGROUP) {
            vec4 d = mix(vec4(0.0), texelFetch(source, int(base + i)) - mean, inside(i));
            block += d * d;
        }
        squares += block;
    }
    float variance = workgroupSum((squares.x + squares.y) + (squares.z + squares.w)) / float(p.count);

    if (lane == 0u && p.moments != 0u) {
        uint c = p.channelBase + channel;
        table[2u * c] = mean;
        table[2u * c + 1u] = variance * float(p.count);
    } else if (lane == 0u) {
        uint c = p.channelBase + channel;
        uint g = p.tableOffset + c, b = p.tableOffset + 32u + c;
        float gamma = params[g >> 2][g & 3u];
        float beta = params[b >> 2][b & 3u];
        float scale = gamma / sqrt(variance + 1e-5);
        table[p.tableOffset + c] = scale;
        table[p.tableOffset + 32u + c] = beta - mean * scale;
    }
}
