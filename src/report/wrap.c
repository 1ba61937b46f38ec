/* Text laid out to a width: paragraphs wrapped at spaces, and evidence lines folded so
 * that a long log line is shown whole (its numbers are what the reader came for). */
#include <string.h>

#include "report_int.h"
#include "../plumbing.h"

/* Display columns of one UTF-8 code point starting with byte c: continuation bytes
 * take none. Wide characters are rare in logs and count as one. */
static int cols(unsigned char c) { return (c & 0xc0) != 0x80; }

void ldxi_report_wrap(FILE *fp, const char *text, int indent, int width, const char *first)
{
    int avail = width - indent;
    if (avail < 20) avail = 20;
    const char *p = text;
    bool start = true;
    while (*p) {
        while (*p == ' ' || *p == '\n') p++;
        if (!*p) break;
        const char *e = p, *sp = NULL;
        int n = 0;
        while (*e && *e != '\n' && n < avail) {
            if (*e == ' ') sp = e;
            n += cols((unsigned char)*e);
            e++;
        }
        while (((unsigned char)*e & 0xc0) == 0x80) e++; /* never inside a character */
        if (*e && *e != '\n' && *e != ' ' && sp) e = sp;
        if (start && first) fprintf(fp, "%*s%s", indent - (int)strlen(first), "", first);
        else fprintf(fp, "%*s", indent, "");
        fprintf(fp, "%.*s\n", (int)(e - p), p);
        p = e;
        start = false;
    }
}

size_t ldxi_report_fold(const char *text, int avail, size_t *ends, size_t max)
{
    if (avail < 20) avail = 20;
    size_t n = 0, at = 0, len = strlen(text);
    while (at < len && n < max) {
        size_t e = at, sp = 0;
        int c = 0;
        while (e < len && c < avail) {
            c += cols((unsigned char)text[e]);
            e++;
            if (text[e - 1] == ' ' && e - at > 1) sp = e;
        }
        while (e < len && ((unsigned char)text[e] & 0xc0) == 0x80) e++;
        /* a break at a space in the line's last quarter reads better than one inside a
         * word; further back it would waste the width that a log line needs */
        if (e < len && sp && (int)(e - sp) * 4 < avail) e = sp;
        ends[n++] = e;
        at = e;
    }
    return n;
}
