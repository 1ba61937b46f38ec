/* Internal to the input layer: a line reader fed by a function, so that the same line
 * cutting serves plain descriptors, libarchive streams and archive members. */
#ifndef LDX_INPUT_INT_H
#define LDX_INPUT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "logdx/input.h"

/* Reads up to cap bytes into buf: the count, 0 at the end, or -1 with *err set to a
 * message that lives at least until the next call. */
typedef ssize_t (*ldxi_read_fn)(void *ctx, void *buf, size_t cap, const char **err);

/* The reader calls fn(ctx, ...) for each block; it owns neither. */
ldx_status ldxi_reader_open_fn(ldx_reader **out, ldxi_read_fn fn, void *ctx,
                               const char *name);

/* A streaming decoder for one stream (decode.c): gzip, xz, zstd, or UTF-16 text. */
typedef struct ldxi_decoder ldxi_decoder;
/* LDX_EINVAL for a kind it does not decode. */
ldx_status ldxi_decoder_create(ldxi_decoder **out, ldx_input_kind kind);
void ldxi_decoder_destroy(ldxi_decoder *d);
/* Decodes in[*ipos..ilen) into out[*opos..cap), advancing both; last: no input follows.
 * LDX_OK, or LDX_EIO with *err (static text) when the data is corrupt. */
ldx_status ldxi_decoder_step(ldxi_decoder *d, const unsigned char *in, size_t ilen,
                             size_t *ipos, unsigned char *out, size_t cap, size_t *opos,
                             bool last, const char **err);
/* Whether a kind is read through a decoder (gzip, xz, zstd, UTF-16). */
bool ldxi_kind_decoded(ldx_input_kind k);
/* Whether the input may end here (the last stream is complete). */
bool ldxi_decoder_complete(const ldxi_decoder *d);

/* UTF-16 to UTF-8 (utf16.c), a stream at a time: big is the byte order. Converts
 * in[*ipos..ilen) into out[*opos..cap), advancing both; last: no input follows (what is
 * left pending becomes U+FFFD). */
typedef struct {
    bool big, started, has_odd;
    unsigned char odd; /* a unit's first byte, its second in the next block */
    uint16_t hi;       /* a high surrogate waiting for its low one */
    unsigned char out[8]; /* the UTF-8 of the last unit, out[sent..nout) not yet handed over */
    uint8_t nout, sent;
} ldxi_utf16;
void ldxi_utf16_step(ldxi_utf16 *u, const unsigned char *in, size_t ilen, size_t *ipos,
                     unsigned char *out, size_t cap, size_t *opos, bool last);

/* Read-ahead (ahead.c): fn run on a thread of its own, a few blocks ahead.
 * ldxi_ahead_read is a read function over it; destroying it stops the thread. */
typedef struct ldxi_ahead ldxi_ahead;
ldx_status ldxi_ahead_create(ldxi_ahead **out, ldxi_read_fn fn, void *ctx);
ssize_t ldxi_ahead_read(void *ahead, void *buf, size_t cap, const char **err);
void ldxi_ahead_destroy(ldxi_ahead *a);

/* Line ends in p[0..n) (eol.c): each "\r", and each "\n" but the one of a "\r\n".
 * ldxi_eol_count_isa is the same with at most the instructions isa allows (0: none,
 * 1: SSE2, 2: AVX2, 3: AVX-512BW, each where the CPU has it), for the tests. */
uint64_t ldxi_eol_count(const char *p, size_t n);
uint64_t ldxi_eol_count_isa(const char *p, size_t n, int isa);

/* Hard-wrapped pastes (unwrap.c). ldxi_wrap_width: the width whole lines of p[0..n)
 * look cut at, or 0; ldxi_wrap_row: whether a row that wide may be a cut one (no tab,
 * ESC or progress bar); ldxi_text_width: code points in p[0..n). */
size_t ldxi_wrap_width(const char *p, size_t n);
bool ldxi_wrap_row(const char *p, size_t n);
size_t ldxi_text_width(const char *p, size_t n);

/* Indented pastes (dedent.c). ldxi_paste_indent: the blanks every line of p[0..n) that
 * holds anything starts with (two or more, at least three lines), or 0;
 * ldxi_indent_strip: how much of the line p[0..n) they are (0 when it lacks them). */
size_t ldxi_paste_indent(const char *p, size_t n);
size_t ldxi_indent_strip(size_t indent, const char *p, size_t n);

/* release(owner) runs when the reader is destroyed (ldx_reader_open_fd: the input the
 * reader's function reads from). */
void ldxi_reader_own(ldx_reader *r, void *owner, void (*release)(void *owner));

/* The reader ldx_input_next() returned last is no longer the input's to destroy: it is
 * the caller's, and it owns the input (ldx_reader_open_fd). */
void ldxi_input_give_up_reader(ldx_input *in);

#endif
