#version 450
// Rectangle detector, stage 3 (CPU kernel: DetectEdges.sobel): Sobel of each of the three blurred
// channels (planes `planeStride` floats apart); each pixel keeps the channel with the largest
// magnitude, the first one on ties. Writes three planes `planeStride` floats apart: magnitude
// sqrt(dx^2 + dy^2) / 8, gx = dx / 8, gy = dy / 8; border pixels are 0 (as the CPU kernel leaves
// them). Same sums in the same order, `precise`; sqrt is IEEE-exact on lavapipe (LLVM sqrt), so
// the planes are bit-identical there (a GPU whose sqrt is not correctly rounded differs in the
// last bit or two of the magnitude, and may then pick another channel on near-ties).
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer blurred;
layout(binding = 1, r32f) uniform writeonly imageBuffer gradient;

layout(push_constant) uniform Push {
    int width, height, planeStride;
} p;

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    int w = p.width;
    if (x >= w || y >= p.height) return;
    int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == p.height - 1) {
        imageStore(gradient, i, vec4(0.0));
        imageStore(gradient, p.planeStride + i, vec4(0.0));
        imageStore(gradient, 2 * p.planeStride + i, vec4(0.0));
        return;
    }
    float bestMagnitude = 0.0, bestX = 0.0, bestY = 0.0;
    for (int k = 0; k < 3; k++) {
        int c = k * p.planeStride + i;
        float nw = texelFetch(blurred, c - w - 1).x, n = texelFetch(blurred, c - w).x, ne = texelFetch(blurred, c - w + 1).x;
        float west = texelFetch(blurred, c - 1).x, east = texelFetch(blurred, c + 1).x;
        float sw = texelFetch(blurred, c + w - 1).x, s = texelFetch(blurred, c + w).x, se = texelFetch(blurred, c + w + 1).x;
        precise float dx = ((ne + 2.0 * east) + se) - ((nw + 2.0 * west) + sw);
        precise float dy = ((sw + 2.0 * s) + se) - ((nw + 2.0 * n) + ne);
        precise float magnitude = sqrt(dx * dx + dy * dy) * 0.125;
        if (k == 0 || magnitude > bestMagnitude) {
            precise float gx = dx * 0.125;
            precise float gy = dy * 0.125;
            bestMagnitude = magnitude;
            bestX = gx;
            bestY = gy;
        }
    }
    imageStore(gradient, i, vec4(bestMagnitude));
    imageStore(gradient, p.planeStride + i, vec4(bestX));
    imageStore(gradient, 2 * p.planeStride + i, vec4(bestY));
}
