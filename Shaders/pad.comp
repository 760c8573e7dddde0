#version 450
// Reflection padding ("reflect": the edge is not repeated, index -1 reads 1), with optional
// nearest 2x upsampling first, into the padded layout (rowStride/planeStride; in split layout
// even columns first, odd columns from oddColumnsStart).
//
// Each invocation writes four consecutive floats of a destination row as one vec4 (rows start
// at multiples of 8 floats, so the store is aligned) and works out, per float, which padded
// column lands there. Floats past the used part of a row land in its slack, which the
// convolution reads only for outputs it drops, so they just repeat the last column.
// Texel views rather than storage buffers: on lavapipe those are vector gathers/scatters.
// 64 invocations as (x, y) = (slots, rows), set by the host so narrow maps keep lanes busy
// (lavapipe pays per workgroup, and a 64-wide row of a 66-float map left most lanes idle).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z = 1) in;

layout(binding = 0) uniform samplerBuffer source;
// GPUSTYLE_FP16 (the "_f16" build) writes a 16-bit float view: fp16 activation storage.
#ifdef GPUSTYLE_FP16
layout(binding = 1, rgba16f) uniform writeonly imageBuffer destination;
#else
layout(binding = 1, rgba32f) uniform writeonly imageBuffer destination;
#endif

// The source may be a tile of a larger map (tiled execution): padded row r is the map's
// logical row rowStart + r (upsampled coordinates, reflected into the map), i.e. source row
// reflect(rowStart + r) / scale - sourceRowStart. A whole map has rowStart = -padding and
// sourceRowStart = 0. The same for columns.
layout(push_constant) uniform Push {
    uint srcWidth, srcPlaneStride;
    uint paddedWidth, paddedHeight, dstRowStride, dstPlaneStride;
    uint upsample, split, oddColumnsStart;
    uint fullWidth, fullHeight;          // the whole source map, before upsampling
    int columnStart, rowStart;           // logical coordinate of padded column / row 0
    int sourceColumnStart, sourceRowStart;  // where the source buffer starts in the map
} p;

// Reflects i into [0, n) (requires |overhang| < n, which the plan guarantees).
int reflectIndex(int i, int n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
    return i;
}

// Source column of the float at position `slot` of a destination row.
uint sourceColumn(uint slot) {
    uint column = slot;  // padded column stored at this slot
    if (p.split != 0u) column = slot < p.oddColumnsStart ? 2u * slot : 2u * (slot - p.oddColumnsStart) + 1u;
    column = min(column, p.paddedWidth - 1u);
    return uint((reflectIndex(p.columnStart + int(column), int(p.fullWidth << p.upsample)) >> p.upsample) - p.sourceColumnStart);
}

void main() {
    uint slot = 4u * gl_GlobalInvocationID.x;
    uint row = gl_GlobalInvocationID.y;
    uint channel = gl_GlobalInvocationID.z;
    if (slot >= p.paddedWidth || row >= p.paddedHeight) return;
    uint sy = uint((reflectIndex(p.rowStart + int(row), int(p.fullHeight << p.upsample)) >> p.upsample) - p.sourceRowStart);
    int rowBase = int(channel * p.srcPlaneStride + sy * p.srcWidth);
    vec4 v = vec4(texelFetch(source, rowBase + int(sourceColumn(slot))).x,
                  texelFetch(source, rowBase + int(sourceColumn(slot + 1u))).x,
                  texelFetch(source, rowBase + int(sourceColumn(slot + 2u))).x,
                  texelFetch(source, rowBase + int(sourceColumn(slot + 3u))).x);
    imageStore(destination, int((channel * p.dstPlaneStride + row * p.dstRowStride + slot) >> 2), v);
}
