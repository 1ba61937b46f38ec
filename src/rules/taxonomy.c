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

static void init(void) { pthread_once(&once, load); }

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
    for (size_t i = 0; i < nclasses; i++) {
        if (classes[i].klass && strcmp(classes[i].klass, klass) == 0) {
            if (category) *category = classes[i].category;
            if (sev) *sev = classes[i].sev;
            if (description) *description = classes[i].description;
            return true;
        }
    }
    return false;
}
