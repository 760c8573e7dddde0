#version 450
// Fused back-warp and feathered blend over a quad (QuadCompositor.swift documents the
// definition; the CPU kernel is CPUQuadCompositor = the warp + QuadMask.composite).
//
// One invocation per pixel (i, j) of the photo's region handles every plane:
//   d = min over the 4 edges of (nx x + ny y + c), the signed distance to the quad (QuadMask),
//   a = clamp(0.5 + d / feather, 0, 1): exactly 0 / 1 outside / inside the ramp;
//   a == 0: the photo's value, copied;
//   else v = the overlay sampled bilinearly through the homography (warp_bilinear.glsl, the
//   warp's own code) and out = a == 1 ? v : photo + a (v - photo).
// Only RGB planes are bound: alpha stays the photo's on the host.
//
// Precision: the edge offsets arrive relative to the region's middle pixel
// (regionWidth / 2, regionHeight / 2), so nx x + ny y works on offsets of at most half the
// region (a 1080p region: d good to ~5e-5 px); the matrix is made local as in the warp.
#extension GL_GOOGLE_include_directive : require
#include "warp_bilinear.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer overlay;             // the altered picture's planes
layout(binding = 1) uniform samplerBuffer photo;               // the photo's region, cropped
layout(binding = 2, r32f) uniform writeonly imageBuffer destination;  // the region, composited

layout(push_constant) uniform Push {
    int srcWidth, srcHeight, srcPlaneStride;            // overlay
    int regionWidth, regionHeight, regionPlaneStride;   // photo region and destination
    int planes;
    int baseX, baseY;     // integer overlay origin the matrix is relative to
    float m[9];           // region pixel (i, j) -> overlay position - base, row-major
    float edge[12];       // per edge: inward unit normal nx, ny and offset c (middle-relative)
    float feather;        // ramp width in pixels, >= 1
} p;

void main() {
    int i = int(gl_GlobalInvocationID.x), j = int(gl_GlobalInvocationID.y);
    if (i >= p.regionWidth || j >= p.regionHeight) return;
    int at = j * p.regionWidth + i;

    float lx = float(i - p.regionWidth / 2), ly = float(j - p.regionHeight / 2);
    float d = p.edge[0] * lx + p.edge[1] * ly + p.edge[2];
    d = min(d, p.edge[3] * lx + p.edge[4] * ly + p.edge[5]);
    d = min(d, p.edge[6] * lx + p.edge[7] * ly + p.edge[8]);
    d = min(d, p.edge[9] * lx + p.edge[10] * ly + p.edge[11]);
    float a = clamp(0.5 + d / p.feather, 0.0, 1.0);

    if (a == 0.0) {
        // Outside the ramp the photo must come back bit for bit: copy, no arithmetic.
        for (int c = 0; c < p.planes; c++) {
            imageStore(destination, c * p.regionPlaneStride + at, texelFetch(photo, c * p.regionPlaneStride + at));
        }
        return;
    }
    vec2 s = warpPosition(float(i), float(j), vec3(p.m[0], p.m[1], p.m[2]), vec3(p.m[3], p.m[4], p.m[5]),
                          vec3(p.m[6], p.m[7], p.m[8]));
    BilinearTaps taps = bilinearTaps(s, p.baseX, p.baseY, p.srcWidth, p.srcHeight);
    for (int c = 0; c < p.planes; c++) {
        float v = bilinearSample(overlay, c * p.srcPlaneStride, taps);
        float original = texelFetch(photo, c * p.regionPlaneStride + at).x;
        float blended = (a == 1.0) ? v : original + a * (v - original);
        imageStore(destination, c * p.regionPlaneStride + at, vec4(blended));
    }
}
