#version 450
#extension GL_GOOGLE_include_directive : require
// y[c] = x[c] * scale[c] (squeeze-and-excite), one channel per workgroup row, four floats per
// invocation; bases as in activation.comp.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
layout(binding = 1) uniform samplerBuffer scale;
#include "storage_format.glsl"
layout(binding = 2, GS_OUTPUT_R) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push { uint sourceBase, scaleBase, destinationBase, plane; } p;

void main() {
    uint channel = gl_WorkGroupID.y;
    float s = texelFetch(scale, int(p.scaleBase + channel)).x;
    for (uint k = 0u; k < 4u; k++) {
        uint i = 4u * gl_GlobalInvocationID.x + k;
        if (i >= p.plane) return;
        uint index = channel * p.plane + i;
        imageStore(destination, int(p.destinationBase + index), vec4(texelFetch(source, int(p.sourceBase + index)).x * s));
    }
}
