/* An incremental line splitter for input that arrives in pieces (a child's pipes, a
 * growing file). It cuts lines exactly as the reader does (include/logdx/input.h):
 * "\n", "\r\n" and a lone "\r" end a line, a line over LDX_LINE_MAX keeps its first
 * LDX_LINE_MAX bytes and is flagged truncated. The reader cannot be used here because
 * it treats "no bytes now" as the end of the input.
 *
 * A "\r" ends its line at once (a progress bar's redraw should be seen when it comes,
 * not when the next byte does); a "\n" right after it, even in the next piece, is then
 * skipped so that "\r\n" counts once. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_splitter_init(cli_splitter *s) { memset(s, 0, sizeof(*s)); }

void cli_splitter_free(cli_splitter *s)
{
    free(s->buf);
    memset(s, 0, sizeof(*s));
}

void cli_splitter_reset(cli_splitter *s)
{
    s->len = 0;
    s->full = 0;
    s->pending_cr = false;
}

static bool keep(cli_splitter *s, const char *p, size_t n)
{
    s->full += n;
    size_t room = LDX_LINE_MAX - s->len;
    if (n > room) n = room;
    if (!n) return true;
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n) cap *= 2;
        if (cap > LDX_LINE_MAX) cap = LDX_LINE_MAX;
        char *b = realloc(s->buf, cap);
        if (!b) return false;
        s->buf = b;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    return true;
}

static void emit(const char *text, size_t len, size_t full, uint64_t *lineno, cli_line_fn fn,
                 void *ctx)
{
    ldx_line l = {.text = text, .len = len, .lineno = ++*lineno, .truncated = full > len,
                  .full_len = full};
    fn(&l, ctx);
}

ldx_status cli_splitter_feed(cli_splitter *s, const char *data, size_t n, uint64_t *lineno,
                             cli_line_fn fn, void *ctx)
{
    const char *p = data, *end = data + n;
    if (p < end && s->pending_cr) {
        s->pending_cr = false;
        if (*p == '\n') p++;
    }
    while (p < end) {
        const char *eol = p;
        while (eol < end && *eol != '\n' && *eol != '\r') eol++;
        if (eol == end) return keep(s, p, (size_t)(end - p)) ? LDX_OK : LDX_ENOMEM;
        size_t len = (size_t)(eol - p);
        if (s->full) {
            if (!keep(s, p, len)) return LDX_ENOMEM;
            emit(s->buf ? s->buf : "", s->len, s->full, lineno, fn, ctx);
            s->len = 0;
            s->full = 0;
        } else {
            /* the common case: the whole line is in this piece, no copy */
            emit(p, len > LDX_LINE_MAX ? LDX_LINE_MAX : len, len, lineno, fn, ctx);
        }
        p = eol + 1;
        if (*eol == '\r') {
            if (p < end) {
                if (*p == '\n') p++;
            } else {
                s->pending_cr = true;
            }
        }
    }
    return LDX_OK;
}

bool cli_splitter_flush(cli_splitter *s, uint64_t *lineno, cli_line_fn fn, void *ctx)
{
    if (!s->full) return false;
    emit(s->buf ? s->buf : "", s->len, s->full, lineno, fn, ctx);
    s->len = 0;
    s->full = 0;
    return true;
}
