#version 450
#extension GL_GOOGLE_include_directive : require
// Instance-norm statistics, the invocations' totals added in a shared-memory tree
// (instance_norm_statistics.glsl): the fallback of instance_norm_statistics_subgroup.comp for
// devices without subgroup arithmetic in compute shaders.
#include "instance_norm_statistics.glsl"
