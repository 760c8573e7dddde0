#version 450
// Rectangle detector, stage 4 (CPU kernel: DetectEdges.suppressNonMaxima): Canny's non-maximum
// suppression. Keeps the magnitude m of pixels with m >= low (the host's threshold, from the
// magnitude histogram) that are a maximum across the edge: the neighbour direction is the
// gradient direction quantised by comparing |gy| with |gx| tan(22.5°) and |gx| tan(67.5°)
// (the CPU's Float constants, pushed as bit patterns). Pixels within 2 of the border are 0.
// Comparisons only, on bit-identical inputs: identical to the CPU kernel.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

// magnitude, gx, gy planes, planeStride floats apart (detect_gradient's output).
layout(binding = 0) uniform samplerBuffer gradient;
layout(binding = 1, r32f) uniform writeonly imageBuffer edges;

layout(push_constant) uniform Push {
    int width, height, planeStride;
    float low, tan22, tan67;
} p;

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    int w = p.width;
    if (x >= w || y >= p.height) return;
    int i = y * w + x;
    float result = 0.0;
    if (x >= 2 && y >= 2 && x < w - 2 && y < p.height - 2) {
        float m = texelFetch(gradient, i).x;
        if (m >= p.low) {
            float gx = texelFetch(gradient, p.planeStride + i).x;
            float gy = texelFetch(gradient, 2 * p.planeStride + i).x;
            float ax = abs(gx), ay = abs(gy);
            precise float t22 = ax * p.tan22;
            precise float t67 = ax * p.tan67;
            int offset;
            if (ay <= t22) {
                offset = 1;
            } else if (ay >= t67) {
                offset = w;
            } else {
                offset = ((gx > 0.0) == (gy > 0.0)) ? w + 1 : w - 1;
            }
            if (m >= texelFetch(gradient, i - offset).x && m > texelFetch(gradient, i + offset).x) result = m;
        }
    }
    imageStore(edges, i, vec4(result));
}
