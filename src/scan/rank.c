/* Distributed rank of a line. Launchers and libraries each prefix lines their own way;
 * the bracketed forms are unambiguous and tried first, the free-text "rank N" last. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

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

static int bracket_word(const char *s, size_t n, const char *word)
{
    size_t wl = strlen(word);
    for (const char *b = memchr(s, '[', n); b; b = memchr(b + 1, '[', n - (size_t)(b + 1 - s))) {
        size_t i = (size_t)(b - s);
        if (i + wl + 2 > n) break;
        if (memcmp(s + i + 1, word, wl) != 0) continue;
        size_t k = i + 1 + wl;
        int v = digits_at(s, n, &k);
        if (v >= 0 && k < n && s[k] == ']') return v;
    }
    return -1;
}

int ldx_line_rank(const char *s, size_t len)
{
    size_t n = len < RANK_WINDOW ? len : RANK_WINDOW;
    int r;
    if ((r = bracket_word(s, n, "rank")) >= 0) return r;
    if ((r = bracket_word(s, n, "default")) >= 0) return r;
    if ((r = bracket_word(s, n, "Rank ")) >= 0) return r;
    if ((r = bracket_word(s, n, "RANK ")) >= 0) return r;
    for (const char *b = memchr(s, '[', n); b && b + 1 < s + n;
         b = memchr(b + 1, '[', n - (size_t)(b + 1 - s))) {
        size_t i = (size_t)(b - s);
        size_t k = i + 1;
        int a = digits_at(s, n, &k);
        if (a < 0 || k >= n) continue;
        /* NCCL: "host:pid:tid [3] NCCL INFO ..." */
        if (s[k] == ']' && k + 6 <= n && memcmp(s + k + 1, " NCCL", 5) == 0) return a;
        /* Open MPI --tag-output: "[job,rank]<stdout>:" */
        if (s[k] == ',') {
            k++;
            int r2 = digits_at(s, n, &k);
            if (r2 >= 0 && k + 1 < n && s[k] == ']' && s[k + 1] == '<') return r2;
        }
    }
    /* free text: "rank 3", "Rank: 3", "rank=3", "local_rank: 3", "RANK=3" */
    for (size_t i = 0; i + 5 <= n; i++) {
        if ((s[i] | 0x20) != 'r' || strncasecmp(s + i, "rank", 4) != 0) continue;
        if (i > 0 && isalpha((unsigned char)s[i - 1])) continue;
        size_t k = i + 4;
        while (k < n && (s[k] == ' ' || s[k] == ':' || s[k] == '=' || s[k] == '#')) k++;
        if (k == i + 4 && k < n && !isdigit((unsigned char)s[k])) continue;
        int v = digits_at(s, n, &k);
        if (v >= 0 && (k >= n || !isalnum((unsigned char)s[k]))) return v;
    }
    return -1;
}
