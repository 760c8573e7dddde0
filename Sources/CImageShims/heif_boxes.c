// A reader of the few HEIF boxes heif_boxes.h needs: 'meta' and in it 'iinf' (item types),
// 'iref' (the 'dimg' references of derived images), 'iloc' and 'idat' (where the primary's item
// data is). Every read is bounds-checked against its box. It fails closed: libheif 1.15 is more
// lenient (it parsed these bytes already, and reads on through sizes that do not add up), so
// whatever this reader cannot read in the boxes it needs (the box tree of 'meta', 'iinf',
// 'iref', a grid's size) makes the file unsupported rather than unchecked.

#include "heif_boxes.h"

#include <stdio.h>
#include <stdlib.h>

#include "cimageshims.h"
#include "util.h"

// A bounded span of bytes and a read position in it. A read past the end sets `failed` and
// yields 0, so parsing code reads straight on and checks once.
typedef struct {
    const uint8_t *data;
    size_t size, at;
    int failed;
} span;

static uint64_t read_uint(span *s, unsigned bytes) {
    if (bytes > 8 || s->at > s->size || s->size - s->at < bytes) {
        s->failed = 1;
        s->at = s->size;
        return 0;
    }
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++) value = value << 8 | s->data[s->at++];
    return value;
}

static uint32_t read_type(span *s) { return (uint32_t)read_uint(s, 4); }

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

// The next box in `s`: its type and its payload as a span. 0 at the end of `s`, and also when
// what is left is not a box (too short, or a size beyond `s`): then `s->failed` is set.
static uint32_t next_box(span *s, span *payload) {
    if (s->failed || s->at == s->size) return 0;
    size_t start = s->at;
    uint64_t size = read_uint(s, 4);
    uint32_t type = read_type(s);
    if (size == 1) {
        size = read_uint(s, 8);  // 64-bit 'largesize'
    } else if (size == 0) {
        size = s->size - start;  // to the end of the enclosing box (or file)
    }
    if (s->failed || size < s->at - start || size > s->size - start) {
        s->failed = 1;
        return 0;
    }
    *payload = (span){s->data, start + (size_t)size, s->at, 0};
    s->at = start + (size_t)size;
    return type;
}

typedef struct {
    uint32_t id, type;
} item;

typedef struct {
    item *items;
    size_t item_count;
    span iref, iloc, idat;
    int have_iref, have_iloc, have_idat;
} meta_boxes;

// The coded images libheif 1.15 decodes: HEVC and AV1.
static int is_coded(uint32_t type) { return type == FOURCC('h', 'v', 'c', '1') || type == FOURCC('a', 'v', '0', '1'); }

// The derived images libheif 1.15 decodes: grid, overlay, identity.
static int is_decoded_derivation(uint32_t type) {
    return type == FOURCC('g', 'r', 'i', 'd') || type == FOURCC('i', 'o', 'v', 'l') || type == FOURCC('i', 'd', 'e', 'n');
}

static uint32_t type_of(const meta_boxes *m, uint32_t id) {
    for (size_t i = 0; i < m->item_count; i++) {
        if (m->items[i].id == id) return m->items[i].type;
    }
    return 0;
}

// 'iinf': the type of every item ('infe' version 2 and 3; earlier versions carry no type). The
// declared count is not trusted: every 'infe' box in it is read (an infe is 8 bytes at least).
static int read_items(span iinf, meta_boxes *m) {
    unsigned version = (unsigned)read_uint(&iinf, 1);
    read_uint(&iinf, 3);
    read_uint(&iinf, version == 0 ? 2 : 4);
    if (iinf.failed) return 0;
    m->items = calloc((iinf.size - iinf.at) / 8 + 1, sizeof *m->items);
    if (m->items == NULL) return 0;
    span infe;
    uint32_t type;
    while ((type = next_box(&iinf, &infe)) != 0) {
        if (type != FOURCC('i', 'n', 'f', 'e')) continue;
        unsigned infe_version = (unsigned)read_uint(&infe, 1);
        read_uint(&infe, 3);
        if (infe_version < 2) continue;
        uint32_t id = (uint32_t)read_uint(&infe, infe_version == 2 ? 2 : 4);
        read_uint(&infe, 2);  // item_protection_index
        uint32_t item_type = read_type(&infe);
        if (!infe.failed) m->items[m->item_count++] = (item){id, item_type};
    }
    return !iinf.failed;
}

