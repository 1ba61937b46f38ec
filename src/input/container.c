/* Inputs that hold one log or many: a plain file, a compressed file, or an archive of
 * logs (tar, compressed or not, and zip). The first bytes decide (magic.c); plain logs
 * are read straight from the descriptor. Each log comes out as an ordinary line
 * reader, so the scanner never knows what container it was in.
 *
 * gzip, xz and zstd are always decoded here (decode.c), with memory limits, a tar inside
 * them handed to libarchive as decoded bytes; libarchive reads tar, zip and bzip2 (and
 * "raw" for a single bzip2 stream). It is given only those, not _all(): some of the
 * others run external programs or guess formats from text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logdx/input.h"
#include "../core/util.h"
#include "input_int.h"
#include "larchive.h"

#define IO_BLOCK (256u * 1024u)

/* A decoder and the compressed bytes it is fed, from the descriptor (a compressed log)
 * or from libarchive (a compressed member): buf[pos, len) is read but not yet decoded. */
typedef struct {
    ldxi_decoder *dec;
    unsigned char *buf;
    size_t len, pos;
    bool eof;
    bool failed;             /* stopped with msg's error */
    char msg[256];
    char truncated[64];      /* what to say when the compressed bytes end early */
} pump;

struct ldx_input {
    char *name;
    int fd;
    ldx_input_kind kind;
    /* The first bytes, when they had to be consumed to look at them (a pipe): served
     * again before the rest of the descriptor. */
    unsigned char head[LDX_DETECT_BYTES];
    size_t headlen, headpos;
    struct archive *ar;      /* an archive, or a compressed stream from a pipe */
    const ldxi_archive_api *api; /* libarchive's functions, when ar is set */
    pump outer;              /* a gzip/xz/zstd stream (decode.c), fed from the descriptor */
    pump text;               /* UTF-16 text inside that stream, fed from outer (utf16.c) */
    unsigned char *pbuf;     /* decoded while looking for a tar header: served first */
    size_t plen, ppos;
    unsigned char *iobuf;    /* libarchive's read buffer (pipe input) */
    ldx_reader *cur;
    bool readahead;          /* decode on a thread of its own (ldx_input_set_readahead) */
    ldxi_ahead *ahead;       /* doing so for cur */
    bool started, done;
    /* a member that is compressed itself, decoded on its way to the reader */
    int mmode;               /* 0: not looked at yet, 1: plain, 2: decoded by member.dec */
    pump member;             /* fed from libarchive; its buffer first holds the member's head */
    char merr[256];
    /* limits (ldx_input_set_limits) and what counts against them */
    uint64_t max_members, max_decoded, members, decoded;
    bool archive;            /* an archive of logs (tar, zip), not one compressed log */
    char *error;             /* set with a pending LDX_EIO */
    bool error_pending;
    char errbuf[256];
    /* how far reading has got, for progress: the descriptor's offset when it is a
     * file, else what raw_read consumed (read from other threads: atomic) */
    bool seekable;
    uint64_t consumed;
};

static void set_error(ldx_input *in, const char *msg)
{
    free(in->error);
    in->error = ldxi_strdup(msg ? msg : "unknown error");
}

/* Up to cap bytes of what is left of src[*pos..len), into buf; how many. */
static size_t take_kept(const unsigned char *src, size_t len, size_t *pos, void *buf, size_t cap)
{
    size_t n = len - *pos < cap ? len - *pos : cap;
    memcpy(buf, src + *pos, n);
    *pos += n;
    return n;
}

/* Bytes of the descriptor, the kept head first. */
static ssize_t raw_read(ldx_input *in, void *buf, size_t cap)
{
    if (in->headpos < in->headlen)
        return (ssize_t)take_kept(in->head, in->headlen, &in->headpos, buf, cap);
    for (;;) {
        ssize_t n = read(in->fd, buf, cap);
        if (n > 0) __atomic_add_fetch(&in->consumed, (uint64_t)n, __ATOMIC_RELAXED);
        if (n >= 0 || errno != EINTR) return n;
    }
}

