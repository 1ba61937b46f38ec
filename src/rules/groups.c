/* A pattern's capture groups read from its text, numbered as PCRE2 numbers them, so
 * that built-in patterns need not be compiled at start-up: the conditions only need the
 * names and numbers, and PCRE2 compiles a pattern the first time the prefilter sends a
 * line to it (most never see one). A test checks this reading against PCRE2 for every
 * built-in pattern. */
#include <stdlib.h>
#include <string.h>

#include "ruleset_int.h"

typedef struct {
    const char *name;
    size_t len;
    int group;
} named;

static int by_name(const void *a, const void *b)
{
    const named *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

bool ldxi_pattern_groups(const char *p, ldx_arena *a, ldxi_sigc *sc, uint32_t *ngroups)
{
    size_t n = strlen(p), nn = 0;
    named names[64];
    int groups = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\') {
            if (i + 1 < n && (p[i + 1] == 'Q' || p[i + 1] == 'E')) return false;
            i++;
        } else if (p[i] == '[') {
            /* a POSIX class inside ([[:alpha:]]) would end the class early: not read */
            size_t e = ldxi_re_class_end(p, n, i);
            for (size_t j = i + 1; j + 1 < e; j++)
                if (p[j] == '[' && p[j + 1] == ':') return false;
            i = e;
        } else if (p[i] == '(') {
            if (i + 1 < n && p[i + 1] == '*') return false; /* (*VERB) */
            if (i + 1 >= n || p[i + 1] != '?') {
                groups++;
                continue;
            }
            char c = i + 2 < n ? p[i + 2] : '\0';
            size_t start = 0;
            char close = '>';
            if (c == '<' && i + 3 < n && p[i + 3] != '=' && p[i + 3] != '!') start = i + 3;
            else if (c == 'P' && i + 3 < n && p[i + 3] == '<') start = i + 4;
            else if (c == '\'') start = i + 3, close = '\'';
            else if (c == ':' || c == '=' || c == '!' || c == '>' || c == '#' || c == '<')
                continue;
            else if (c == 'i' || c == 'm' || c == 's' || c == 'n' || c == 'U' || c == '-') {
                /* option settings: x changes what the rest means, n stops numbering */
                size_t j = i + 2;
                while (j < n && p[j] != ')' && p[j] != ':') {
                    if (p[j] == 'x' || p[j] == 'n') return false;
                    j++;
                }
                continue;
            } else {
                return false; /* (?| (?( (?R (?1 (?& (?C ... */
            }
            const char *e = memchr(p + start, close, n - start);
            if (!e || nn == sizeof names / sizeof *names) return false;
            groups++;
            names[nn++] = (named){p + start, (size_t)(e - (p + start)), groups};
        }
    }
    /* PCRE2's name table is in name order */
    qsort(names, nn, sizeof *names, by_name);
    sc->ncaps = nn;
    sc->capnames = NULL;
    sc->capgroups = NULL;
    if (nn) {
        sc->capnames = ldxi_arena_alloc(a, nn * sizeof(char *));
        sc->capgroups = ldxi_arena_alloc(a, nn * sizeof(int));
        if (!sc->capnames || !sc->capgroups) return false;
        for (size_t k = 0; k < nn; k++) {
            sc->capnames[k] = ldxi_arena_strndup(a, names[k].name, names[k].len);
            sc->capgroups[k] = names[k].group;
            if (!sc->capnames[k]) return false;
        }
    }
    *ngroups = (uint32_t)groups;
    return true;
}
