/* Text shared by every text format (IQE, illEngine, MD5, SMD, OBJ, glTF's
 * numbers): exact, locale-independent numbers both ways, a line lexer
 * that reports line:column, a line writer over ossa_buf, and base64 for
 * bytes inside text (glTF, FBX). Not installed; no format knows another
 * format's text rules, only these. */
#ifndef OSSA_TEXT_H
#define OSSA_TEXT_H

#include "base/base.h"

/* -- Numbers (number.c) ---------------------------------------------------- */

/* True for the characters that end a token inside a line. */
static inline bool ossa__text_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

const char *ossa__text_parse_float_slow(const char *start, const char *p, const char *end,
                                       uint64_t m, size_t digits, int e, bool negative,
                                       float *out);
extern const float ossa__text_pow10f[11];

/* Appends the run of decimal digits at p to *m (m = m * 10 + digit; it
 * wraps past 19 digits, which callers count); returns the end of the run.
 * Eight bytes at a time where they can be read as one little-endian word:
 * the digits are told from other bytes by their nibbles and combined by
 * three multiplications, without a branch per digit. */
static inline const char *ossa__text_digits(const char *p, const char *end, uint64_t *m)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        /* Zero bytes exactly where x holds '0'..'9': high nibble 3, and
         * low nibble + 6 still below 16. */
        uint64_t other = ((x & 0xF0F0F0F0F0F0F0F0u) |
                          (((x + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) ^
                         0x3333333333333333u;
        unsigned n = other ? (unsigned)__builtin_ctzll(other) >> 3 : 8;
        if (n == 0) return p;
        /* The n digits, moved up so that the bytes before them read as
         * leading zeros, then pairs, quads and the eight combined. */
        uint64_t v = (x & 0x0F0F0F0F0F0F0F0Fu) << (64 - 8 * n);
        v = (v * 2561) >> 8;
        v = ((v & 0x00FF00FF00FF00FFu) * 6553601) >> 16;
        v = ((v & 0x0000FFFF0000FFFFu) * 42949672960001u) >> 32;
        *m = *m * pow10[n] + v;
        p += n;
        if (n < 8) return p;
    }
#endif
    unsigned d;
    while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
        *m = *m * 10 + d;
        p++;
    }
    return p;
}

/* Parses the number token at p (strtod syntax in the C locale: optional
 * sign, digits with an optional '.', optional exponent; also inf, infinity
 * and nan) and rounds it correctly to float32, ties to even. The token
 * must end at `end`, a blank or a newline. Returns the end of the token, or
 * NULL when the token is not a number.
 *
 * Inline for the common token: up to 19 digits around a point and no
 * exponent. When the mantissa m <= 2^24 and the power of ten is at most
 * 10, m and 10^k are exact floats and one float operation rounds
 * correctly; everything else goes to text/number.c (exact in every case). */
static inline const char *ossa__text_parse_float(const char *p, const char *end, float *out)
{
    const char *start = p;
    bool negative = false;
    if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
    const char *digits = p, *point = NULL;
    uint64_t m = 0;
    unsigned d;
    /* The integer part is mostly a digit or two: a loop is quicker. */
    while (p < end && (d = (unsigned)(unsigned char)*p - '0') < 10) {
        m = m * 10 + d;
        p++;
    }
    if (p < end && *p == '.') {
        point = ++p;
        p = ossa__text_digits(p, end, &m);
    }
    size_t frac = point ? (size_t)(p - point) : 0;
    size_t count = (size_t)(p - digits) - (point ? 1 : 0);
    if (count - 1 < 19 && frac <= 10 && m <= (1u << 24) &&
        (p == end || ossa__text_blank(*p) || *p == '\n')) {
        float f = (float)m / ossa__text_pow10f[frac];
        *out = negative ? -f : f;
        return p;
    }
    return ossa__text_parse_float_slow(start, p, end, m, count, -(int)frac, negative, out);
}

/* Parses a decimal integer token (optional sign). Returns the end of the
 * token, or NULL when it is not an integer or does not fit in int64. */
const char *ossa__text_parse_int(const char *p, const char *end, int64_t *out);

/* Parses the number token [p, end) (the same syntax) as a double: exact
 * for up to 15 digits and powers of ten within +-22, otherwise within one
 * ulp (text/double.c). Returns end, or NULL when it is not a number. */