static ssize_t plain_read(void *ctx, void *buf, size_t cap, const char **err)
{
    ldx_input *in = ctx;
    ssize_t n = raw_read(in, buf, cap);
    if (n < 0) {
        snprintf(in->errbuf, sizeof in->errbuf, "%s", strerror(errno));
        *err = in->errbuf;
    }
    return n;
}

static la_ssize_t archive_cb_read(struct archive *a, void *ctx, const void **out)
{
    ldx_input *in = ctx;
    ssize_t n = raw_read(in, in->iobuf, IO_BLOCK);
    if (n < 0) in->api->set_error(a, errno, "%s", strerror(errno));
    *out = in->iobuf;
    return n;
}

static ssize_t stream_read(void *ctx, void *buf, size_t cap, const char **err);

/* A tar inside a compressed stream: libarchive reads what our decoder decoded. */
static la_ssize_t archive_cb_decoded(struct archive *a, void *ctx, const void **out)
{
    ldx_input *in = ctx;
    const char *err = NULL;
    ssize_t n = stream_read(in, in->iobuf, IO_BLOCK, &err);
    if (n < 0) in->api->set_error(a, EIO, "%s", err ? err : "corrupt data");
    *out = in->iobuf;
    return n;
}

typedef ssize_t (*pump_src)(ldx_input *in, void *buf, size_t cap, const char **err);

/* Up to cap decoded bytes, feeding the decoder from src; 0 at the end of a complete
 * stream, -1 with *err (which stays: a failed pump says it again) otherwise. */
static ssize_t pump_read(ldx_input *in, pump *p, pump_src src, void *buf, size_t cap,
                         const char **err)
{
    for (;;) {
        if (p->failed) {
            *err = p->msg;
            return -1;
        }
        if (p->pos == p->len && !p->eof) {
            const char *e = NULL;
            ssize_t n = src(in, p->buf, IO_BLOCK, &e);
            if (n < 0) {
                snprintf(p->msg, sizeof p->msg, "%s", e ? e : "read error");
                p->failed = true;
                continue;
            }
            p->len = (size_t)n;
            p->pos = 0;
            p->eof = n == 0;
        }
        size_t out = 0;
        const char *msg = NULL;
        if (ldxi_decoder_step(p->dec, p->buf, p->len, &p->pos, buf, cap, &out, p->eof, &msg) !=
            LDX_OK) {
            snprintf(p->msg, sizeof p->msg, "%s", msg ? msg : "corrupt data");
            p->failed = true;
        } else if (!out && p->eof && p->pos == p->len) {
            if (ldxi_decoder_complete(p->dec)) return 0;
            snprintf(p->msg, sizeof p->msg, "%s", p->truncated);
            p->failed = true;
        }
        if (out) return (ssize_t)out;
    }
}

static void pump_free(pump *p)
{
    ldxi_decoder_destroy(p->dec);
    free(p->buf);
    memset(p, 0, sizeof *p);
}

/* The descriptor's bytes, for the outer pump. */
static ssize_t fd_src(ldx_input *in, void *buf, size_t cap, const char **err)
{
    ssize_t n = raw_read(in, buf, cap);
    if (n < 0) *err = strerror(errno);
    return n;
}

/* The member's own bytes, from libarchive. */
static ssize_t member_raw(ldx_input *in, void *buf, size_t cap, const char **err)
{
    la_ssize_t n = in->api->read_data(in->ar, buf, cap);
    if (n < 0) {
        snprintf(in->errbuf, sizeof in->errbuf, "%s",
                 in->api->error_string(in->ar) ? in->api->error_string(in->ar)
                                              : "damaged compressed data");
        *err = in->errbuf;
        return -1;
    }
    return n;
}

/* n more bytes decoded for a reader: within max_decoded, or an error that names it. */
static ssize_t count_decoded(ldx_input *in, ssize_t n, const char **err)
{
    if (n <= 0) return n;
    in->decoded += (uint64_t)n;
    if (in->decoded > in->max_decoded) {
        snprintf(in->merr, sizeof in->merr,
                 "stopped after %llu bytes decoded from this input (the limit; --max-decoded "
                 "raises it)",
                 (unsigned long long)in->max_decoded);
        *err = in->merr;
        return -1;
    }
    return n;
}

