// What libheif 1.15 does not check about derived images, checked on the file's boxes before it
// decodes any (heic_decode.c). A HEIF image may be derived from others: a 'grid' of tiles (every
// iPhone photo), an 'iovl' overlay, an 'iden' identity. The heic fuzz target made two files
// that libheif 1.15 decodes without end:
//   - a grid listing itself among its tiles: libheif recursed into it, allocating a canvas a
//     level, 2.1 GB within seconds (fixtures/fuzz/heic-oom-grid-lists-itself.heic);
//   - an overlay whose canvas (declared in its item data) is 26990x26112 while its 'ispe' says
//     64x64: libheif filled 4.1 GB for it (fixtures/fuzz/heic-oom-overlay-canvas-beyond-ispe.heic).
// ISO/IEC 23008-12 wants neither: a derived image's output size is its ispe, and its inputs
// are other images. A third file made libheif 1.15 abort (an assertion, SIGABRT): an overlay
// whose input is an item of an unknown type ('hvc0'). The rule checked here is therefore
// stricter than "no cycles": the inputs of a grid, overlay or identity (the derivations
// libheif 1.15 performs) are coded images (HEVC 'hvc1' or AV1 'av01', what it decodes). Phones
// and encoders write grids of coded tiles; a grid of grids is refused as unsupported, which is
// simpler and safer than following chains. Other derivations (a gain map 'tmap' over the
// primary grid) are not decoded by libheif 1.15 and are left alone.
#ifndef GPS_HEIF_BOXES_H
#define GPS_HEIF_BOXES_H

#include <stddef.h>
#include <stdint.h>

// GPS_OK, or GPS_ERR_UNSUPPORTED with the reason in `message` when a grid, overlay or identity
// has an input that is not a coded image, or when the primary image (`primary`, libheif's item ID) is a grid or
// overlay whose item data declare (or hide) a size other than ispe_width x ispe_height.
int gps_heif_check_derivations(const uint8_t *file, size_t size, uint32_t primary, uint32_t ispe_width,
                               uint32_t ispe_height, char *message, size_t message_size);

#endif
