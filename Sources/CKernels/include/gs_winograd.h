#ifndef GPUSTYLE_WINOGRAD_H
#define GPUSTYLE_WINOGRAD_H
#include <stdint.h>

/// The style network's 3x3 stride-1 convolutions by Winograd's minimal filtering F(4x4, 3x3)
/// (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016): each 4x4
/// output tile is A^T [(G g G^T) . (B^T d B)] A from its 6x6 input tile d, so the products per
/// tile and channel pair are 36 instead of 144. The 36 element-wise products over the channels
/// are 36 matrix products (U[xi] [cout x cin] times V[xi] [cin x tiles]).
///
/// Input and output as gs_conv2d_rows': a padded input (ExecutionPlan.Pad, not split) of
/// `padded_height` x `padded_width` valid floats per plane, rows `in_row_stride` apart; the output
/// (padded_height - 2) x (padded_width - 2), dense, no bias.

/// Output channels per packed weight block.
#define GS_WINOGRAD_CO_BLOCK 4
/// Tiles per task: a task transforms and multiplies one group of up to this many 4x4 tiles of
/// one tile row.
#define GS_WINOGRAD_GROUP 64

/// Floats of gs_winograd_pack's output: 36 x cin x cout rounded up to whole blocks.
int64_t gs_winograd_packed_count(int cout, int cin);

/// U = G g G^T of ONNX weights [cout][cin][3][3], packed [cout / 4][36][cin][4] (zero channels
/// past cout).
void gs_winograd_pack(const float *weights, int cout, int cin, float *packed);

/// Tasks over the output: tile rows x groups of GS_WINOGRAD_GROUP tiles.
int64_t gs_winograd_tasks(int padded_height, int padded_width);

/// Floats of scratch one call of gs_winograd_run needs.
int64_t gs_winograd_scratch(int cin);

/// Runs tasks [task_begin, task_end) (gs_winograd_tasks), `scratch` gs_winograd_scratch floats.
void gs_winograd_run(const float *input, int64_t in_plane_stride, int64_t in_row_stride, int padded_height,
                     int padded_width, int cin, const float *packed, int cout, float *output,
                     int64_t out_plane_stride, int64_t task_begin, int64_t task_end, float *scratch);
#endif
