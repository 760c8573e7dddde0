#version 450
#extension GL_GOOGLE_include_directive : require
// Mean of each channel plane: one workgroup per channel. Each invocation sums a strided share
// of the plane with Kahan compensation (`precise` keeps the compiler from folding it away), so
// large planes far from zero stay accurate; the shares are then added in a tree. The host picks
// the workgroup size (a power of two): small on CPU drivers, where barriers switch coroutines,
// and wide enough that no invocation loops more than 16384 times (lavapipe stops loops after
// 65535 iterations).
layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, plane; } p;

shared float partial[1024];

void main() {
    uint channel = gl_WorkGroupID.x;
    uint lane = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    uint base = p.sourceBase + channel * p.plane;
    precise float sum = 0.0, compensation = 0.0;
    for (uint i = lane; i < p.plane; i += size) {
        precise float y = texelFetch(source, int(base + i)).x - compensation;
        precise float t = sum + y;
        compensation = (t - sum) - y;
        sum = t;
    }
    partial[lane] = sum;
    barrier();
    for (uint half_ = size / 2u; half_ > 0u; half_ /= 2u) {
        if (lane < half_) partial[lane] += partial[lane + half_];
        barrier();
    }
    if (lane == 0u) imageStore(destination, int(p.destinationBase + channel), vec4(partial[0] / float(p.plane)));
}
