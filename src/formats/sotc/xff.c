/* XFF, the container of Shadow of the Colossus data files (docs/formats/sotc.md §2, §9.2):
 * reading the header and section table, and writing a two-section file with
 * symbols and a relocation table. Every offset is checked against the
 * buffer in 64-bit arithmetic before it is used. */
#include "formats/sotc/sotc.h"

#include <stdio.h>

static uint32_t hdr(const unsigned char *p, int field) { return ossa__rd32(p + field); }

ossa_status ossa__xff_open(sotc_xff *x, const unsigned char *data, size_t size, ossa_error *error)
{
    memset(x, 0, sizeof *x);
    if (size < XFF_HEADER_SIZE)
        return ossa__fail(error, OSSA_ERROR_TRUNCATED, size,
                          "expected a %d-byte XFF header, the data has %zu bytes", XFF_HEADER_SIZE,
                          size);
    /* "xff\0" in data files, "xff2" in executables; both are accepted. */
    if (memcmp(data, "xff", 3) != 0 || (data[3] != 0 && data[3] != '2'))
        return ossa__fail(error, OSSA_ERROR_FORMAT, 0,
                          "expected the XFF magic \"xff\\0\" or \"xff2\"");
    uint32_t total = hdr(data, XFF_H_SIZE);
    if (total > size)
        return ossa__fail(error, OSSA_ERROR_TRUNCATED, size,
                          "the XFF header declares %u bytes, the data has %zu", total, size);
    if (total < XFF_HEADER_SIZE)
        return ossa__fail(error, OSSA_ERROR_CORRUPT, XFF_H_SIZE,
                          "total size %u is smaller than the XFF header", total);
    uint32_t sections = hdr(data, XFF_H_NUM_SECTIONS);
    if (sections != 2)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, XFF_H_NUM_SECTIONS,
                          "%u sections (data files have 2: a null section and .rodata)", sections);
    uint32_t table = hdr(data, XFF_H_OFS_SECTIONS);
    if ((uint64_t)table + 2 * XFF_SECTION_SIZE > total)
        return ossa__fail(error, OSSA_ERROR_CORRUPT, XFF_H_OFS_SECTIONS,
                          "the section table at byte %u runs past the end of the file (%u bytes)",
                          table, total);
    uint64_t sec = (uint64_t)table + XFF_SECTION_SIZE; /* section 1, .rodata */
    uint32_t ro_size = ossa__rd32(data + sec + 0x08), ro = ossa__rd32(data + sec + 0x1C);
    if ((uint64_t)ro + ro_size > total)
        return ossa__fail(error, OSSA_ERROR_CORRUPT, sec + 0x1C,
                          ".rodata: %u bytes at byte %u run past the end of the file (%u bytes)",
                          ro_size, ro, total);
    uint32_t entry = hdr(data, XFF_H_ENTRY);
    if (entry >= ro_size)
        return ossa__fail(error, OSSA_ERROR_CORRUPT, XFF_H_ENTRY,
                          "entry %u is outside .rodata (%u bytes)", entry, ro_size);
    x->data = data;
    x->size = total;
    x->ro = ro;
    x->ro_size = ro_size;
    x->entry = entry;
    return OSSA_OK;
}

bool ossa__xff_sniff(const unsigned char *data, size_t size, uint32_t *first_word)
{
    sotc_xff x;
    if (ossa__xff_open(&x, data, size, NULL) != OSSA_OK || !ossa__xff_fits(&x, x.entry, 1, 4))
        return false;
    *first_word = ossa__rd32(xff_at(&x, x.entry));
    return true;
}

bool ossa__xff_fits(const sotc_xff *x, uint64_t ofs, uint64_t count, uint64_t elem)
{
    if (ofs > x->ro_size) return false;
    if (elem && count > (x->ro_size - ofs) / elem) return false;
    return true;
}

ossa_status ossa__xff_need(const sotc_xff *x, uint64_t ofs, uint64_t count, uint64_t elem,
                           uint64_t field, const char *what, ossa_error *error)
{
    if (ossa__xff_fits(x, ofs, count, elem)) return OSSA_OK;
    return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(x, field),
                      "%s: %llu x %llu bytes at .rodata offset %llu run past the end of .rodata "
                      "(%u bytes)",
                      what, (unsigned long long)count, (unsigned long long)elem,
                      (unsigned long long)ofs, x->ro_size);
}

