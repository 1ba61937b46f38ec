/* Single compressed streams (gzip, xz, zstd) decoded with their own libraries, zlib,
 * liblzma and libzstd, rather than through libarchive: libarchive's filters drop the
 * block they were filling when the input ends early, and a log cut short (a copy of a
 * job still writing, a node that died) has its cause in exactly that last block. These
 * decoders hand over every byte they could decode, then say the input was cut.
 * Concatenated streams (gzip members, xz streams, zstd frames) read as one; bytes after
 * a complete stream that start no new one are ignored, as gzip(1) does.
 *
 * A stream states how much memory its decoder needs (xz's dictionary, zstd's window),
 * and a few hundred bytes can ask for gigabytes: each decoder has a limit that covers
 * every preset of its tool (xz -9e needs 65 MiB, zstd without --long 128 MiB), and a
 * stream asking for more is refused with a message rather than decoded. UTF-16 text goes
 * through the same step, converted to UTF-8 (utf16.c). */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "input_int.h"

#define XZ_MEMLIMIT (128u << 20)
#define ZSTD_WINDOW_LOG_MAX 27 /* 128 MiB, zstd(1)'s own default limit */

struct ldxi_decoder {
    ldx_input_kind kind;
    z_stream z;
    lzma_stream x;
    ZSTD_DStream *zs;
    ldxi_utf16 u;
    bool ended;      /* the last stream is complete: the input may end here */
    bool stop;       /* trailing bytes that are not a stream: ignored */
    char msg[128];   /* an error that needs numbers */
};

static bool utf16(ldx_input_kind k) { return k == LDX_KIND_UTF16LE || k == LDX_KIND_UTF16BE; }

ldx_status ldxi_decoder_create(ldxi_decoder **out, ldx_input_kind kind)
{
    *out = NULL;
    ldxi_decoder *d = calloc(1, sizeof(*d));
    if (!d) return LDX_ENOMEM;
    d->kind = kind;
    bool ok = false;
    if (kind == LDX_KIND_GZIP) {
        ok = inflateInit2(&d->z, 15 + 16) == Z_OK;
    } else if (kind == LDX_KIND_XZ) {
        lzma_stream init = LZMA_STREAM_INIT;
        d->x = init;
        ok = lzma_stream_decoder(&d->x, XZ_MEMLIMIT, LZMA_CONCATENATED) == LZMA_OK;
    } else if (utf16(kind)) {
        d->u.big = kind == LDX_KIND_UTF16BE;
        ok = true;
    } else if (kind == LDX_KIND_ZSTD) {
        d->zs = ZSTD_createDStream();
        ok = d->zs && !ZSTD_isError(ZSTD_initDStream(d->zs)) &&
             !ZSTD_isError(ZSTD_DCtx_setParameter(d->zs, ZSTD_d_windowLogMax,
                                                  ZSTD_WINDOW_LOG_MAX));
    }
    if (!ok) {
        if (kind == LDX_KIND_ZSTD) ZSTD_freeDStream(d->zs);
        free(d);
        return ldxi_kind_decoded(kind) ? LDX_ENOMEM : LDX_EINVAL;
    }
    *out = d;
    return LDX_OK;
}

void ldxi_decoder_destroy(ldxi_decoder *d)
{
    if (!d) return;
    if (d->kind == LDX_KIND_GZIP) inflateEnd(&d->z);
    else if (d->kind == LDX_KIND_XZ) lzma_end(&d->x);
    else if (d->kind == LDX_KIND_ZSTD) ZSTD_freeDStream(d->zs);
    free(d);
}

/* UTF-16 text has no end marker: it may end anywhere */
bool ldxi_decoder_complete(const ldxi_decoder *d) { return d->ended || d->stop || utf16(d->kind); }

bool ldxi_kind_decoded(ldx_input_kind k)
{
    return k == LDX_KIND_GZIP || k == LDX_KIND_XZ || k == LDX_KIND_ZSTD || utf16(k);
}

