// ICC profile -> sRGB with LittleCMS (color.h).

#include <lcms2.h>

#include "color.h"

struct gps_color {
    cmsContext context;
    cmsHTRANSFORM transform;
    uint32_t output_channels;  // 3, or 4 with alpha
    size_t sample_bytes;       // 1 or 2
    uint8_t *row;              // the converted row
    size_t row_capacity;       // in pixels
};

// LittleCMS reports through a per-context handler; without one it stays silent, but the text
// is worth keeping for --verbose.
static void on_lcms_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    gps_warn(cmsGetContextUserData(context), text);
}

static cmsUInt32Number input_format(gps_row_kind kind, int alpha, uint32_t bit_depth) {
    int sixteen = bit_depth == 16;
    switch (kind) {
    case GPS_ROWS_GRAY:
        if (alpha) return sixteen ? TYPE_GRAYA_16_SE : TYPE_GRAYA_8;
        return sixteen ? TYPE_GRAY_16_SE : TYPE_GRAY_8;
    case GPS_ROWS_RGB:
        if (alpha) return sixteen ? TYPE_RGBA_16_SE : TYPE_RGBA_8;
        return sixteen ? TYPE_RGB_16_SE : TYPE_RGB_8;
    case GPS_ROWS_CMYK: return TYPE_CMYK_8;
    case GPS_ROWS_CMYK_INVERTED: return TYPE_CMYK_8_REV;
    }
    return 0;
}

static cmsColorSpaceSignature expected_space(gps_row_kind kind) {
    switch (kind) {
    case GPS_ROWS_GRAY: return cmsSigGrayData;
    case GPS_ROWS_RGB: return cmsSigRgbData;
    default: return cmsSigCmykData;
    }
}

