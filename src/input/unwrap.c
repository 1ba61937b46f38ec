/* Hard-wrapped pastes: a log copied out of a terminal multiplexer's scroll-back (tmux,
 * screen), a serial console or a mailer arrives with every long line cut into rows of
 * the pane's width, and the phrase a rule needs ("CUDA out of memory. Tried to
 * allocate") may lie across two rows. The reader rejoins such rows (reader.c); this
 * file says whether a block of text looks cut that way, and at which width.
 *
 * What gives a cut paste away: no line is wider than one width W, and many lines are
 * exactly W wide (every line that was longer). A log that merely has a widest line has
 * one or two there, or many of one template (eight ranks printing the same message,
 * progress bars padded to the terminal), so the rows at W must also begin, or end, in
 * at least three different ways (numbers, ids and padding aside), or most of them must
 * end inside a word that the row below goes on with (a row that does not start as they
 * do: not the record's next line). Rows a terminal does
 * not produce at W are never joined: with a tab (its width is not its length), an ESC,
 * a progress bar ("%|"), a table's border at both ends. Rows laid out to a width
 * (padding, aligned columns, rules drawn with "=") are joined but not counted. A block
 * with a lone "\r" (a redrawn bar) is not a paste at all. Width is counted in code
 * points: a row of wide characters is read as narrower than it is, so it is never
 * joined, which only leaves it as it was. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "input_int.h"

#define WRAP_MIN 50u   /* narrower panes than this are not worth the risk */
#define WRAP_MAX 400u
#define EDGE 12u       /* how much of a row's start or end tells templates apart */
#define DISTINCT 3u

size_t ldxi_text_width(const char *p, size_t n)
{
    size_t w = n;
    for (size_t i = 0; i < n; i++) w -= ((unsigned char)p[i] & 0xC0) == 0x80;
    return w;
}

/* A table's row: it starts and ends with a border ("| NVIDIA-SMI 550.54 ... |", "+---+"). */
static bool bordered(const char *p, size_t n)
{
    return n >= 2 && (p[0] == '|' || p[0] == '+') && (p[n - 1] == '|' || p[n - 1] == '+');
}

bool ldxi_wrap_row(const char *p, size_t n)
{
    if (!n || bordered(p, n) || memchr(p, '\t', n) || memchr(p, 0x1b, n)) return false;
    for (const char *q = p; (q = memchr(q, '%', (size_t)(p + n - q))) != NULL; q++)
        if (q + 1 < p + n && q[1] == '|') return false;
    return true;
}

/* Calls fn for each whole line of p[0..n); false when a line ends in a lone "\r". */
typedef bool (*line_fn)(const char *line, size_t len, void *ctx);
static bool each_line(const char *p, size_t n, line_fn fn, void *ctx)
{
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return true; /* a line the block cut: not looked at */
        const char *cr = memchr(p, '\r', (size_t)(nl - p));
        if (cr && cr + 1 != nl) return false;
        if (!fn(p, (size_t)((cr ? cr : nl) - p), ctx)) return false;
        p = nl + 1;
    }
    return true;
}

typedef struct {
    size_t widest, lines;
    size_t width, at; /* the second pass: rows exactly `width` wide that a terminal cut */
    char heads[DISTINCT][EDGE], tails[DISTINCT][EDGE];
    size_t nheads, ntails;
    size_t cuts;         /* rows at the width cut inside a word, the word going on below */
    bool open;           /* the row before was at the width and ended inside a word */
    char open_head[EDGE];
} probe;

static bool measure(const char *p, size_t n, void *ctx)
{
    probe *pr = ctx;
    pr->lines++;
    if (n >= WRAP_MIN) {
        size_t w = ldxi_text_width(p, n);
        if (w > pr->widest) pr->widest = w;
    }
    return pr->widest <= WRAP_MAX;
}

/* Whether a byte says nothing of a row's template: a digit, a hex digit, a blank
 * (numbers, ids, addresses and their padding vary between lines of one template). */
static bool blind(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ' ';
}