/* A member as its reader sees it: decoded when its first bytes say gzip, xz or zstd
 * (rank3.log.gz inside a tar), else as it is. One level only: what a compressed member
 * holds is read as one log. */
static ssize_t member_bytes(ldx_input *in, void *buf, size_t cap, const char **err)
{
    pump *p = &in->member;
    if (in->mmode == 0) {
        if (!p->buf && !(p->buf = malloc(IO_BLOCK))) {
            *err = "out of memory";
            return -1;
        }
        while (p->len < LDX_DETECT_BYTES) {
            ssize_t n = member_raw(in, p->buf + p->len, IO_BLOCK - p->len, err);
            if (n < 0) return -1;
            if (n == 0) {
                p->eof = true;
                break;
            }
            p->len += (size_t)n;
        }
        ldx_input_kind k = ldx_input_detect(p->buf, p->len);
        in->mmode = 1;
        if (ldxi_kind_decoded(k) && ldxi_decoder_create(&p->dec, k) == LDX_OK)
            in->mmode = 2;
    }
    if (in->mmode == 2) return pump_read(in, p, member_raw, buf, cap, err);
    if (p->pos < p->len) return (ssize_t)take_kept(p->buf, p->len, &p->pos, buf, cap);
    return p->eof ? 0 : member_raw(in, buf, cap, err);
}

static ssize_t member_read(void *ctx, void *buf, size_t cap, const char **err)
{
    ldx_input *in = ctx;
    return count_decoded(in, member_bytes(in, buf, cap, err), err);
}

/* The member's nested state, for the next one (its buffer stays for it). */
static void member_reset(ldx_input *in)
{
    pump *p = &in->member;
    ldxi_decoder_destroy(p->dec);
    unsigned char *buf = p->buf;
    memset(p, 0, sizeof *p);
    p->buf = buf;
    snprintf(p->truncated, sizeof p->truncated, "truncated compressed member (unexpected end of data)");
    in->mmode = 0;
}

/* The decoded bytes of a compressed stream: what probing decoded first, then more. */
static ssize_t stream_read(void *ctx, void *buf, size_t cap, const char **err)
{
    ldx_input *in = ctx;
    if (in->ppos < in->plen) return (ssize_t)take_kept(in->pbuf, in->plen, &in->ppos, buf, cap);
    return pump_read(in, &in->outer, fd_src, buf, cap, err);
}

/* The decompressed bytes, for the pump that turns UTF-16 text into UTF-8. */
static ssize_t decoded_src(ldx_input *in, void *buf, size_t cap, const char **err)
{
    return stream_read(in, buf, cap, err);
}

/* One compressed log as its reader sees it: counted against max_decoded. */
static ssize_t stream_log_read(void *ctx, void *buf, size_t cap, const char **err)
{
    ldx_input *in = ctx;
    if (in->text.dec) return count_decoded(in, pump_read(in, &in->text, decoded_src, buf, cap, err), err);
    return count_decoded(in, stream_read(ctx, buf, cap, err), err);
}

/* Decodes the start of a compressed stream: a tar inside goes to libarchive (which
 * then reads the decoded bytes, so that the decoder's memory limits hold for archives
 * too), anything else is one log read by stream_read. */
