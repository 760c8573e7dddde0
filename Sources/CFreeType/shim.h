#include <ft2build.h>
#include FT_FREETYPE_H

/* FreeType's function-like macros, which Swift does not import. */
static inline int gs_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
static inline FT_Int32 gs_ft_load_render(void) { return FT_LOAD_RENDER; }
static inline int gs_ft_pixel_mode_gray(void) { return FT_PIXEL_MODE_GRAY; }