// The item data of `id` from 'iloc' (construction method 0: the file; 1: 'idat'), its first
// extent only: enough for a grid's or overlay's header. NULL span when not found or unreadable.
static span item_data(const meta_boxes *m, const uint8_t *file, size_t file_size, uint32_t id) {
    span none = {NULL, 0, 0, 1};
    if (!m->have_iloc) return none;
    span s = m->iloc;
    unsigned version = (unsigned)read_uint(&s, 1);
    read_uint(&s, 3);
    unsigned sizes = (unsigned)read_uint(&s, 1), more = (unsigned)read_uint(&s, 1);
    unsigned offset_size = sizes >> 4, length_size = sizes & 15, base_size = more >> 4;
    unsigned index_size = version >= 1 ? (more & 15) : 0;
    uint64_t count = read_uint(&s, version < 2 ? 2 : 4);
    for (uint64_t i = 0; i < count && !s.failed; i++) {
        uint32_t item_id = (uint32_t)read_uint(&s, version < 2 ? 2 : 4);
        unsigned method = version >= 1 ? (unsigned)read_uint(&s, 2) & 15 : 0;
        read_uint(&s, 2);  // data_reference_index
        uint64_t base = read_uint(&s, base_size);
        uint64_t extents = read_uint(&s, 2);
        // With every size 0 an extent takes no bytes: 65535 of them per item would be counted
        // through for nothing.
        if (item_id != id && offset_size + length_size + index_size == 0) continue;
        for (uint64_t e = 0; e < extents && !s.failed; e++) {
            read_uint(&s, index_size);
            uint64_t offset = read_uint(&s, offset_size), length = read_uint(&s, length_size);
            if (item_id != id || e > 0 || s.failed) continue;
            const uint8_t *source = method == 0 ? file : method == 1 && m->have_idat ? m->idat.data + m->idat.at : NULL;
            size_t source_size = method == 0 ? file_size : method == 1 && m->have_idat ? m->idat.size - m->idat.at : 0;
            if (source == NULL || base > source_size || offset > source_size - base) return none;
            size_t start = (size_t)(base + offset), available = source_size - start;
            size_t size = length == 0 || length > available ? available : (size_t)length;
            return (span){source + start, size, 0, 0};
        }
    }
    return none;
}

// The output size a grid's or overlay's item data declare (ISO/IEC 23008-12 6.6.2.3): a grid is
// version, flags, rows-1, columns-1, then width and height; an overlay is version, flags, four
// 16-bit fill values, then width and height. 16-bit fields, 32-bit when flags bit 0 is set.
static int declared_size(uint32_t type, span data, uint32_t *width, uint32_t *height) {
    read_uint(&data, 1);  // version
    unsigned flags = (unsigned)read_uint(&data, 1);
    read_uint(&data, type == FOURCC('g', 'r', 'i', 'd') ? 2 : 8);
    unsigned field = (flags & 1) ? 4 : 2;
    *width = (uint32_t)read_uint(&data, field);
    *height = (uint32_t)read_uint(&data, field);
    return !data.failed;
}