static ldx_status probe_stream(ldx_input *in, bool *is_tar)
{
    *is_tar = false;
    ldx_status st = ldxi_decoder_create(&in->outer.dec, in->kind);
    if (st != LDX_OK) return st;
    snprintf(in->outer.truncated, sizeof in->outer.truncated,
             "truncated %s input (unexpected end of file)", ldx_input_kind_name(in->kind));
    in->outer.buf = malloc(IO_BLOCK);
    in->pbuf = malloc(IO_BLOCK);
    if (!in->outer.buf || !in->pbuf) return LDX_ENOMEM;
    size_t len = 0;
    const char *err;
    while (len < LDX_DETECT_BYTES) {
        ssize_t n = stream_read(in, in->pbuf + len, IO_BLOCK - len, &err);
        if (n <= 0) break;
        len += (size_t)n;
    }
    in->plen = len;
    ldx_input_kind inner = ldx_input_detect(in->pbuf, len);
    *is_tar = inner == LDX_KIND_TAR;
    /* a Windows log (PowerShell's `>` writes UTF-16) compressed afterwards: the same
     * second step an archive member gets */
    if (inner == LDX_KIND_UTF16LE || inner == LDX_KIND_UTF16BE) {
        if ((st = ldxi_decoder_create(&in->text.dec, inner)) != LDX_OK) return st;
        if (!(in->text.buf = malloc(IO_BLOCK))) return LDX_ENOMEM;
        snprintf(in->text.truncated, sizeof in->text.truncated, "%s", in->outer.truncated);
    }
    return LDX_OK;
}

/* Reads the first bytes: in place where the descriptor can seek back (a file), by
 * consuming and keeping them otherwise (a pipe). */
static ldx_status read_head(ldx_input *in, bool *seekable)
{
    struct stat sb;
    off_t at = lseek(in->fd, 0, SEEK_CUR);
    *seekable = at == 0 && fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode);
    if (*seekable) {
        ssize_t n;
        do n = pread(in->fd, in->head, sizeof in->head, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0) return LDX_EIO;
        in->headlen = (size_t)n;
        in->kind = ldx_input_detect(in->head, in->headlen);
        in->headlen = 0; /* nothing was consumed */
        return LDX_OK;
    }
    while (in->headlen < sizeof in->head) {
        ssize_t n = read(in->fd, in->head + in->headlen, sizeof in->head - in->headlen);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return LDX_EIO;
        if (n == 0) break;
        in->headlen += (size_t)n;
    }
    in->kind = ldx_input_detect(in->head, in->headlen);
    return LDX_OK;
}

static ldx_status open_archive(ldx_input *in, bool seekable)
{
    const char *why = NULL;
    in->api = ldxi_archive(&why);
    if (!in->api) {
        set_error(in, why);
        in->error_pending = true;
        in->done = true;
        return LDX_OK;
    }
    in->ar = in->api->read_new();
    if (!in->ar) return LDX_ENOMEM;
    in->api->read_support_format_tar(in->ar);
    in->api->read_support_format_gnutar(in->ar);
    int rc;
    in->archive = in->outer.dec || in->kind == LDX_KIND_ZIP || in->kind == LDX_KIND_TAR;
    if (in->outer.dec) {
        /* gzip, xz, zstd: decoded here (decode.c), libarchive sees a tar */
        in->iobuf = malloc(IO_BLOCK);
        if (!in->iobuf) return LDX_ENOMEM;
        rc = in->api->read_open(in->ar, in, NULL, archive_cb_decoded, NULL);
        goto opened;
    }
    /* bzip2 (whose decoder needs at most 4 MiB), tar and zip */
    in->api->read_support_filter_bzip2(in->ar);
    in->api->read_support_format_zip(in->ar);
    in->api->read_support_format_raw(in->ar);
    if (seekable) {
        /* A seekable file lets the zip reader use the central directory. */
        rc = in->api->read_open_fd(in->ar, in->fd, IO_BLOCK);
    } else {
        in->iobuf = malloc(IO_BLOCK);
        if (!in->iobuf) return LDX_ENOMEM;
        rc = in->api->read_open(in->ar, in, NULL, archive_cb_read, NULL);
    }
opened:
    if (rc != ARCHIVE_OK) {
        set_error(in, in->api->error_string(in->ar) ? in->api->error_string(in->ar)
                                                   : "cannot read the archive");
        in->error_pending = true;
        in->done = true;
    }
    return LDX_OK;
}

