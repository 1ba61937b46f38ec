/* Named pattern fragments.
 *
 *   fragment: run_process
 *   title: The processes that are a training or inference run's own
 *   pattern: 'python|pt_|torchrun|deepspeed'
 *   examples:
 *     match: ["Killed process 4242 (python3)"]
 *     no_match: ["Killed process 4242 (chrome)"]
 *
 * A signal calls one as (?&run_process), PCRE2's own syntax for calling a named group;
 * the loader writes the call out as a non-capturing group before anything else reads the
 * pattern (PCRE2, the prefilter forms, the line memo's digit reading), so every engine
 * sees one plain pattern. The signal's flags apply to the fragment's text. */
#include "fragment.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "../core/util.h"

static const char *const fragment_keys[] = {"fragment", "title", "pattern", "examples", NULL};
static const char *const example_keys[] = {"match", "no_match", NULL};

typedef struct {
    const char *path;
    ldx_msgs *msgs;
    int errors;
} fctx;

static void err(fctx *c, const ldxi_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void err(fctx *c, const ldxi_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldx_msgs_vadd(c->msgs, LDX_MSG_ERROR, c->path, n ? n->line : 1, n ? n->col : 1, fmt, ap);
    va_end(ap);
    c->errors++;
}

bool ldxi_is_fragment(const ldxi_ynode *root)
{
    return root->kind == LDXI_YMAP && ldxi_ymap_get(root, "fragment") != NULL;
}

static bool is_name(const char *s, size_t n)
{
    if (!n || !islower((unsigned char)s[0])) return false;
    for (size_t i = 1; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

const ldxi_fragment *ldxi_fragment_find(const ldxi_fragments *set, const char *name, size_t len)
{
    for (size_t i = 0; set && i < set->n; i++)
        if (strlen(set->v[i].name) == len && !memcmp(set->v[i].name, name, len))
            return &set->v[i];
    return NULL;
}

/* Each example of one kind (match: must match, no_match: must not) against code. */
static void check_examples(fctx *c, const ldxi_ynode *en, const char *kind, bool want,
                           pcre2_code *code)
{
    const ldxi_ynode *l = ldxi_ymap_get(en, kind);
    if (!l || l->kind != LDXI_YSEQ || l->n == 0) {
        err(c, l ? l : en, "examples: '%s' must be a list of at least one line", kind);
        return;
    }
    pcre2_match_data *md = code ? pcre2_match_data_create_from_pattern(code, NULL) : NULL;
    for (size_t i = 0; i < l->n; i++) {
        const ldxi_ynode *it = l->items[i];
        if (it->kind != LDXI_YSCALAR) {
            err(c, it, "examples: items of '%s' must be strings", kind);
            continue;
        }
        if (!md) continue;
        bool hit = pcre2_match(code, (PCRE2_SPTR)it->str, it->len, 0, 0, md, NULL) >= 0;
        if (hit != want)
            err(c, it, "fragment example %s: '%s'", want ? "does not match" : "matches",
                it->str);
    }
    pcre2_match_data_free(md);
}

bool ldxi_fragment_load(const ldxi_ynode *root, const char *path, bool builtin, bool keep_strings,
                        ldx_arena *arena, ldxi_fragments *set, ldx_msgs *msgs)
{
    fctx c = {.path = path, .msgs = msgs};
    for (size_t i = 0; i + 1 < root->n; i += 2) {
        const ldxi_ynode *k = root->items[i];
        bool ok = false;
        for (const char *const *a = fragment_keys; *a && !ok && k->kind == LDXI_YSCALAR; a++)
            ok = !strcmp(*a, k->str);
        if (!ok)
            err(&c, k, "fragment: unknown key '%s' (known: fragment, title, pattern, examples)",
                k->kind == LDXI_YSCALAR ? k->str : "?");
    }
    const ldxi_ynode *nn = ldxi_ymap_get(root, "fragment");
    const ldxi_ynode *tn = ldxi_ymap_get(root, "title");
    const ldxi_ynode *pn = ldxi_ymap_get(root, "pattern");
    const ldxi_ynode *en = ldxi_ymap_get(root, "examples");
    if (nn->kind != LDXI_YSCALAR || !is_name(nn->str, nn->len))
        err(&c, nn, "a fragment's name is lower-case letters, digits and _ (it is called as "
                    "(?&name))");
    const ldxi_fragment *old = nn->kind == LDXI_YSCALAR ? ldxi_fragment_find(set, nn->str, nn->len) : NULL;
    if (old && (builtin || !old->builtin))
        err(&c, nn, "fragment '%s' is already defined in %s", nn->str, old->path);
    if (!tn || tn->kind != LDXI_YSCALAR || !*tn->str)
        err(&c, tn ? tn : root, "a fragment needs a 'title': what its pattern recognises");
    if (!pn || pn->kind != LDXI_YSCALAR || !*pn->str) {
        err(&c, pn ? pn : root, "a fragment needs a non-empty 'pattern'");
        pn = NULL;
    }
    pcre2_code *code = NULL;
    if (pn) {
        int ec;
        PCRE2_SIZE off;
        code = pcre2_compile((PCRE2_SPTR)pn->str, pn->len, 0, &ec, &off, NULL);
        if (!code) {
            PCRE2_UCHAR m[256];
            pcre2_get_error_message(ec, m, sizeof m);
            /* a call of another fragment is an unknown group to PCRE2: say so plainly */
            if (strstr(pn->str, "(?&"))
                err(&c, pn, "a fragment cannot call another fragment (%s)", (const char *)m);
            else
                err(&c, pn, "fragment pattern error at offset %zu: %s", (size_t)off,
                    (const char *)m);
        } else {
            uint32_t caps = 0;
            pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &caps);
            if (caps)
                err(&c, pn, "a fragment holds no capturing group (write (?:...)): its callers' "
                            "captures are numbered and named by their own patterns");
        }
    }
    if (!en || en->kind != LDXI_YMAP) {
        err(&c, en ? en : root, "a fragment needs 'examples' with 'match' and 'no_match'");
    } else {
        for (size_t i = 0; i + 1 < en->n; i += 2) {
            const ldxi_ynode *k = en->items[i];
            bool ok = k->kind == LDXI_YSCALAR &&
                      (!strcmp(k->str, example_keys[0]) || !strcmp(k->str, example_keys[1]));
            if (!ok) err(&c, k, "examples: unknown key (known: match, no_match)");
        }
        check_examples(&c, en, "match", true, code);
        check_examples(&c, en, "no_match", false, code);
    }
    pcre2_code_free(code);
    if (c.errors) return false;
    ldxi_fragment f = {
        .name = keep_strings ? nn->str : ldxi_arena_strndup(arena, nn->str, nn->len),
        .pattern = keep_strings ? pn->str : ldxi_arena_strndup(arena, pn->str, pn->len),
        .path = ldxi_arena_strndup(arena, path, strlen(path)),
        .builtin = builtin,
    };
    if (!f.name || !f.pattern || !f.path) return false;
    if (old) {
        set->v[old - set->v] = f;
        return true;
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 8;
        ldxi_fragment *v = realloc(set->v, cap * sizeof(*v));
        if (!v) return false;
        set->v = v, set->cap = cap;
    }
    set->v[set->n++] = f;
    return true;
}

void ldxi_fragments_free(ldxi_fragments *set)
{
    free(set->v);
    set->v = NULL;
    set->n = set->cap = 0;
}

/* Whether the pattern defines a group of this name itself ((?<n>, (?'n', (?P<n>): then
 * (?&n) is its own call, not a fragment's. */
static bool own_group(const char *p, const char *name, size_t len)
{
    static const char *const opens[] = {"(?<", "(?'", "(?P<"};
    for (size_t k = 0; k < 3; k++) {
        size_t ol = strlen(opens[k]);
        for (const char *q = strstr(p, opens[k]); q; q = strstr(q + 1, opens[k]))
            if (!strncmp(q + ol, name, len) && (q[ol + len] == '>' || q[ol + len] == '\''))
                return true;
    }
    return false;
}

/* Where the next (?& outside a character class and an escape is, or NULL. */
static const char *next_call(const char *p)
{
    bool cls = false;
    for (; *p; p++) {
        if (*p == '\\') {
            if (p[1] == 'Q') {
                const char *e = strstr(p + 2, "\\E");
                if (!e) return NULL;
                p = e + 1;
            } else if (p[1]) {
                p++;
            }
        } else if (cls) {
            if (*p == '[' && p[1] == ':') {
                const char *e = strstr(p + 2, ":]");
                if (e) p = e + 1;
            } else if (*p == ']') {
                cls = false;
            }
        } else if (*p == '[') {
            cls = true;
            if (p[1] == '^') p++;
            if (p[1] == ']') p++; /* a ] first in a class is itself */
        } else if (p[0] == '(' && p[1] == '?' && p[2] == '&') {
            return p;
        }
    }
    return NULL;
}

const char *ldxi_fragment_expand(const char *pattern, const ldxi_fragments *set,
                                 ldx_arena *arena, size_t *bad_at, size_t *bad_len)
{
    const char *call = next_call(pattern);
    if (!call) return pattern;
    ldx_buf b;
    ldxi_buf_init(&b, SIZE_MAX);
    const char *from = pattern;
    bool any = false;
    for (; call; call = next_call(call + 3)) {
        const char *name = call + 3;
        const char *end = strchr(name, ')');
        size_t len = end ? (size_t)(end - name) : 0;
        if (!end || own_group(pattern, name, len)) continue;
        const ldxi_fragment *f = ldxi_fragment_find(set, name, len);
        if (!f) {
            ldxi_buf_free(&b);
            *bad_at = (size_t)(name - pattern);
            *bad_len = len ? len : 1;
            return NULL;
        }
        if (ldxi_buf_append(&b, from, (size_t)(call - from)) != LDX_OK ||
            ldxi_buf_append(&b, "(?:", 3) != LDX_OK ||
            ldxi_buf_append(&b, f->pattern, strlen(f->pattern)) != LDX_OK ||
            ldxi_buf_append(&b, ")", 1) != LDX_OK)
            goto oom;
        from = end + 1;
        any = true;
    }
    if (!any) {
        ldxi_buf_free(&b);
        return pattern;
    }
    if (ldxi_buf_append(&b, from, strlen(from)) != LDX_OK) goto oom;
    char *out = ldxi_arena_strndup(arena, b.data, b.len);
    ldxi_buf_free(&b);
    if (!out) goto oom_freed;
    return out;
oom:
    ldxi_buf_free(&b);
oom_freed:
    *bad_at = 0;
    *bad_len = 0;
    return NULL;
}