ossa_status ossa__xff_string(const sotc_xff *x, uint64_t ofs, uint64_t field, const char *what,
                             const char **out, ossa_error *error)
{
    if (ofs >= x->ro_size)
        return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(x, field),
                          "%s: string offset %llu is outside .rodata (%u bytes)", what,
                          (unsigned long long)ofs, x->ro_size);
    const unsigned char *p = xff_at(x, ofs);
    if (!memchr(p, 0, x->ro_size - ofs))
        return ossa__fail(error, OSSA_ERROR_CORRUPT, xff_file(x, ofs),
                          "%s: the string at .rodata offset %llu has no terminating NUL", what,
                          (unsigned long long)ofs);
    *out = (const char *)p;
    return OSSA_OK;
}

/* -- Writing -- */

void ossa__ro_init(sotc_rodata *r, const ossa_allocator *allocator)
{
    ossa__buf_init(&r->data, allocator);
    ossa__buf_init(&r->pointers, allocator);
}

void ossa__ro_release(sotc_rodata *r)
{
    ossa__buf_release(&r->data);
    ossa__buf_release(&r->pointers);
}

bool ossa__ro_failed(const sotc_rodata *r)
{
    return r->data.failed || r->pointers.failed || r->data.size > UINT32_MAX / 2;
}

uint32_t ossa__ro_alloc(sotc_rodata *r, size_t n, size_t align)
{
    if (align > 1) ossa__buf_pad(&r->data, align);
    size_t at = r->data.size;
    if (n) ossa__buf_push(&r->data, n);
    if (ossa__ro_failed(r)) return 0;
    return (uint32_t)at;
}

/* Every store checks the offset: after an allocation failure offsets are
 * 0 and the buffer may be empty. */
static unsigned char *ro_ptr(sotc_rodata *r, uint32_t at, size_t n)
{
    if (ossa__ro_failed(r) || (uint64_t)at + n > r->data.size) return NULL;
    return r->data.data + at;
}

void ossa__ro_u32(sotc_rodata *r, uint32_t at, uint32_t v)
{
    unsigned char *p = ro_ptr(r, at, 4);
    if (p) ossa__wr32(p, v);
}

void ossa__ro_u8(sotc_rodata *r, uint32_t at, uint8_t v)
{
    unsigned char *p = ro_ptr(r, at, 1);
    if (p) *p = v;
}

void ossa__ro_f32(sotc_rodata *r, uint32_t at, float v)
{
    unsigned char *p = ro_ptr(r, at, 4);
    if (p) ossa__wrf32(p, v);
}

void ossa__ro_ptr(sotc_rodata *r, uint32_t at, uint32_t target)
{
    ossa__ro_u32(r, at, target);
    ossa__buf_append(&r->pointers, &at, sizeof at);
}

uint32_t ossa__ro_string(sotc_rodata *r, const char *s)
{
    size_t n = strlen(s) + 1;
    uint32_t at = ossa__ro_alloc(r, n, 1);
    unsigned char *p = ro_ptr(r, at, n);
    if (p) memcpy(p, s, n);
    return at;
}

/* Names of the two sections: "" and ".rodata" at offsets 0 and 1. */
static const char section_names[] = "\0.rodata";
/* The entry symbol's name ("" is the null and section symbols' name). */
static const char symbol_names[] = "\0entry";