// Whether the profile maps colours to themselves in sRGB: within one 8-bit level on every
// colour of a 16-level cube (a gray ramp for gray profiles). sRGB files come with many
// profiles that are all sRGB (IEC 61966-2.1 in its v2 and v4 forms, "sRGB built-in", compact
// ones, the broken HP one that libpng calls "known incorrect"): checking the numbers, not
// the name, treats them alike and skips the conversion's cost for all of them.
static int is_srgb(cmsContext context, cmsHPROFILE profile, gps_row_kind kind, cmsHPROFILE srgb) {
    if (kind != GPS_ROWS_RGB && kind != GPS_ROWS_GRAY) return 0;
    int gray = kind == GPS_ROWS_GRAY;
    cmsHTRANSFORM probe = cmsCreateTransformTHR(context, profile, gray ? TYPE_GRAY_8 : TYPE_RGB_8, srgb, TYPE_RGB_8,
                                                INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
    if (probe == NULL) return 0;
    enum { levels = 16, colours = levels * levels * levels };
    uint8_t in[3 * colours], out[3 * colours];
    size_t count = 0;
    for (int r = 0; r < levels; r++) {
        for (int g = 0; g < levels; g++) {
            for (int b = 0; b < levels; b++) {
                if (gray && (g != r || b != r)) continue;
                in[3 * count] = (uint8_t)(17 * r);
                in[3 * count + 1] = (uint8_t)(17 * g);
                in[3 * count + 2] = (uint8_t)(17 * b);
                count++;
            }
        }
    }
    if (gray) {
        for (size_t i = 0; i < count; i++) in[i] = in[3 * i];
    }
    cmsDoTransform(probe, in, out, (cmsUInt32Number)count);
    cmsDeleteTransform(probe);
    for (size_t i = 0; i < count; i++) {
        for (int c = 0; c < 3; c++) {
            int expected = gray ? in[i] : in[3 * i + c];
            int difference = (int)out[3 * i + c] - expected;
            if (difference > 1 || difference < -1) return 0;
        }
    }
    return 1;
}

// HEIF's nclx code points (ITU-T H.273) as a matrix-shaper profile, for a file that says its
// colours that way instead of with an ICC profile. Primaries: 1 BT.709 (= sRGB's), 9 BT.2020,
// 12 Display P3 (P3 primaries, D65); 2 = unspecified, taken as sRGB's, as libheif does.
// Transfer: 13 sRGB (and 2, unspecified), 1/6/14/15 the BT.709 curve, 8 linear. Returns NULL for
// what cannot be shown faithfully as sRGB without tone mapping (PQ 16, HLG 18) or is unknown,
// with *problem saying so; NULL and no problem when the code points describe sRGB.
static cmsHPROFILE profile_from_cicp(cmsContext context, const gps_cicp *cicp, char *name, size_t name_size,
                                     const char **problem) {
    static const struct { int code; const char *name; cmsCIExyYTRIPLE xy; } primaries[] = {
        {1, "BT.709", {{0.640, 0.330, 1}, {0.300, 0.600, 1}, {0.150, 0.060, 1}}},
        {2, "unspecified", {{0.640, 0.330, 1}, {0.300, 0.600, 1}, {0.150, 0.060, 1}}},
        {9, "BT.2020", {{0.708, 0.292, 1}, {0.170, 0.797, 1}, {0.131, 0.046, 1}}},
        {12, "Display P3", {{0.680, 0.320, 1}, {0.265, 0.690, 1}, {0.150, 0.060, 1}}},
    };
    int p = -1;
    for (size_t i = 0; i < sizeof primaries / sizeof primaries[0]; i++) {
        if (primaries[i].code == cicp->colour_primaries) p = (int)i;
    }
    // IEC 61966-2-1 (sRGB) and BT.709's inverse OETF as LittleCMS's parametric curve type 4:
    // Y = (aX + b)^g for X >= d, else cX.
    const double srgb[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    const double bt709[5] = {1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081};
    const double linear[5] = {1, 1, 0, 1, 0};
    const double *curve = NULL;
    const char *curve_name = NULL;
    switch (cicp->transfer_characteristics) {
    case 2: case 13: curve = srgb; curve_name = "sRGB"; break;
    case 1: case 6: case 14: case 15: curve = bt709; curve_name = "BT.709"; break;
    case 8: curve = linear; curve_name = "linear"; break;
    default: break;
    }
    snprintf(name, name_size, "nclx primaries %d, transfer %d", cicp->colour_primaries, cicp->transfer_characteristics);
    if (p < 0 || curve == NULL) {
        *problem = "nclx colour ignored: primaries or transfer (HDR PQ/HLG?) not convertible to sRGB here";
        return NULL;
    }
    if ((primaries[p].code == 1 || primaries[p].code == 2) && curve == srgb) return NULL;  // sRGB itself
    snprintf(name, name_size, "nclx: %s primaries, %s transfer", primaries[p].name, curve_name);
    cmsCIExyY d65 = {0.3127, 0.3290, 1};
    cmsToneCurve *tone = cmsBuildParametricToneCurve(context, 4, curve);
    if (tone == NULL) return NULL;
    cmsToneCurve *curves[3] = {tone, tone, tone};
    cmsHPROFILE profile = cmsCreateRGBProfileTHR(context, &d65, &primaries[p].xy, curves);
    cmsFreeToneCurve(tone);
    return profile;
}

static void name_profile(cmsHPROFILE profile, gps_image_header *header) {
    header->profile_name[0] = 0;
    cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", header->profile_name,
                           sizeof header->profile_name);
}

static gps_color *ignore(gps_image_header *header, gps_warnings *warnings, const char *why) {
    header->color_status = GPS_COLOR_IGNORED;
    gps_warn(warnings, why);
    return NULL;
}

gps_color *gps_color_create(gps_image_header *header, gps_row_kind kind, int alpha, uint32_t bit_depth,
                            gps_warnings *warnings) {
    header->color_status = GPS_COLOR_NONE;
    int has_icc = header->icc != NULL && header->icc_size > 0;
    if (!has_icc) header->icc = NULL;
    if (!has_icc && !header->cicp.present) return NULL;
    gps_color *color = calloc(1, sizeof *color);
    if (color == NULL) return ignore(header, warnings, "ICC profile ignored: out of memory");
    color->context = cmsCreateContext(NULL, warnings);
    if (color->context == NULL) {
        free(color);
        return ignore(header, warnings, "ICC profile ignored: out of memory");
    }
    cmsSetLogErrorHandlerTHR(color->context, on_lcms_error);

    const char *problem = NULL;
    cmsHPROFILE profile = NULL;
    if (header->icc != NULL) {
        profile = cmsOpenProfileFromMemTHR(color->context, header->icc, (cmsUInt32Number)header->icc_size);
        if (profile == NULL) problem = "ICC profile ignored: it cannot be read";
        else name_profile(profile, header);
    } else {
        profile = profile_from_cicp(color->context, &header->cicp, header->profile_name, sizeof header->profile_name,
                                    &problem);
        if (profile == NULL && problem == NULL) {  // sRGB said in code points
            gps_color_destroy(color);
            header->color_status = GPS_COLOR_SRGB;
            return NULL;
        }
    }
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(color->context);
    if (profile != NULL) {
        if (cmsGetColorSpace(profile) != expected_space(kind)) {
            problem = "ICC profile ignored: its colour space does not match the image's";
        } else if (srgb == NULL) {
            problem = "ICC profile ignored: out of memory";
        } else if (is_srgb(color->context, profile, kind, srgb)) {
            header->color_status = GPS_COLOR_SRGB;
        } else {
            int sixteen = bit_depth == 16 && (kind == GPS_ROWS_GRAY || kind == GPS_ROWS_RGB);
            color->output_channels = alpha ? 4 : 3;
            color->sample_bytes = sixteen ? 2 : 1;
            cmsUInt32Number output = alpha ? (sixteen ? TYPE_RGBA_16_SE : TYPE_RGBA_8)
                                           : (sixteen ? TYPE_RGB_16_SE : TYPE_RGB_8);
            color->transform = cmsCreateTransformTHR(color->context, profile, input_format(kind, alpha, bit_depth),
                                                     srgb, output, INTENT_RELATIVE_COLORIMETRIC,
                                                     alpha ? cmsFLAGS_COPY_ALPHA : 0);
            if (color->transform == NULL) problem = "ICC profile ignored: LittleCMS cannot convert it to sRGB";
            else header->color_status = GPS_COLOR_CONVERTED;
        }
    }
    if (profile != NULL) cmsCloseProfile(profile);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (color->transform == NULL) {
        gps_color_destroy(color);
        return problem ? ignore(header, warnings, problem) : NULL;
    }
    return color;
}

uint32_t gps_color_channels(const gps_color *color, uint32_t input_channels) {
    return color == NULL ? input_channels : color->output_channels;
}

const uint8_t *gps_color_apply(gps_color *color, const uint8_t *row, uint32_t width) {
    if (color == NULL) return row;
    if (width > color->row_capacity) {
        free(color->row);
        color->row = malloc((size_t)width * color->output_channels * color->sample_bytes);
        color->row_capacity = color->row ? width : 0;
        if (color->row == NULL) return NULL;
    }
    cmsDoTransform(color->transform, row, color->row, width);
    return color->row;
}

void gps_color_apply_in_place(gps_color *color, uint8_t *pixels, size_t count) {
    if (color == NULL) return;
    // LittleCMS allows the same buffer in and out when both formats take the same bytes; it
    // counts pixels in 32 bits, hence the slices.
    size_t bytes = color->output_channels * color->sample_bytes;
    const size_t slice = (size_t)1 << 24;
    for (size_t done = 0; done < count; done += slice) {
        size_t n = count - done < slice ? count - done : slice;
        cmsDoTransform(color->transform, pixels + done * bytes, pixels + done * bytes, (cmsUInt32Number)n);
    }
}

void gps_color_destroy(gps_color *color) {
    if (color == NULL) return;
    if (color->transform != NULL) cmsDeleteTransform(color->transform);
    if (color->context != NULL) cmsDeleteContext(color->context);
    free(color->row);
    free(color);
}
