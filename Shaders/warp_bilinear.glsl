// Bilinear sampling through a homography, as PerspectiveWarp.swift defines it: pixel centres
// at integers, taps clamped to the image, top = p00 + fx (p01 - p00), bottom likewise on the
// next row, value = top + fy (bottom - top). Shared by warp_perspective.comp and
// composite_quad.comp so the warp and the fused composite sample identically.
//
// Precision: the host folds the output origin into the matrix and makes it relative to `base`,
// an integer source point near the middle of the output's footprint, so the float arithmetic
// works on offsets of at most about the output's size (see VulkanLocalHomography).

// Source position (relative to base) of output pixel (x, y); rows of the local matrix.
vec2 warpPosition(float x, float y, vec3 r0, vec3 r1, vec3 r2) {
    float w = r2.x * x + r2.y * y + r2.z;
    return vec2((r0.x * x + r0.y * y + r0.z) / w, (r1.x * x + r1.y * y + r1.z) / w);
}

// Where the four taps are in a plane (index of the top-left one, offsets to its right and lower
// neighbours, 0 on the last column/row) and the fractional weights.
struct BilinearTaps {
    int at;
    int dx, dy;
    float fx, fy;
};

BilinearTaps bilinearTaps(vec2 s, int baseX, int baseY, int width, int height) {
    // Clamp into the image relative to base (NaN and +-inf too: comparisons with NaN fail).
    float loX = float(-baseX), hiX = float(width - 1 - baseX);
    float loY = float(-baseY), hiY = float(height - 1 - baseY);
    float sx = (s.x >= loX) ? s.x : loX;
    sx = (sx > hiX) ? hiX : sx;
    float sy = (s.y >= loY) ? s.y : loY;
    sy = (sy > hiY) ? hiY : sy;
    float flx = floor(sx), fly = floor(sy);
    BilinearTaps t;
    t.fx = sx - flx;
    t.fy = sy - fly;
    int x0 = int(flx) + baseX, y0 = int(fly) + baseY;
    t.dx = x0 < width - 1 ? 1 : 0;
    t.dy = y0 < height - 1 ? width : 0;
    t.at = y0 * width + x0;
    return t;
}

// The bilinear value in the plane starting at texel `plane`.
float bilinearSample(samplerBuffer source, int plane, BilinearTaps t) {
    int at = plane + t.at;
    float p00 = texelFetch(source, at).x, p01 = texelFetch(source, at + t.dx).x;
    float p10 = texelFetch(source, at + t.dy).x, p11 = texelFetch(source, at + t.dy + t.dx).x;
    float top = p00 + t.fx * (p01 - p00);
    float bottom = p10 + t.fx * (p11 - p10);
    return top + t.fy * (bottom - top);
}