static void fourcc_text(uint32_t type, char text[5]) {
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(type >> (24 - 8 * i));
        text[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    text[4] = 0;
}

static int check(const meta_boxes *m, const uint8_t *file, size_t size, uint32_t primary, uint32_t ispe_width,
                 uint32_t ispe_height, char *message, size_t message_size) {
    // Every 'dimg' reference: from a derived image to its inputs.
    if (m->have_iref) {
        span iref = m->iref, reference;
        unsigned version = (unsigned)read_uint(&iref, 1);
        read_uint(&iref, 3);
        unsigned id_size = version == 0 ? 2 : 4;
        uint32_t type;
        while ((type = next_box(&iref, &reference)) != 0) {
            if (type != FOURCC('d', 'i', 'm', 'g')) continue;
            uint32_t from = (uint32_t)read_uint(&reference, id_size);
            uint64_t count = read_uint(&reference, 2);
            // Only the derivations libheif 1.15 performs. Others are not decoded by it: an ISO
            // 21496-1 gain map ('tmap', in recent iPhone photos) is derived from the primary grid
            // and must not make the photo unsupported.
            int decoded = is_decoded_derivation(type_of(m, from));
            for (uint64_t i = 0; i < count && !reference.failed; i++) {
                uint32_t to = (uint32_t)read_uint(&reference, id_size);
                uint32_t input_type = type_of(m, to);
                if (!reference.failed && decoded && !is_coded(input_type)) {
                    char from_text[5], to_text[5];
                    fourcc_text(type_of(m, from), from_text);
                    fourcc_text(input_type, to_text);
                    snprintf(message, message_size, "item %u (%s) is derived from item %u (%s), not from a coded image",
                             from, from_text, to, input_type != 0 ? to_text : "no such item");
                    return GPS_ERR_UNSUPPORTED;
                }
            }
        }
        // libheif 1.15 reads references out of boxes whose sizes do not add up (a fuzzer's
        // 'dimg' declaring 4878 bytes in a 26-byte 'iref' still reached its assertion): what
        // cannot be read here is not decoded.
        if (iref.failed) {
            gps_set_message(message, message_size, "its item references ('iref') do not parse");
            return GPS_ERR_UNSUPPORTED;
        }
    }
    uint32_t primary_type = type_of(m, primary);
    if (primary_type != FOURCC('g', 'r', 'i', 'd') && primary_type != FOURCC('i', 'o', 'v', 'l')) return GPS_OK;
    uint32_t width, height;
    const char *kind = primary_type == FOURCC('g', 'r', 'i', 'd') ? "grid" : "overlay";
    if (!declared_size(primary_type, item_data(m, file, size, primary), &width, &height)) {
        // libheif might still find the size (in a later extent, say): it is not let decode
        // a canvas whose size was not compared.
        snprintf(message, message_size, "the %s image's size is not in the first extent of its data", kind);
        return GPS_ERR_UNSUPPORTED;
    }
    if (width != ispe_width || height != ispe_height) {
        snprintf(message, message_size, "the %s image declares %ux%u but its ispe says %ux%u", kind, width, height,
                 ispe_width, ispe_height);
        return GPS_ERR_UNSUPPORTED;
    }
    return GPS_OK;
}

int gps_heif_check_derivations(const uint8_t *file, size_t size, uint32_t primary, uint32_t ispe_width,
                               uint32_t ispe_height, char *message, size_t message_size) {
    span top = {file, size, 0, 0}, box;
    uint32_t type;
    while ((type = next_box(&top, &box)) != 0 && type != FOURCC('m', 'e', 't', 'a')) {}
    if (type == 0) {
        gps_set_message(message, message_size, "no 'meta' box is found by its top-level box sizes");
        return GPS_ERR_UNSUPPORTED;
    }
    read_uint(&box, 4);  // meta is a full box: version and flags
    meta_boxes m = {0};
    span child;
    int items_read = 0;
    // Each of these boxes appears once (ISO/IEC 14496-12 8.11); a second one, which this
    // reader and libheif might each take differently, is refused with the rest.
    while ((type = next_box(&box, &child)) != 0) {
        if (type == FOURCC('i', 'i', 'n', 'f')) {
            if (items_read || !read_items(child, &m)) box.failed = 1;
            items_read = 1;
        } else if (type == FOURCC('i', 'r', 'e', 'f')) {
            box.failed |= m.have_iref;
            m.iref = child, m.have_iref = 1;
        } else if (type == FOURCC('i', 'l', 'o', 'c')) {
            box.failed |= m.have_iloc;
            m.iloc = child, m.have_iloc = 1;
        } else if (type == FOURCC('i', 'd', 'a', 't')) {
            box.failed |= m.have_idat;
            m.idat = child, m.have_idat = 1;
        }
    }
    int status;
    if (box.failed || !items_read) {
        gps_set_message(message, message_size, "its 'meta' box or item list ('iinf') does not parse");
        status = GPS_ERR_UNSUPPORTED;
    } else {
        status = check(&m, file, size, primary, ispe_width, ispe_height, message, message_size);
    }
    free(m.items);
    return status;
}
