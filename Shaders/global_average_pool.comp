#version 450
#extension GL_GOOGLE_include_directive : require
// Mean of each channel plane, the shares added in a shared-memory tree (global_average_pool.glsl):
// the fallback of global_average_pool_subgroup.comp for devices without subgroup arithmetic.
#include "global_average_pool.glsl"