ossa_status ossa__xff_write(const sotc_rodata *r, uint32_t entry, uint32_t special, ossa_buf *out,
                            ossa_error *error)
{
    if (ossa__ro_failed(r)) return ossa__fail_nomem(error);
    size_t ro_size = r->data.size, num_ptrs = r->pointers.size / 4;
    /* Layout: header, section-name offsets (0x70), section table (0x78),
     * section-name strings, symbols, symbol strings, per-symbol addresses,
     * .rodata (16-aligned), then the relocation table and its entries. */
    const uint32_t secnames = 0x70, sections = 0x78, secstr = sections + 2 * XFF_SECTION_SIZE;
    const uint32_t symbols = (secstr + (uint32_t)sizeof section_names + 3) & ~3u;
    const uint32_t symstr = symbols + 3 * 16;
    const uint32_t symaddr = (symstr + (uint32_t)sizeof symbol_names + 3) & ~3u;
    const uint32_t imports = symaddr + 3 * 4;
    const uint32_t ro = (imports + 15) & ~15u;
    uint64_t relocs = ((uint64_t)ro + ro_size + 15) & ~(uint64_t)15;
    uint64_t addresses = relocs + 0x1C, addends = addresses + 8 * (uint64_t)num_ptrs;
    uint64_t total = addends + 8 * (uint64_t)num_ptrs;
    if (total > UINT32_MAX)
        return ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET,
                          "the data needs %llu bytes, more than an XFF file can hold",
                          (unsigned long long)total);
    unsigned char *f = ossa__buf_push(out, (size_t)total);
    if (!f) return ossa__fail_nomem(error);

    memcpy(f, "xff\0", 4);
    ossa__wr32(f + XFF_H_SPECIAL, special);
    ossa__wr32(f + XFF_H_SIZE, (uint32_t)total);
    ossa__wr32(f + XFF_H_NUM_IMPORTS, 0);
    ossa__wr32(f + XFF_H_NUM_SYMBOLS, 3);
    ossa__wr32(f + XFF_H_NUM_RELOCS, 1);
    ossa__wr32(f + XFF_H_NUM_SECTIONS, 2);
    ossa__wr32(f + XFF_H_ENTRY, entry);
    ossa__wr32(f + XFF_H_OFS_IMPORTS, imports);
    ossa__wr32(f + XFF_H_OFS_SYMBOLS, symbols);
    ossa__wr32(f + XFF_H_OFS_SYMSTR, symstr);
    ossa__wr32(f + XFF_H_OFS_SECTIONS, sections);
    ossa__wr32(f + XFF_H_OFS_SYMADDR, symaddr);
    ossa__wr32(f + XFF_H_OFS_RELOCS, (uint32_t)relocs);
    ossa__wr32(f + XFF_H_OFS_SECNAMES, secnames);
    ossa__wr32(f + XFF_H_OFS_SECSTR, secstr);

    ossa__wr32(f + secnames, 0);
    ossa__wr32(f + secnames + 4, 1);
    memcpy(f + secstr, section_names, sizeof section_names);

    /* Section 0: the empty placeholder (no bits). Section 1: .rodata. */
    ossa__wr32(f + sections + 0x10, 8);
    unsigned char *s1 = f + sections + XFF_SECTION_SIZE;
    ossa__wr32(s1 + 0x08, (uint32_t)ro_size);
    ossa__wr32(s1 + 0x0C, 16);
    ossa__wr32(s1 + 0x10, 1);
    ossa__wr32(s1 + 0x14, 2); /* allocated, as in ELF */
    ossa__wr32(s1 + 0x1C, ro);

    /* Symbols {name, address, size, info, other, section}: the null symbol,
     * the .rodata section symbol (local, section type) and the entry
     * (global object). Addresses are section-relative. */
    unsigned char *sym = f + symbols;
    sym[16 + 12] = 0x03;
    ossa__wr16(sym + 16 + 14, 1);
    ossa__wr32(sym + 32, 1);
    ossa__wr32(sym + 32 + 4, entry);
    sym[32 + 12] = 0x11;
    ossa__wr16(sym + 32 + 14, 1);
    memcpy(f + symstr, symbol_names, sizeof symbol_names);
    ossa__wr32(f + symaddr + 8, entry);

    if (ro_size) memcpy(f + ro, r->data.data, ro_size);

    /* One REL table for section 1: {type 9, count, section, abs, abs,
     * address table, addend table}; each pointer word gets {offset, 0x102}
     * (kind 2 "add symbol address", symbol 1 = .rodata) and {value, 0}. */
    unsigned char *rel = f + relocs;
    ossa__wr32(rel, 9);
    ossa__wr32(rel + 4, (uint32_t)num_ptrs);
    ossa__wr32(rel + 8, 1);
    ossa__wr32(rel + 0x14, (uint32_t)addresses);
    ossa__wr32(rel + 0x18, (uint32_t)addends);
    for (size_t i = 0; i < num_ptrs; i++) {
        uint32_t at;
        memcpy(&at, r->pointers.data + 4 * i, 4);
        ossa__wr32(f + addresses + 8 * i, at);
        ossa__wr32(f + addresses + 8 * i + 4, 0x102);
        ossa__wr32(f + addends + 8 * i, ossa__rd32(r->data.data + at));
    }
    return OSSA_OK;
}
