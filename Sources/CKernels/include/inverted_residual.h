#ifndef GPUSTYLE_INVERTED_RESIDUAL_H
#define GPUSTYLE_INVERTED_RESIDUAL_H
#include "conv2d_graph.h"

/// MobileNetV2's inverted residual block (ExecutionPlan.InvertedResidual) in one pass:
/// [1x1 expand] -> depthwise -> 1x1 project [+ residual], each convolution with its bias and
/// activation as in gs_conv2d_params. The 1x1 weights are packed by gs_conv2d_prepare as GEMM
/// convolutions (gs_conv2d_kind 0), the depthwise weights as given ([channels][kh][kw]).
typedef struct {
    gs_conv2d_params expand;     // used when has_expand (else the depthwise reads the input)
    gs_conv2d_params depthwise;  // zero padding, any stride
    gs_conv2d_params project;
    int has_expand;
    int strip_rows;              // output rows per strip (gs_inverted_residual_strip_rows)
} gs_inverted_residual_params;

/// Output rows per strip: the most whose expanded and filtered rows fit `cache_bytes`, at most
/// `max_rows` (the rows one thread gets).
int gs_inverted_residual_strip_rows(const gs_inverted_residual_params *p, int64_t cache_bytes, int max_rows);

/// Tasks are output rows; a thread's rows [task_begin, task_end) are walked in strips.
/// `residual` (dense like the output, or NULL) is added after the projection.
void gs_inverted_residual_run(const gs_inverted_residual_params *p, const float *input, const float *expand_weights,
                              const float *depthwise_weights, const float *project_weights, const float *residual,
                              float *output, int64_t task_begin, int64_t task_end);
#endif