const char *ossa__text_parse_double(const char *p, const char *end, double *out);

/* The float nearest to mantissa * 10^exp10 (ties to even), negated when
 * `negative`. Exact for every input. */
float ossa__text_decimal_to_float(uint64_t mantissa, int exp10, bool negative);

/* Writes the shortest decimal (6 to 9 significant digits, trailing zeros
 * dropped) that ossa__text_parse_float reads back as exactly `f`, in %g
 * style ("-0", "0.5", "1e-07", "inf", "nan"); `out` holds at least
 * OSSA_FLOAT_CHARS bytes. Returns the length (no NUL is written). */
#define OSSA_FLOAT_CHARS 32
size_t ossa__text_format_float(char *out, float f);

/* -- Line lexer (lexer.c) --------------------------------------------------
 *
 * For line-oriented formats whose tokens are separated by blanks (MD5,
 * SMD, OBJ): a cursor inside the current line, tokens that end at a blank,
 * a line end or a delimiter character ("(){}" for MD5, each of which is a
 * token of its own), a line comment prefix, and errors located as
 * line:column with what was expected and what was found. */

typedef struct ossa_lexer {
    const char *data, *end;
    const char *line_start; /* first byte of the current line */
    const char *p;          /* cursor inside the current line */
    uint32_t line;          /* 1-based */
    const char *comment;    /* line comment prefix, or NULL */
    const char *delims;     /* one-character tokens; "" for none */
    ossa_error *error;
    /* Free-form formats (MD5): slash-star comments too, skipped by
     * ossa__lex_skip_space. False after ossa__lex_init. */
    bool block_comments;
} ossa_lexer;

void ossa__lex_init(ossa_lexer *lx, const unsigned char *data, size_t size, const char *comment,
                    const char *delims, ossa_error *error);
/* Skips blanks (and a trailing comment) in the current line; true when a
 * token follows on it. */
bool ossa__lex_more(ossa_lexer *lx);
/* Moves to the first byte of the next line; false when there is none. */
bool ossa__lex_next_line(ossa_lexer *lx);
/* From the cursor, moves past lines holding no token; true when a token
 * follows, false at the end of the data. */
bool ossa__lex_skip_empty(ossa_lexer *lx);
/* For free-form layouts, where a line break is a blank (MD5): moves past
 * blanks, line breaks (LF, CRLF or a lone CR, each counted as a line), line
 * comments and, with block_comments, slash-star comments. Returns 1 when a
 * token follows, 0 at the end of the data, and -1 (TRUNCATED, located at
 * its opening) for a block comment that never ends. */
int ossa__lex_skip_space(ossa_lexer *lx);
/* Bytes of the token at the cursor (0 at the end of the line). */
size_t ossa__lex_token_len(ossa_lexer *lx);
/* Whether the token at the cursor is `word` (consumed when it is). */
bool ossa__lex_accept(ossa_lexer *lx, const char *word);
/* Consumes `word` or fails: "expected 'word' <context>, found ...". */
ossa_status ossa__lex_expect(ossa_lexer *lx, const char *word, const char *context);
/* Numbers and words; `what` names what was expected, for the message. */
ossa_status ossa__lex_float(ossa_lexer *lx, float *out, const char *what);
ossa_status ossa__lex_int(ossa_lexer *lx, int64_t *out, int64_t min, int64_t max,
                          const char *what);
/* A token (bare word) or a "quoted string" (without its quotes; it ends at
 * the closing quote or, unterminated, at the line end). */
ossa_status ossa__lex_string(ossa_lexer *lx, const char **s, size_t *len, const char *what);
/* The rest of the current line (trailing blanks and a CR dropped) and the
 * cursor moved to the line's end. */
void ossa__lex_rest(ossa_lexer *lx, const char **s, size_t *len);
uint32_t ossa__lex_column(const ossa_lexer *lx, const char *at);
/* What a located error found at `at`: ", found 'TOKEN'" for the n bytes
 * of a token there (40 at most), ", found the end of the line" (n = 0),
 * ", found the end of the file" (at >= end). Shared by the text formats'
 * lexers, so that their messages read alike. */
void ossa__lex_found(char *out, size_t cap, const char *at, const char *end, size_t n);

/* Fails at `at` (CORRUPT; TRUNCATED when `at` is the end of the data).
 * With `found`, ", found 'token'" (or "the end of the line/file") is
 * appended to the message. */
