/* Line structure (scan layer): the one place the structure readers are fed and a
 * line's own fields are read. The launcher's summary (launcher.c), the version banners
 * (versions.c) and the process failures (failure.c) see every line they may care about
 * (ldxi_scan_structure); a hit's rank, time, host and step (lineinfo.c, rank.c) are read
 * once per line and only when the recorder needs them (ldxi_linectx_*). */
#include <string.h>

#include "scan_int.h"

void ldxi_linectx_rank(ldxi_linectx *lc, const char *text, size_t len)
{
    if (!lc->ranked) {
        lc->rank = lc->parsed ? lc->li.rank : ldx_line_rank(text, len);
        lc->ranked = true;
    }
}

long ldxi_linectx_step(ldxi_linectx *lc, const char *text, size_t len)
{
    if (!lc->stepped) {
        lc->step = lc->parsed ? lc->li.step : ldxi_line_step(text, len);
        lc->stepped = true;
    }
    return lc->step;
}

void ldxi_linectx_parse(ldxi_linectx *lc, const char *text, size_t len)
{
    if (!lc->parsed) {
        if (lc->ranked) ldxi_line_parse_ranked(text, len, lc->rank, &lc->li);
        else ldxi_line_parse(text, len, &lc->li);
        lc->parsed = lc->ranked = true;
        lc->rank = lc->li.rank;
    }
}

/* The structure readers see every line they may care about. */
void ldxi_scan_structure(ldx_scanner *s, const char *text, size_t len, uint64_t lineno,
                         uint8_t hints)
{
    /* a line the reader follows (inside a summary or an open block) without the hint
     * cannot hold a header: those searches are skipped */
    if (s->launcher.state || (hints & LDXI_HINT_LAUNCHER))
        ldxi_launcher_feed(&s->launcher, text, len, lineno, (hints & LDXI_HINT_LAUNCHER) != 0);
    if (hints & LDXI_HINT_VERSIONS) ldxi_versions_feed(s, text, len);
    /* the plain engine's hint (ldxi_failure_wants) reads a line's first 4096 bytes, the
     * reader 8192 */
    if ((hints & LDXI_HINT_FAILURE) || ldxi_failure_following(&s->failure, lineno))
        ldxi_failure_feed(&s->failure, text, len, lineno, (hints & LDXI_HINT_FAILURE) != 0 || len > 4096);
}

uint8_t ldxi_scan_hints(const char *text, size_t len)
{
    /* cheap tests first: the summary's lines all have a ':', banners a '.' */
    uint8_t hints = LDXI_HINT_VERSIONS;
    if (memchr(text, ':', len)) hints |= LDXI_HINT_LAUNCHER;
    if (ldxi_failure_wants(text, len)) hints |= LDXI_HINT_FAILURE;
    return hints;
}
