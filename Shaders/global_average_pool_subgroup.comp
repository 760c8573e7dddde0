#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// Mean of each channel plane, the shares added with subgroupAdd (global_average_pool.glsl); only
// for devices whose subgroups support arithmetic in compute shaders (VulkanContext.subgroupArithmetic).
#define GPUSTYLE_SUBGROUP
#include "global_average_pool.glsl"
