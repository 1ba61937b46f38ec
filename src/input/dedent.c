/* Indented pastes: a log copied into a markdown code block by indenting it, a notebook
 * exported with nbconvert (every output line four spaces in), a console's output pasted
 * under a bullet, arrives with the same blanks in front of every line. Rules anchor on
 * where a framework's line starts (an exception's "Type: message", "KeyboardInterrupt", a
 * launcher's banner), so the reader takes those blanks off (reader.c); this file says
 * whether a block of text has them, and how many.
 *
 * What gives such a paste away: every line that holds anything starts with two blanks or
 * more, at least three lines. Blank lines say nothing (editors strip their spaces). The
 * indentation is the fewest leading blanks of any line: a traceback pasted as it is has
 * its header at the margin, so it never qualifies, and one pasted indented keeps its
 * frames' relative indentation once the common part is gone. Tabs are left alone (a
 * tab-indented block is rare, and a tab's width is not its length). Quote markers ("> ")
 * are the scanner's to read (text.c ldxi_unquote), line by line. */
#include <stdbool.h>
#include <string.h>

#include "input_int.h"

#define INDENT_MAX 16u
#define LINES_MIN 3u

/* p[0..n) holds nothing but blanks (a line's "\r" is gone before it is asked) */
static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t') return false;
    return true;
}

size_t ldxi_paste_indent(const char *p, size_t n)
{
    size_t fewest = INDENT_MAX, counted = 0;
    const char *end = p + n;
    while (p < end) {
        /* a line the block cut still shows how it starts */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        size_t len = (size_t)(nl - p);
        if (len && p[len - 1] == '\r') len--;
        if (memchr(p, '\r', len)) return 0; /* a redrawn bar: its rows have no indent */
        if (!blank(p, len)) {
            size_t k = 0;
            while (k < len && p[k] == ' ') k++;
            if (k < 2) return 0;
            if (k < fewest) fewest = k;
            counted++;
        }
        p = nl + 1;
    }
    return counted >= LINES_MIN ? fewest : 0;
}

size_t ldxi_indent_strip(size_t indent, const char *p, size_t n)
{
    size_t k = 0;
    while (k < indent && k < n && p[k] == ' ') k++;
    return k == indent ? k : 0;
}