ldx_status ldx_input_open_fd(ldx_input **out, int fd, const char *name)
{
    *out = NULL;
    ldx_input *in = calloc(1, sizeof(*in));
    if (!in) {
        close(fd);
        return LDX_ENOMEM;
    }
    in->fd = fd;
    in->max_members = LDX_INPUT_MAX_MEMBERS;
    in->max_decoded = LDX_INPUT_MAX_DECODED;
    in->name = ldxi_strdup(name ? name : "-");
    if (!in->name) {
        ldx_input_destroy(in);
        return LDX_ENOMEM;
    }
    bool seekable;
    ldx_status st = read_head(in, &seekable);
    in->seekable = seekable;
    bool single = ldxi_kind_decoded(in->kind);
    bool to_archive = in->kind != LDX_KIND_PLAIN;
    if (st == LDX_OK && single) st = probe_stream(in, &to_archive);
    if (st == LDX_OK && to_archive) st = open_archive(in, seekable);
    if (st != LDX_OK) {
        int e = errno;
        ldx_input_destroy(in);
        errno = e;
        return st;
    }
    *out = in;
    return LDX_OK;
}

ldx_status ldx_input_open(ldx_input **out, const char *path)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? LDX_ENOTFOUND : LDX_EIO;
    return ldx_input_open_fd(out, fd, path);
}

/* A reader of fn's bytes, decoded ahead on another thread when asked and worth it:
 * compressed data from a file (a pipe could block the thread past the reader's end). */
static ldx_status open_reader(ldx_input *in, ldxi_read_fn fn, const char *name)
{
    struct stat stt;
    if (in->readahead && fstat(in->fd, &stt) == 0 && S_ISREG(stt.st_mode) &&
        ldxi_ahead_create(&in->ahead, fn, in) == LDX_OK) {
        ldx_status st = ldxi_reader_open_fn(&in->cur, ldxi_ahead_read, in->ahead, name);
        if (st != LDX_OK) {
            ldxi_ahead_destroy(in->ahead);
            in->ahead = NULL;
        }
        return st;
    }
    return ldxi_reader_open_fn(&in->cur, fn, in, name);
}

/* Ends the current reader, and the thread reading ahead for it. */
static void close_reader(ldx_input *in)
{
    ldx_reader_destroy(in->cur);
    in->cur = NULL;
    ldxi_ahead_destroy(in->ahead);
    in->ahead = NULL;
}

void ldx_input_set_readahead(ldx_input *in, bool on) { in->readahead = on; }

void ldx_input_set_limits(ldx_input *in, uint64_t max_members, uint64_t max_decoded)
{
    in->max_members = max_members ? max_members : LDX_INPUT_MAX_MEMBERS;
    in->max_decoded = max_decoded ? max_decoded : LDX_INPUT_MAX_DECODED;
}

uint64_t ldx_input_position(const ldx_input *in)
{
    if (in->seekable) {
        /* libarchive may read the descriptor itself, past raw_read */
        off_t at = lseek(in->fd, 0, SEEK_CUR);
        return at > 0 ? (uint64_t)at : 0;
    }
    return __atomic_load_n(&in->consumed, __ATOMIC_RELAXED);
}

void ldx_input_destroy(ldx_input *in)
{
    if (!in) return;
    close_reader(in);
    if (in->ar) in->api->read_free(in->ar);
    pump_free(&in->outer);
    pump_free(&in->text);
    pump_free(&in->member);
    free(in->pbuf);
    if (in->fd >= 0) close(in->fd);
    free(in->iobuf);
    free(in->error);
    free(in->name);
    free(in);
}

ldx_input_kind ldx_input_kind_of(const ldx_input *in) { return in->kind; }
bool ldx_input_is_archive(const ldx_input *in) { return in->archive; }
const char *ldx_input_error(const ldx_input *in) { return in->error; }

