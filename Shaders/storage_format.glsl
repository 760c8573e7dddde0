// The format qualifiers of a shader's output tensor view, for the two storage precisions: r32f /
// rgba32f, or in the "_f16" build (GPUSTYLE_FP16, which ResourceEmbedder defines for every stage
// that mentions it here or in an include) r16f / rgba16f, matching the R16_SFLOAT /
// R16G16B16A16_SFLOAT views of a plan buffer held in fp16 (VulkanBackend.Options.fp16Storage).
// Only the store converts: the arithmetic stays fp32, and reads need no variant (a samplerBuffer
// over an R16 view returns floats).
#ifdef GPUSTYLE_FP16
#define GS_OUTPUT_R r16f
#define GS_OUTPUT_RGBA rgba16f
#else
#define GS_OUTPUT_R r32f
#define GS_OUTPUT_RGBA rgba32f
#endif
