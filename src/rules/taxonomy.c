/* The failure classes, parsed once from the embedded taxonomy.tsv
 * (class, category, default_severity, description). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/rules.h"
#include "ruleset_int.h"

typedef struct {
    char *klass, *category, *description;
    ldx_severity sev;
} tclass;

static tclass *classes;
static size_t nclasses;
static size_t *by_name; /* indices into classes, sorted by class: every rule's caused_by
                         * is looked up at start-up */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static char *field(const char **p, const char *end)
{
    const char *s = *p, *e = s;
    while (e < end && *e != '\t' && *e != '\n' && *e != '\r') e++;
    char *f = ldxi_strndup(s, (size_t)(e - s));
    *p = (e < end && *e == '\t') ? e + 1 : e;
    return f;
}

static void load(void)
{
    if (ldxi_builtin_taxonomy_count == 0) return;
    const char *p = ldxi_builtin_taxonomy[0].data;
    const char *end = p + ldxi_builtin_taxonomy[0].len;
    size_t cap = 0;
    int header = 1;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if (header || eol == p) {
            header = 0;
            p = eol + 1;
            continue;
        }
        tclass t;
        const char *q = p;
        t.klass = field(&q, eol);
        t.category = field(&q, eol);
        char *sev = field(&q, eol);
        t.description = field(&q, eol);
        int s = sev ? ldx_severity_parse(sev) : -1;
        free(sev);
        t.sev = s < 0 ? LDX_SEV_MEDIUM : (ldx_severity)s;
        if (LDXI_PUSH(classes, nclasses, cap, t) != LDX_OK) {
            free(t.klass);
            free(t.category);
            free(t.description);
            return;
        }
        p = eol + 1;
    }
}

static int by_name_cmp(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const char *x = classes[i].klass, *y = classes[j].klass;
    int c = strcmp(x ? x : "", y ? y : "");
    return c ? c : (i > j) - (i < j); /* a class listed twice: the first one first */
}

static void load_and_index(void)
{
    load();
    by_name = malloc((nclasses ? nclasses : 1) * sizeof(size_t));
    if (!by_name) return; /* lookups go through the classes one by one */
    for (size_t i = 0; i < nclasses; i++) by_name[i] = i;
    qsort(by_name, nclasses, sizeof(size_t), by_name_cmp);
}

static void init(void) { pthread_once(&once, load_and_index); }

/* The class's index, or -1. */
static long find_class(const char *klass)
{
    if (!by_name) {
        for (size_t i = 0; i < nclasses; i++)
            if (classes[i].klass && strcmp(classes[i].klass, klass) == 0) return (long)i;
        return -1;
    }
    size_t lo = 0, hi = nclasses;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const char *k = classes[by_name[mid]].klass;
        int c = strcmp(k ? k : "", klass);
        if (c == 0) {
            while (mid > 0 && classes[by_name[mid - 1]].klass &&
                   strcmp(classes[by_name[mid - 1]].klass, klass) == 0)
                mid--;
            return k ? (long)by_name[mid] : -1;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

size_t ldx_taxonomy_count(void)
{
    init();
    return nclasses;
}

const char *ldx_taxonomy_class(size_t i)
{
    init();
    return i < nclasses ? classes[i].klass : NULL;
}

bool ldx_taxonomy_lookup(const char *klass, const char **category, ldx_severity *sev,
                         const char **description)
{
    init();
    long i = find_class(klass);
    if (i < 0) return false;
    if (category) *category = classes[i].category;
    if (sev) *sev = classes[i].sev;
    if (description) *description = classes[i].description;
    return true;
}