static ldx_status next_member(ldx_input *in, ldx_reader **r)
{
    bool member_failed = in->cur && ldx_reader_error(in->cur);
    close_reader(in);
    for (int retries = 0;;) {
        struct archive_entry *e;
        int rc = in->api->read_next_header(in->ar, &e);
        if (rc == ARCHIVE_EOF) {
            in->done = true;
            return LDX_EOF;
        }
        if (rc == ARCHIVE_RETRY && ++retries < 3) continue;
        if (rc < ARCHIVE_WARN) {
            /* Data cut short shows first in the member being read; once said, the
             * broken header after it is the same problem. */
            if (rc == ARCHIVE_FATAL || rc == ARCHIVE_RETRY) in->done = true;
            if (member_failed && in->done) return LDX_EOF;
            set_error(in, in->api->error_string(in->ar) ? in->api->error_string(in->ar)
                                                       : "damaged archive");
            return LDX_EIO;
        }
        if (!in->started) {
            in->started = true;
            /* The magic said compressed or archived, libarchive found neither: a header
             * cut short or damaged. Reading it raw would scan compressed bytes. */
            bool compressed = in->kind == LDX_KIND_BZIP2;
            if (compressed ? in->api->filter_code(in->ar, 0) == ARCHIVE_FILTER_NONE
                           : in->api->format(in->ar) == ARCHIVE_FORMAT_RAW) {
                snprintf(in->errbuf, sizeof in->errbuf, "not a readable %s %s (damaged or cut short)",
                         ldx_input_kind_name(in->kind), compressed ? "stream" : "archive");
                set_error(in, in->errbuf);
                in->done = true;
                return LDX_EIO;
            }
        }
        /* libarchive's zip reader decodes lzma and xz members with no memory limit
         * (the dictionary size is the member's to say) */
        const char *fmt = in->api->format_name(in->ar);
        if (fmt && in->api->format(in->ar) == ARCHIVE_FORMAT_ZIP &&
            (strstr(fmt, "(lzma)") || strstr(fmt, "(xz)"))) {
            const char *m = in->api->entry_pathname(e);
            snprintf(in->errbuf, sizeof in->errbuf,
                     "%.120s: zip member compressed with %s, which logdx does not decode "
                     "(no memory limit can be set); extract it and scan the file",
                     m ? m : "?", strstr(fmt, "(xz)") ? "xz" : "lzma");
            set_error(in, in->errbuf);
            return LDX_EIO;
        }
        char *name;
        if (in->api->format(in->ar) == ARCHIVE_FORMAT_RAW) {
            name = ldxi_strdup(in->name); /* one compressed log: its own name */
        } else {
            in->archive = true; /* a tar inside bzip2 is known only here */
            if (in->api->entry_filetype(e) != AE_IFREG) continue;
            const char *m = in->api->entry_pathname_utf8(e);
            if (!m) m = in->api->entry_pathname(e);
            name = ldx_input_member_name(in->name, m);
        }
        if (!name) return LDX_ENOMEM;
        if (++in->members > in->max_members) {
            free(name);
            snprintf(in->errbuf, sizeof in->errbuf,
                     "stopped after %llu members (the limit; --max-members raises it)",
                     (unsigned long long)in->max_members);
            set_error(in, in->errbuf);
            in->done = true;
            return LDX_EIO;
        }
        member_reset(in);
        ldx_status st = open_reader(in, member_read, name);
        free(name);
        if (st != LDX_OK) return st;
        *r = in->cur;
        return LDX_OK;
    }
}

ldx_status ldx_input_next(ldx_input *in, ldx_reader **r)
{
    *r = NULL;
    if (in->error_pending) {
        in->error_pending = false;
        return LDX_EIO;
    }
    if (in->done) {
        close_reader(in);
        return LDX_EOF;
    }
    if (!in->ar) {
        close_reader(in);
        if (in->started) {
            in->done = true;
            return LDX_EOF;
        }
        in->started = true;
        if (in->outer.dec) LDX_TRY(open_reader(in, stream_log_read, in->name));
        else LDX_TRY(ldxi_reader_open_fn(&in->cur, plain_read, in, in->name));
        *r = in->cur;
        return LDX_OK;
    }
    return next_member(in, r);
}

void ldxi_input_give_up_reader(ldx_input *in) { in->cur = NULL; }
