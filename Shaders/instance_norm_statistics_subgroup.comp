#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Instance-norm statistics, the invocations' totals added with subgroupAdd
// (instance_norm_statistics.glsl); only for devices whose subgroups support arithmetic in compute
// shaders (VulkanContext.subgroupArithmetic).
#define GPUSTYLE_SUBGROUP
#include "instance_norm_statistics.glsl"
