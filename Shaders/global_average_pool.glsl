// Mean of each channel plane: one workgroup per channel. Each invocation sums a strided share
// of the plane with Kahan compensation (`precise` keeps the compiler from folding it away), so
// large planes far from zero stay accurate; then the shares are added up. The host picks
// the workgroup size (a power of two): small on CPU drivers, where barriers switch coroutines,
// and wide enough that no invocation loops more than 16384 times (lavapipe stops loops after
// 65535 iterations). The shares are added in a shared-memory tree, or where the device has
// subgroup arithmetic in compute shaders (global_average_pool_subgroup.comp, which defines
// GPUSTYLE_SUBGROUP) with subgroupAdd. Needs the including stage's GL_GOOGLE_include_directive.
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, plane; } p;

shared float partial[1024];  // per invocation, or (GPUSTYLE_SUBGROUP) per subgroup

void main() {
    uint channel = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    uint base = p.sourceBase + channel * p.plane;
#ifdef GPUSTYLE_SUBGROUP
    // subgroupAdd adds in the device's order, so the shares are made small first: each value's
    // difference from the plane's first (exact within a factor of 2 of it, Sterbenz), which
    // keeps a bias-dominated plane's sums near zero. Without it a 1024 x 1024 plane near 1000
    // came out 1.2e-4 off on lavapipe (PoolTests' bar: 1e-4; the tree: within it).
    float shift = texelFetch(source, int(base)).x;
#else
    const float shift = 0.0;
#endif
    precise float sum = 0.0, compensation = 0.0;
    for (uint i = lane; i < p.plane; i += size) {
        precise float y = (texelFetch(source, int(base + i)).x - shift) - compensation;
        precise float t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
#ifdef GPUSTYLE_SUBGROUP
    // One subgroupAdd per subgroup, then lane 0 adds the subgroups' totals: one barrier instead
    // of log2(size).
    float subgroupTotal = subgroupAdd(sum);
    if (subgroupElect()) partial[gl_SubgroupID] = subgroupTotal;
    barrier();
    if (lane == 0u) {
        float total = 0.0;
        for (uint s = 0u; s < gl_NumSubgroups; s++) total += partial[s];
        imageStore(destination, int(p.destinationBase + channel), vec4(shift + total / float(p.plane)));
    }
#else
    partial[lane] = sum;
    barrier();
    for (uint half_ = size / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) partial[lane] += partial[lane + half_];
        barrier();
    }
    if (lane == 0u) imageStore(destination, int(p.destinationBase + channel), vec4(partial[0] / float(p.plane)));
#endif
}
