#version 450
// Y4M frame -> planar RGB, the GLSL twin of YUVConversion.image (YUVConversion.swift defines
// the conversion; the CPU kernel is there): BT.601, video or full range; chroma upsampled
// bilinearly, chroma sample i at luma position factor * i + (factor - 1) / 2 when centred,
// factor * i when co-sited, taps clamped to the plane; results clamped to [0, 1].
//
// Binding 0 holds the frame's bytes as the Y4M stream carries them (Y, then U, then V) in an
// R8_UINT texel view, so the upload is one copy of the frame; binding 1 the three float planes,
// `dstPlaneStride` apart. One invocation per pixel.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform usamplerBuffer frame;
layout(binding = 1, r32f) uniform writeonly imageBuffer rgb;

layout(push_constant) uniform Push {
    int width, height, chromaWidth, chromaHeight;
    int uOffset, vOffset, dstPlaneStride, mono;
    int factorX, factorY, centredX, reserved;
    float lumaOffset, lumaInverseScale, chromaInverseScale;
    float rv, gu, gv, bu;         // E'r = y + rv v, E'g = y + gu u + gv v, E'b = y + bu u
} p;

float byteAt(int index) {
    return float(texelFetch(frame, index).x);
}

// The two chroma samples around luma position `position` and the weight of the second.
void taps(int position, int factor, bool centred, int count, out int first, out int second, out float weight) {
    float offset = centred ? float(factor - 1) * 0.5 : 0.0;
    float at = (float(position) - offset) / float(factor);
    float lower = floor(at);
    weight = at - lower;
    first = clamp(int(lower), 0, count - 1);
    second = clamp(int(lower) + 1, 0, count - 1);
}

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= p.width || y >= p.height) return;
    float luma = (byteAt(y * p.width + x) - p.lumaOffset) * p.lumaInverseScale;
    float u = 0.0, v = 0.0;
    if (p.mono == 0) {
        int c0, c1, r0, r1;
        float wx, wy;
        taps(x, p.factorX, p.centredX != 0, p.chromaWidth, c0, c1, wx);
        taps(y, p.factorY, true, p.chromaHeight, r0, r1, wy);
        int i00 = r0 * p.chromaWidth + c0, i01 = r0 * p.chromaWidth + c1;
        int i10 = r1 * p.chromaWidth + c0, i11 = r1 * p.chromaWidth + c1;
        float u00 = byteAt(p.uOffset + i00), u01 = byteAt(p.uOffset + i01);
        float u10 = byteAt(p.uOffset + i10), u11 = byteAt(p.uOffset + i11);
        float v00 = byteAt(p.vOffset + i00), v01 = byteAt(p.vOffset + i01);
        float v10 = byteAt(p.vOffset + i10), v11 = byteAt(p.vOffset + i11);
        float uTop = u00 + wx * (u01 - u00), uBottom = u10 + wx * (u11 - u10);
        float vTop = v00 + wx * (v01 - v00), vBottom = v10 + wx * (v11 - v10);
        u = (uTop + wy * (uBottom - uTop) - 128.0) * p.chromaInverseScale;
        v = (vTop + wy * (vBottom - vTop) - 128.0) * p.chromaInverseScale;
    }
    int i = y * p.width + x;
    imageStore(rgb, i, vec4(clamp(luma + p.rv * v, 0.0, 1.0)));
    imageStore(rgb, p.dstPlaneStride + i, vec4(clamp(luma + p.gu * u + p.gv * v, 0.0, 1.0)));
    imageStore(rgb, 2 * p.dstPlaneStride + i, vec4(clamp(luma + p.bu * u, 0.0, 1.0)));
}
