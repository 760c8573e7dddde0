#ifndef GPUSTYLE_CVULKAN_H
#define GPUSTYLE_CVULKAN_H
// Types and constants only: every entry point is resolved at run time through
// vkGetInstanceProcAddr after dlopen("libvulkan.so.1"), so nothing links libvulkan.
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

static inline uint32_t gs_vk_make_api_version(uint32_t variant, uint32_t major, uint32_t minor, uint32_t patch) {
    return VK_MAKE_API_VERSION(variant, major, minor, patch);
}
static inline uint32_t gs_vk_api_version_major(uint32_t v) { return VK_API_VERSION_MAJOR(v); }
static inline uint32_t gs_vk_api_version_minor(uint32_t v) { return VK_API_VERSION_MINOR(v); }
static inline uint32_t gs_vk_api_version_patch(uint32_t v) { return VK_API_VERSION_PATCH(v); }
#endif
