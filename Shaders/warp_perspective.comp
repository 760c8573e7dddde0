#version 450
// Perspective warp (PerspectiveWarp.swift documents the definition; the CPU kernel is
// CPUPerspectiveWarper): output pixel (i, j) of plane c is the source plane c sampled at
// M * (originX + i, originY + j, 1), pixel centres at integer coordinates, taps clamped to the
// image. Bilinear: top = p00 + fx (p01 - p00), bottom = p10 + fx (p11 - p10),
// value = top + fy (bottom - top). Bicubic (specialization constant BICUBIC = 1): Keys a = -0.5
// on 4x4 taps, result clamped to [0, 1].
//
// One invocation per output pixel handles every plane (the coordinate is computed once).
// Planes are `srcPlaneStride` / `dstPlaneStride` floats apart. Texel views rather than
// storage buffers: on lavapipe those are vector gathers/scatters (see conv2d.comp).
//
// Precision: the host folds the origin into the matrix and makes it relative to `base`, an
// integer source point near the middle of the output's footprint, so the float arithmetic works
// on offsets of at most about the output's size (positions in a 1080p image good to ~1e-4 px).
// The bilinear path lives in warp_bilinear.glsl, shared with composite_quad.comp.
#extension GL_GOOGLE_include_directive : require
#include "warp_bilinear.glsl"

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
// 0 = bilinear, 1 = bicubic (a specialization constant: lavapipe would otherwise run both).
layout(constant_id = 0) const int BICUBIC = 0;

layout(binding = 0) uniform samplerBuffer source;
layout(binding = 1, r32f) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    int srcWidth, srcHeight, srcPlaneStride;
    int dstWidth, dstHeight, dstPlaneStride;
    int originX, originY;
    int planes, reserved;
    int baseX, baseY;            // integer source origin the matrix is relative to
    float m00, m01, m02, m10, m11, m12, m20, m21, m22;  // output pixel -> source - base
} p;

float fetch(int plane, int x, int y) {
    return texelFetch(source, plane * p.srcPlaneStride + y * p.srcWidth + x).x;
}

// Keys' cubic convolution weights (a = -0.5) for fractional position t in [0, 1).
vec4 cubicWeights(float t) {
    const float a = -0.5;
    vec4 x = vec4(1.0 + t, t, 1.0 - t, 2.0 - t);
    vec4 nearW = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
    vec4 farW = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
    return vec4(farW.x, nearW.y, nearW.z, farW.w);
}

void main() {
    int i = int(gl_GlobalInvocationID.x), j = int(gl_GlobalInvocationID.y);
    if (i >= p.dstWidth || j >= p.dstHeight) return;
    // Output coordinates relative to the dispatch origin; the host folded origin into the matrix.
    float x = float(i), y = float(j);
    vec2 s = warpPosition(x, y, vec3(p.m00, p.m01, p.m02), vec3(p.m10, p.m11, p.m12), vec3(p.m20, p.m21, p.m22));
    int out0 = j * p.dstWidth + i;
    if (BICUBIC == 0) {
        BilinearTaps taps = bilinearTaps(s, p.baseX, p.baseY, p.srcWidth, p.srcHeight);
        for (int c = 0; c < p.planes; c++) {
            imageStore(destination, c * p.dstPlaneStride + out0, vec4(bilinearSample(source, c * p.srcPlaneStride, taps)));
        }
    } else {
        // Absolute position; beyond one pixel outside every tap is the edge pixel.
        float ax = s.x + float(p.baseX), ay = s.y + float(p.baseY);
        ax = (ax >= -1.0) ? ax : -1.0;
        ax = (ax > float(p.srcWidth)) ? float(p.srcWidth) : ax;
        ay = (ay >= -1.0) ? ay : -1.0;
        ay = (ay > float(p.srcHeight)) ? float(p.srcHeight) : ay;
        float flx = floor(ax), fly = floor(ay);
        vec4 wx = cubicWeights(ax - flx), wy = cubicWeights(ay - fly);
        ivec4 cols = clamp(int(flx) + ivec4(-1, 0, 1, 2), 0, p.srcWidth - 1);
        ivec4 rows = clamp(int(fly) + ivec4(-1, 0, 1, 2), 0, p.srcHeight - 1) * p.srcWidth;
        for (int c = 0; c < p.planes; c++) {
            int plane = c * p.srcPlaneStride;
            float sum = 0.0;
            for (int r = 0; r < 4; r++) {
                int row = plane + rows[r];
                vec4 taps = vec4(texelFetch(source, row + cols.x).x, texelFetch(source, row + cols.y).x,
                                 texelFetch(source, row + cols.z).x, texelFetch(source, row + cols.w).x);
                sum += wy[r] * dot(wx, taps);
            }
            imageStore(destination, c * p.dstPlaneStride + out0, vec4(clamp(sum, 0.0, 1.0)));
        }
    }
}
