/* Distributed rank of a line. Launchers and libraries each prefix lines their own way;
 * the bracketed forms are unambiguous and tried first, the free-text "rank N" last. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "logdx/scan.h"

/* Scan window: prefixes sit at the start, and free text naming a rank is early too. */
#define RANK_WINDOW 512

static int digits_at(const char *s, size_t n, size_t *i)
{
    long v = 0;
    size_t k = *i;
    if (k >= n || !isdigit((unsigned char)s[k])) return -1;
    while (k < n && isdigit((unsigned char)s[k])) {
        v = v * 10 + (s[k] - '0');
        if (v > 1000000) return -1;
        k++;
    }
    *i = k;
    return (int)v;
}

/* The bracketed prefixes, most specific first: "[rank3]", "[default3]" (torchrun
 * --tee), "[Rank 3]", "[RANK 3]". */
static const struct {
    const char *word;
    size_t len;
} bracket_words[] = {{"rank", 4}, {"default", 7}, {"Rank ", 5}, {"RANK ", 5}};
#define NWORDS (sizeof bracket_words / sizeof *bracket_words)

/* Where the next 'k' and the next 'K' are: each found once, so a line full of one of
 * them is not searched again for the other. "rank" is looked for by its 'k', the
 * rarest of its letters in log text ('r' is in every other word). */
typedef struct {
    const char *s;
    size_t n, lo, up; /* next 'k', next 'K' (n: none) */
} k_cursor;

static size_t find_from(const char *s, size_t n, size_t i, char c)
{
    const char *p = i < n ? memchr(s + i, c, n - i) : NULL;
    return p ? (size_t)(p - s) : n;
}

/* The next 'k' or 'K' after the one returned last time (the first: from 0). */
static size_t next_k(k_cursor *c, size_t after)
{
    if (c->lo <= after) c->lo = find_from(c->s, c->n, after + 1, 'k');
    if (c->up <= after) c->up = find_from(c->s, c->n, after + 1, 'K');
    return c->lo < c->up ? c->lo : c->up;
}

/* Does " NCCL" follow at i, directly or after one "file:line" word? */
static bool nccl_after(const char *s, size_t n, size_t i)
{
    if (i + 5 <= n && memcmp(s + i, " NCCL", 5) == 0) return true;
    if (i >= n || s[i] != ' ') return false;
    size_t k = i + 1, colon = 0;
    while (k < n && k - i <= 96 && s[k] != ' ') {
        if (s[k] == ':') colon = k;
        k++;
    }
    if (!colon || colon + 1 >= k) return false;
    for (size_t d = colon + 1; d < k; d++)
        if (!isdigit((unsigned char)s[d])) return false;
    return k + 5 <= n && memcmp(s + k, " NCCL", 5) == 0;
}

int ldx_line_rank(const char *s, size_t len)
{
    size_t n = len < RANK_WINDOW ? len : RANK_WINDOW;
    /* one pass over the '['s: the first value of each bracketed form, then the most
     * specific form that has one wins */
    int word[NWORDS] = {-1, -1, -1, -1}, nccl = -1;
    for (const char *b = memchr(s, '[', n); b && b + 1 < s + n;
         b = memchr(b + 1, '[', n - (size_t)(b + 1 - s))) {
        size_t i = (size_t)(b - s);
        char c1 = b[1];
        for (size_t w = 0; w < NWORDS && (c1 == 'r' || c1 == 'd' || c1 == 'R'); w++) {
            size_t wl = bracket_words[w].len;
            if (word[w] >= 0 || i + wl + 2 > n || c1 != bracket_words[w].word[0] ||
                memcmp(s + i + 1, bracket_words[w].word, wl) != 0)
                continue;
            size_t k = i + 1 + wl;
            int v = digits_at(s, n, &k);
            if (v >= 0 && k < n && s[k] == ']') word[w] = v;
        }
        if (nccl >= 0) continue;
        size_t k = i + 1;
        int a = digits_at(s, n, &k);
        if (a < 0 || k >= n) continue;
        /* NCCL: "host:pid:tid [3] NCCL INFO ...", and its warnings, which name the
         * source line first (debug.c): "host:pid:tid [3] misc/socket.cc:49 NCCL WARN" */
        if (s[k] == ']' && nccl_after(s, n, k + 1)) nccl = a;
        /* Open MPI --tag-output: "[job,rank]<stdout>:" */
        if (s[k] == ',') {
            k++;
            int r2 = digits_at(s, n, &k);
            if (r2 >= 0 && k + 1 < n && s[k] == ']' && s[k + 1] == '<') nccl = r2;
        }
    }
    for (size_t w = 0; w < NWORDS; w++)
        if (word[w] >= 0) return word[w];
    if (nccl >= 0) return nccl;
    /* free text: "rank 3", "Rank: 3", "rank=3", "local_rank: 3", "RANK=3" */
    k_cursor kc = {s, n, find_from(s, n, 3, 'k'), find_from(s, n, 3, 'K')};
    for (size_t j = kc.lo < kc.up ? kc.lo : kc.up; j + 2 <= n; j = next_k(&kc, j)) {
        size_t i = j - 3; /* s[j] is k or K; j >= 3 */
        if ((s[i] | 0x20) != 'r' || (s[i + 1] | 0x20) != 'a' || (s[i + 2] | 0x20) != 'n') continue;
        if (i > 0 && isalpha((unsigned char)s[i - 1])) continue;
        size_t k = i + 4;
        while (k < n && (s[k] == ' ' || s[k] == ':' || s[k] == '=' || s[k] == '#')) k++;
        if (k == i + 4 && k < n && !isdigit((unsigned char)s[k])) continue;
        int v = digits_at(s, n, &k);
        if (v >= 0 && (k >= n || !isalnum((unsigned char)s[k]))) return v;
    }
    return -1;
}