static const char *lzma_msg(lzma_ret r)
{
    switch (r) {
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_FORMAT_ERROR: return "not xz data";
    case LZMA_OPTIONS_ERROR: return "unsupported xz options";
    case LZMA_DATA_ERROR: return "xz data is corrupt";
    case LZMA_BUF_ERROR: return "truncated xz input (unexpected end of file)";
    default: return "xz decoding failed";
    }
}

ldx_status ldxi_decoder_step(ldxi_decoder *d, const unsigned char *in, size_t ilen,
                             size_t *ipos, unsigned char *out, size_t cap, size_t *opos,
                             bool last, const char **err)
{
    if (d->stop) {
        *ipos = ilen;
        return LDX_OK;
    }
    if (utf16(d->kind)) {
        ldxi_utf16_step(&d->u, in, ilen, ipos, out, cap, opos, last);
        return LDX_OK;
    }
    if (d->kind == LDX_KIND_GZIP) {
        if (d->ended && *ipos < ilen) {
            if (in[*ipos] != 0x1f) {
                d->stop = true;
                *ipos = ilen;
                return LDX_OK;
            }
            inflateReset(&d->z);
            d->ended = false;
        }
        d->z.next_in = (Bytef *)(in + *ipos);
        d->z.avail_in = (uInt)(ilen - *ipos);
        d->z.next_out = out + *opos;
        d->z.avail_out = (uInt)(cap - *opos);
        int rc = inflate(&d->z, Z_NO_FLUSH);
        *ipos = ilen - d->z.avail_in;
        *opos = cap - d->z.avail_out;
        if (rc == Z_STREAM_END) d->ended = true;
        else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            *err = d->z.msg ? d->z.msg : "gzip data is corrupt";
            return LDX_EIO;
        }
        return LDX_OK;
    }
    if (d->kind == LDX_KIND_XZ) {
        d->x.next_in = in + *ipos;
        d->x.avail_in = ilen - *ipos;
        d->x.next_out = out + *opos;
        d->x.avail_out = cap - *opos;
        lzma_ret rc = lzma_code(&d->x, last ? LZMA_FINISH : LZMA_RUN);
        *ipos = ilen - d->x.avail_in;
        *opos = cap - d->x.avail_out;
        if (rc == LZMA_STREAM_END) d->ended = true;
        else if (rc == LZMA_BUF_ERROR && !last) return LDX_OK;
        else if (rc == LZMA_MEMLIMIT_ERROR) {
            snprintf(d->msg, sizeof d->msg,
                     "xz stream needs %llu MiB to decode (its dictionary), over the %u MiB "
                     "logdx allows",
                     (unsigned long long)(lzma_memusage(&d->x) >> 20), XZ_MEMLIMIT >> 20);
            *err = d->msg;
            return LDX_EIO;
        } else if (rc != LZMA_OK) {
            *err = lzma_msg(rc);
            return LDX_EIO;
        }
        return LDX_OK;
    }
    ZSTD_inBuffer ib = {in, ilen, *ipos};
    ZSTD_outBuffer ob = {out, cap, *opos};
    size_t rc = ZSTD_decompressStream(d->zs, &ob, &ib);
    bool moved = ib.pos != *ipos || ob.pos != *opos;
    *ipos = ib.pos;
    *opos = ob.pos;
    if (ZSTD_isError(rc)) {
        if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
            snprintf(d->msg, sizeof d->msg,
                     "zstd frame needs a window over the %u MiB logdx allows (written with "
                     "--long?)", (1u << ZSTD_WINDOW_LOG_MAX) >> 20);
            *err = d->msg;
        } else {
            *err = ZSTD_getErrorName(rc);
        }
        return LDX_EIO;
    }
    if (moved) d->ended = rc == 0; /* a call without input says nothing new */
    return LDX_OK;
}