/* The first EDGE telling bytes of p[0..n) (from its end when back). */
static void edge_key(char key[EDGE], const char *p, size_t n, bool back)
{
    memset(key, 0, EDGE);
    size_t k = 0;
    for (size_t i = 0; i < n && k < EDGE; i++) {
        unsigned char c = (unsigned char)p[back ? n - 1 - i : i];
        if (!blind(c)) key[k++] = (char)c;
    }
}

/* Keeps a row's edge among the first DISTINCT different ones seen. */
static void remember(char seen[][EDGE], size_t *nseen, const char *p, size_t n, bool back)
{
    if (*nseen >= DISTINCT) return;
    char key[EDGE];
    edge_key(key, p, n, back);
    for (size_t j = 0; j < *nseen; j++)
        if (!memcmp(seen[j], key, EDGE)) return;
    memcpy(seen[(*nseen)++], key, EDGE);
}

/* Whether a row is laid out to a width rather than cut at one: padded with blanks at its
 * end or inside (aligned columns, "train_loss               =     10.1527"), or drawn
 * ("=========", "---------"). Such a row may still be a cut one, but is not counted: a
 * table's rows are all as wide as the table. */
static bool laid_out(const char *p, size_t n)
{
    if (p[n - 1] == ' ') return true;
    size_t i = 0, run = 0;
    while (i < n && p[i] == ' ') i++;
    for (char last = 0; i < n; last = p[i++]) {
        run = p[i] == last ? run + 1 : 1;
        if (p[i] == ' ' ? run >= 4 : run >= 8 && !isalnum((unsigned char)p[i])) return true;
    }
    return false;
}

static bool word_byte(unsigned char c) { return isalnum(c) || c == '_'; }

/* A row's start as a shape: digits as 0, letters as a, the rest as it is ("0000-00-00 00:"
 * for a time, "[aaaa0]: " for a rank), so that records of one kind compare equal whatever
 * their level letter or numbers. */
static void shape_key(char key[EDGE], const char *p, size_t n)
{
    memset(key, 0, EDGE);
    for (size_t i = 0; i < n && i < EDGE; i++) {
        unsigned char c = (unsigned char)p[i];
        key[i] = isdigit(c) ? '0' : isalpha(c) ? 'a' : (char)c;
    }
}

/* A row that goes on a word its row above cut, and does not start in that row's shape: where
 * every cut row is of one template (eight replicas printing one long error, wrapped
 * alike), its edges tell nothing, but "... failed: RE" over "SOURCE_EXHAUSTED: ..." does.
 * A record's own next line starts as the record did (a time, a rank), or with a blank. */
static void note_cut(probe *pr, const char *p, size_t n)
{
    if (!pr->open) return;
    pr->open = false;
    if (!n || !word_byte((unsigned char)p[0])) return;
    char key[EDGE];
    shape_key(key, p, n);
    pr->cuts += memcmp(key, pr->open_head, EDGE) != 0;
}

static bool count_rows(const char *p, size_t n, void *ctx)
{
    probe *pr = ctx;
    note_cut(pr, p, n);
    if (n < pr->width || ldxi_text_width(p, n) != pr->width || !ldxi_wrap_row(p, n) ||
        laid_out(p, n))
        return true;
    pr->at++;
    remember(pr->heads, &pr->nheads, p, n, false);
    remember(pr->tails, &pr->ntails, p, n, true);
    if (word_byte((unsigned char)p[n - 1])) {
        pr->open = true;
        shape_key(pr->open_head, p, n);
    }
    return true;
}

size_t ldxi_wrap_width(const char *p, size_t n)
{
    probe pr = {0};
    if (!each_line(p, n, measure, &pr) || pr.widest < WRAP_MIN || pr.widest > WRAP_MAX) return 0;
    pr.width = pr.widest;
    each_line(p, n, count_rows, &pr);
    size_t need = pr.lines / 200 > 3 ? pr.lines / 200 : 3;
    bool edges = pr.nheads >= DISTINCT || pr.ntails >= DISTINCT;
    bool words = pr.cuts >= need && 2 * pr.cuts >= pr.at;
    return pr.at >= need && (edges || words) ? pr.width : 0;
}
