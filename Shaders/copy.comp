#version 450
#extension GL_GOOGLE_include_directive : require
// y = x over channel planes (a concat copies each input into a channel slice of its output, at
// any float offset: the bases say where the regions start in their 256-byte aligned bindings).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
#include "storage_format.glsl"
layout(binding = 1, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, destinationBase, plane; } p;

void main() {
    uint channel = gl_WorkGroupID.y;
    for (uint k = 0u; k < 4u; k++) {
        uint i = 4u * gl_GlobalInvocationID.x + k;
        if (i >= p.plane) return;
        uint index = channel * p.plane + i;
        imageStore(destination, int(p.destinationBase + index), texelFetch(source, int(p.sourceBase + index)));
    }
}