ossa_status ossa__lex_fail(ossa_lexer *lx, const char *at, bool found, const char *fmt, ...)
    OSSA_PRINTF(4, 5);

/* -- Base64 (base64.c) ------------------------------------------------------
 *
 * RFC 4648 §4: the standard alphabet and '=' padding. */

/* Characters that n bytes encode to: 4 per 3 bytes or part of 3. */
size_t ossa__base64_encoded_size(size_t n);
/* Writes ossa__base64_encoded_size(n) characters, padded (no NUL). */
void ossa__base64_encode(const unsigned char *in, size_t n, char *out);
/* The most bytes that `len` characters decode to in either mode: what
 * `out` of ossa__base64_decode needs. */
size_t ossa__base64_decoded_max(size_t len);

typedef enum ossa_base64_mode {
    /* Only the alphabet, with at most two '=' at the end and padding
     * optional (glTF's data URIs and stored extras); a last group of one
     * character, six bits, fails at that character. */
    OSSA_BASE64_STRICT,
    /* Spaces, CR, LF and '=' are skipped wherever they are, and bits short
     * of a byte at the end are dropped (FBX's ASCII Video Content). */
    OSSA_BASE64_LENIENT,
} ossa_base64_mode;

/* Decodes `len` characters into `out` (ossa__base64_decoded_max(len)
 * bytes) and sets *out_size. Returns false, with the index of the
 * offending character in *bad, at the first character the mode does not
 * accept. */
bool ossa__base64_decode(const char *in, size_t len, ossa_base64_mode mode, unsigned char *out,
                         size_t *out_size, size_t *bad);

/* -- Line writer (writer.c) --------------------------------------------------
 *
 * Text output through a small line buffer: numbers are written with the
 * shortest round-trip formatter above, so the output never depends on the
 * C locale and reads back bit for bit. */

typedef struct ossa_text_out {
    ossa_buf *buf;
    size_t n;
    char line[1024];
} ossa_text_out;

void ossa__out_init(ossa_text_out *o, ossa_buf *buf);
/* Moves what is buffered into `buf`; every writer calls it at its end. */
void ossa__out_flush(ossa_text_out *o);
void ossa__out_str(ossa_text_out *o, const char *s);
void ossa__out_mem(ossa_text_out *o, const char *s, size_t n);
void ossa__out_char(ossa_text_out *o, char c);
/* The shortest decimal that reads back as `f` (ossa__text_format_float). */
void ossa__out_float(ossa_text_out *o, float f);
/* `f` with exactly `decimals` (0..9) digits after the point, rounded half
 * away from zero from the float's exact value, as "%.*f" would in the C
 * locale (SMD's fixed "%.6f" layout); "-0.000000" stays signed. */
void ossa__out_fixed(ossa_text_out *o, float f, int decimals);
void ossa__out_int(ossa_text_out *o, int64_t v);
/* printf-style for text and integers only: never floats (%f follows the
 * locale); format those with ossa__out_float or ossa__out_fixed. */
void ossa__out_format(ossa_text_out *o, const char *fmt, ...) OSSA_PRINTF(2, 3);

/* -- Animation tags (anim_tag.c) ----------------------------------------------
 *
 * Where a text format has no field for an animation's name, frame rate or
 * loop flag, ossa's writers keep them in one line of text its readers
 * recognise and other programs skip (an SMD comment, the MD5 command line,
 * text after an ILLANIM0's last frame), in the IQM SDK's words:
 *
 *   ossa [--fps F] [--loop] --name NAME
 *
 * NAME is the rest of the line (blanks included). */

typedef struct ossa_anim_tag {
    float fps; /* 0 = not given */
    bool loop;
    char name[256]; /* cut at 255 bytes */
} ossa_anim_tag;

/* Parses s[0..n) (one line, without its end); false (and *out untouched)
 * when it is not a tag. */
bool ossa__anim_tag_parse(const char *s, size_t n, ossa_anim_tag *out);
/* Writes the tag without a line end: --fps when fps > 0 and finite,
 * --loop when loop; the name's line breaks, control bytes and `banned`
 * (0 = none: a format's quote character) become '_'. */
void ossa__anim_tag_write(ossa_text_out *o, const char *name, float fps, bool loop, char banned);

#endif
