#version 450
// Rectangle detector, stage 2 (CPU kernel: DetectEdges.gaussian5): one pass of the separable
// [1 4 6 4 1] / 16 blur with clamped borders; VERTICAL = 0 blurs rows (luma -> temp), 1 columns
// (temp -> blurred). Same expression and order as the CPU kernel,
// (a + e + 4 (b + d) + 6 c) * (1/16), `precise` so nothing is fused: bit-identical.
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(constant_id = 0) const int VERTICAL = 0;

layout(binding = 0) uniform samplerBuffer source;
layout(binding = 1, r32f) uniform writeonly imageBuffer destination;

layout(push_constant) uniform Push {
    int width, height;
} p;

float at(int x, int y) { return texelFetch(source, y * p.width + x).x; }

void main() {
    int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
    if (x >= p.width || y >= p.height) return;
    float a, b, c, d, e;
    if (VERTICAL == 0) {
        a = at(max(x - 2, 0), y); b = at(max(x - 1, 0), y); c = at(x, y);
        d = at(min(x + 1, p.width - 1), y); e = at(min(x + 2, p.width - 1), y);
    } else {
        a = at(x, max(y - 2, 0)); b = at(x, max(y - 1, 0)); c = at(x, y);
        d = at(x, min(y + 1, p.height - 1)); e = at(x, min(y + 2, p.height - 1));
    }
    precise float value = (((a + e) + 4.0 * (b + d)) + 6.0 * c) * 0.0625;
    imageStore(destination, y * p.width + x, vec4(value));
}
