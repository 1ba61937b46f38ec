/* Rule validation. Every check reports at the position of the offending node and goes
 * on, so that one run of `logdx rules lint` lists every problem in a file. */
#include "load.h"

#include <ctype.h>
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *path;
    ldx_arena *arena;
    ldx_msgs *msgs;
    int errors;
    bool builtin;
    bool keep; /* the tree's strings live as long as the rule: used, not copied */
    const ldxi_fragments *frags; /* what (?&name) in a pattern may call */
} ctx;

static void error_at(ctx *c, const ldxi_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void error_at(ctx *c, const ldxi_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldx_msgs_vadd(c->msgs, LDX_MSG_ERROR, c->path, n ? n->line : 1, n ? n->col : 1, fmt, ap);
    va_end(ap);
    c->errors++;
}

static const char *const top_keys[] = {
    "id", "title", "class", "category", "severity", "level", "tags", "affects", "related",
    "caused_by", "signals", "condition", "summary", "symptoms", "root_cause", "fix",
    "verify", "references", "examples", "advice", NULL};
static const char *const signal_keys[] = {"pattern", "flags", "weight", "role", "tail", "below",
                                          "where", "lookup", NULL};
static const char *const lookup_keys[] = {"table", "capture", "only", NULL};
static const char *const symptom_keys[] = {"symptom", "why", NULL};
static const char *const example_keys[] = {"match", "no_match", NULL};
static const char *const cause_keys[] = {"cause", "order", "within", NULL};
static const char *const advice_keys[] = {"when", "text", NULL};
static const char *const fix_keys[] = {"text", "when", "unless", NULL};

/* Reports keys not in allowed (with a suggestion), and duplicate keys. */
static void check_keys(ctx *c, const ldxi_ynode *map, const char *const *allowed,
                       const char *where)
{
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const ldxi_ynode *k = map->items[i];
        if (k->kind != LDXI_YSCALAR) {
            error_at(c, k, "%s: keys must be plain strings", where);
            continue;
        }
        for (size_t j = 0; j < i; j += 2)
            if (map->items[j]->kind == LDXI_YSCALAR && strcmp(map->items[j]->str, k->str) == 0)
                error_at(c, k, "%s: duplicate key '%s'", where, k->str);
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++) ok = strcmp(*a, k->str) == 0;
        if (!ok) {
            /* only an unknown key pays for the suggestion */
            const char *best = NULL;
            size_t bestd = 3;
            for (const char *const *a = allowed; *a; a++) {
                size_t d = ldxi_edit_distance(*a, k->str);
                if (d < bestd) bestd = d, best = *a;
            }
            if (best)
                error_at(c, k, "%s: unknown key '%s' (did you mean '%s'?)", where, k->str, best);
            else
                error_at(c, k, "%s: unknown key '%s'", where, k->str);
        }
    }
}

static void check_comment(ctx *c, const ldxi_ynode *n, const char *key)
{
    if (n->comment_after)
        error_at(c, n,
                 "'%s': the text after ' #' is a YAML comment and is lost; quote the string",
                 key);
}

static const char *scalar(ctx *c, const ldxi_ynode *map, const char *key, int required)
{
    const ldxi_ynode *n = ldxi_ymap_get(map, key);
    if (!n) {
        if (required) error_at(c, map, "missing required key '%s'", key);
        return NULL;
    }
    if (n->kind != LDXI_YSCALAR) {
        error_at(c, n, "'%s' must be a string", key);
        return NULL;
    }
    check_comment(c, n, key);
    const char *s = n->str;
    while (isspace((unsigned char)*s)) s++;
    if (!*s) {
        error_at(c, n, "'%s' is empty", key);
        return NULL;
    }
    return c->keep ? n->str : ldxi_arena_strndup(c->arena, n->str, n->len);
}

/* Drops the trailing newline that block scalars carry. */
static const char *trim_end(ctx *c, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s), whole = n;
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ')) n--;
    return c->keep && n == whole ? s : ldxi_arena_strndup(c->arena, s, n);
}

static ldx_strv strlist(ctx *c, const ldxi_ynode *map, const char *key, int required,
                        int min)
{
    ldx_strv v = {0};
    const ldxi_ynode *n = ldxi_ymap_get(map, key);
    if (!n) {
        if (required) error_at(c, map, "missing required key '%s'", key);
        return v;
    }
    if (n->kind != LDXI_YSEQ) {
        error_at(c, n, "'%s' must be a list", key);
        return v;
    }
    if ((int)n->n < min) error_at(c, n, "'%s' needs at least %d item%s", key, min, min == 1 ? "" : "s");
    v.v = ldxi_arena_alloc(c->arena, (n->n ? n->n : 1) * sizeof(char *));
    if (!v.v) return v;
    for (size_t i = 0; i < n->n; i++) {
        const ldxi_ynode *it = n->items[i];
        if (it->kind == LDXI_YMAP && !strcmp(key, "fix") &&
            (ldxi_ymap_get(it, "text") || ldxi_ymap_get(it, "when") || ldxi_ymap_get(it, "unless"))) {
            /* {text, when|unless}: its text now, its condition once the signals are known */
            const ldxi_ynode *t = ldxi_ymap_get(it, "text");
            if (!t || t->kind != LDXI_YSCALAR || !*t->str) {
                error_at(c, it, "a fix step that is a mapping needs 'text' (and 'when' or 'unless')");
                continue;
            }
            check_comment(c, t, key);
            v.v[v.n++] = trim_end(c, t->str);
            continue;
        }
        if (it->kind == LDXI_YMAP) {
            error_at(c, it,
                     "items of '%s' must be strings%s; this one reads as a mapping (a plain "
                     "item containing ': ' is key: value to YAML, so quote it)",
                     key, strcmp(key, "fix") ? "" : " or {text, when|unless}");
            continue;
        }
        if (it->kind != LDXI_YSCALAR || !*it->str) {
            error_at(c, it, "items of '%s' must be non-empty strings", key);
            continue;
        }
        check_comment(c, it, key);
        v.v[v.n++] = trim_end(c, it->str);
    }
    return v;
}

static int is_kebab(const char *s)
{
    if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s)) return 0;
    for (const char *p = s; *p; p++) {
        if (*p == '-') {
            if (p[1] == '-' || p[1] == '\0') return 0;
        } else if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p)) {
            return 0;
        }
    }
    return 1;
}

static int is_ident(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_') return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') return 0;
    return 1;
}

/* Column of byte off of a scalar's text, for messages about patterns/conditions. */
static unsigned col_of(const ldxi_ynode *n, size_t off)
{
    return n->col + (n->quoted == 1 ? 1u : 0u) + (unsigned)off;
}

/* Is there an unbounded quantifier (+, *, {n,}) right at p? */
static size_t unbounded_at(const char *p)
{
    if (*p == '+' || *p == '*') return 1;
    if (*p != '{') return 0;
    const char *q = p + 1;
    while (*q >= '0' && *q <= '9') q++;
    return (q > p + 1 && q[0] == ',' && q[1] == '}') ? (size_t)(q + 2 - p) : 0;
}

/* Does the group whose body starts at p begin with a fixed literal (", ", "sm_", "\.")?
 * Then each repetition must start with that literal, and the engine cannot split the
 * same text between repetitions in many ways. */
static bool literal_start(const char *p)
{
    if (p[0] == '?') { /* (?: (?<name> (?P<name> */
        if (p[1] == ':') {
            p += 2;
        } else if (p[1] == '<' || (p[1] == 'P' && p[2] == '<')) {
            p = strchr(p, '>');
            if (!p) return false;
            p++;
        } else {
            return false;
        }
    }
    const char *next;
    if (*p == '\\') {
        if (!p[1] || !strchr(".()[]{}*+?|^$\\/-_:,", p[1])) return false; /* \d, \s, \w... */
        next = p + 2;
    } else if (*p && !strchr("[(.^$|)*+?{", *p)) {
        next = p + 1;
    } else {
        return false;
    }
    return !*next || !strchr("*+?{", *next);
}

/* Finds a group that repeats without bound, holds an unbounded quantifier itself and
 * does not begin with a fixed literal, like (a+)+ or (?:\s*x)*: on a line that almost
 * matches, backtracking through both can take exponential time. Returns the offset of
 * the outer quantifier, or -1. */
static long nested_unbounded(const char *pat)
{
    enum { MAXD = 64 };
    bool inner[MAXD] = {false};
    bool anchored[MAXD] = {false};
    int depth = 0;
    size_t n = strlen(pat);
    for (const char *p = pat; *p; p++) {
        if (*p == '\\') {
            if (p[1]) p++;
            continue;
        }
        if (*p == '[') { /* a character class: quantifier characters are literal inside */
            p = pat + ldxi_re_class_end(pat, n, (size_t)(p - pat));
            if (!*p) break;
            continue;
        }
        if (*p == '(') {
            if (depth < MAXD - 1) {
                inner[++depth] = false;
                anchored[depth] = literal_start(p + 1);
            }
            continue;
        }
        if (*p == ')') {
            bool had = depth > 0 && inner[depth];
            bool lit = depth > 0 && anchored[depth];
            if (depth > 0) depth--;
            size_t q = unbounded_at(p + 1);
            if (had && q && !lit) return (long)(p + 1 - pat);
            /* the group's quantifier makes the enclosing group hold one too */
            if (had || q) inner[depth] = inner[depth] || had || q;
            continue;
        }
        if (unbounded_at(p)) inner[depth] = true;
    }
    return -1;
}

static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;

/* The JIT-compiled copy, made once by whichever thread gets here first: the code itself
 * stays as it is, since other threads may be matching with it. */
static pcre2_code *sig_jit(ldxi_sigc *w)
{
    pthread_mutex_lock(&code_lock);
    if (!w->jcode && !__atomic_load_n(&w->nojit, __ATOMIC_RELAXED)) {
        pcre2_code *j = pcre2_code_copy(w->code);
        if (j && pcre2_jit_compile(j, PCRE2_JIT_COMPLETE) == 0) {
            __atomic_store_n(&w->jcode, j, __ATOMIC_RELEASE);
        } else {
            pcre2_code_free(j); /* without JIT it is only slower */
            __atomic_store_n(&w->nojit, true, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&code_lock);
    return w->jcode ? w->jcode : w->code;
}

void ldxi_sig_free_code(ldxi_sigc *sc)
{
    pcre2_code_free(sc->code);
    pcre2_code_free(sc->jcode);
    sc->code = sc->jcode = NULL;
}

/* The ruleset is shared by threads, so this is the one place that writes to it after
 * loading: under a lock, with the flag published after the code, and no thread
 * matching the pattern before it sees the flag (the JIT's copy likewise). */
pcre2_code *ldxi_sig_code(const ldxi_sigc *sc)
{
    ldxi_sigc *w = (ldxi_sigc *)sc;
    pcre2_code *j = __atomic_load_n(&w->jcode, __ATOMIC_ACQUIRE);
    if (j) return j;
    if (!__atomic_load_n(&sc->ready, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&code_lock);
        if (!w->ready) {
            if (!w->code) {
                int err;
                PCRE2_SIZE off;
                w->code = pcre2_compile((PCRE2_SPTR)w->pattern, PCRE2_ZERO_TERMINATED, w->options,
                                        &err, &off, NULL);
            }
            uint32_t br = 0;
            if (w->code) pcre2_pattern_info(w->code, PCRE2_INFO_BACKREFMAX, &br);
            w->backref = br > 0;
            w->bol = w->code && ldxi_has_start_anchor(w->pattern);
            __atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&code_lock);
    }
    if (!w->code || __atomic_load_n(&w->nojit, __ATOMIC_RELAXED)) return w->code;
    if (__atomic_add_fetch(&w->uses, 1, __ATOMIC_RELAXED) == LDXI_JIT_AFTER) return sig_jit(w);
    return w->code;
}

void ldxi_sig_gate(const ldxi_sigc *sc)
{
    pthread_mutex_lock(&code_lock);
    ldxi_sigc *w = (ldxi_sigc *)sc;
    if (!w->gated) {
        ldxi_req *r = getenv("LOGDX_NO_GATE") ? NULL
                                              : ldxi_required_literals(w->pattern, (w->options & PCRE2_CASELESS) != 0);
        __atomic_store_n(&w->req, r, __ATOMIC_RELEASE);
        __atomic_store_n(&w->gated, true, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&code_lock);
}

/* How many copies of its smallest part counted repeats make of a pattern: PCRE2 compiles
 * x{1000} as a thousand x's, so (a{1000}){1000} is a million nodes and took most of a
 * minute to compile, JIT and prefilter. The product of the counted bounds that nest (an
 * open {m,} counts m; *, + and ? count 1); offset of the outermost repeat in *at. */
#define REPEAT_EXPANSION_MAX 100000.0
static double repeat_expansion(const char *pat, size_t *at)
{
    enum { DEPTH = 64 };
    double inner[DEPTH + 1] = {1}; /* per open group: the largest expansion inside it */
    double last = 1;               /* the expansion of the item just closed or read */
    double worst = 1;
    size_t n = strlen(pat);
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = pat[i];
        if (ch == '\\') {
            i++;
            last = 1;
            continue;
        }
        if (ch == '[') { /* a class is one item */
            size_t j = i + 1;
            if (j < n && pat[j] == '^') j++;
            if (j < n && pat[j] == ']') j++;
            while (j < n && pat[j] != ']') j += pat[j] == '\\' ? 2 : 1;
            i = j;
            last = 1;
            continue;
        }
        if (ch == '(') {
            if (d < DEPTH) inner[++d] = 1;
            last = 1;
            continue;
        }
        if (ch == ')') {
            last = d > 0 ? inner[d--] : 1;
            if (inner[d] < last) inner[d] = last;
            continue;
        }
        if (ch == '{' && i + 1 < n && pat[i + 1] >= '0' && pat[i + 1] <= '9') {
            char *end;
            double lo = strtod(pat + i + 1, &end), hi = lo;
            if (*end == ',') hi = end[1] == '}' ? lo : strtod(end + 1, &end);
            if (*end == '}') {
                double x = last * (hi > lo ? hi : lo);
                if (x > worst) {
                    worst = x;
                    *at = i;
                }
                if (inner[d] < x) inner[d] = x;
                i = (size_t)(end - pat);
                last = x;
                continue;
            }
        }
        last = 1;
    }
    return worst;
}

static bool compile_signal(ctx *c, const ldxi_ynode *pn, ldx_signal_info *si, ldxi_sigc *sc,
                           const char *rule_id)
{
    int errcode;
    PCRE2_SIZE erroff;
    uint32_t opts = si->caseless ? PCRE2_CASELESS : 0;
    /* fragments first: every later reader of the pattern sees it written out */
    size_t bad_at = 0, bad_len = 0;
    const char *written = ldxi_fragment_expand(si->pattern, c->frags, c->arena, &bad_at, &bad_len);
    if (!written) {
        if (bad_len)
            ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, pn->line,
                         pn->quoted == 2 ? pn->col : col_of(pn, bad_at),
                         "rule '%s', signal '%s': (?&%.*s) names no fragment (the built-in ones are "
                         "in rules/fragments/) and no group of the pattern",
                         rule_id, si->name, (int)bad_len, si->pattern + bad_at);
        c->errors++;
        return false;
    }
    /* offsets in a pattern with fragments written out do not point into the file's text */
    bool at_node = pn->quoted == 2 || written != si->pattern;
    si->pattern = written;
    sc->pattern = si->pattern;
    sc->options = opts;
    /* A built-in pattern is known to compile (the build and the test suite check): its
     * groups are read from its text, and PCRE2 compiles it on first use. */
    if (c->builtin && ldxi_pattern_groups(si->pattern, c->arena, sc, &sc->ngroups)) return true;
    size_t rep_at = 0;
    double rep = repeat_expansion(si->pattern, &rep_at);
    if (rep > REPEAT_EXPANSION_MAX) {
        char num[32];
        snprintf(num, sizeof num, "%.0f", rep);
        ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, pn->line,
                     at_node ? pn->col : col_of(pn, rep_at),
                     "rule '%s', signal '%s': counted repeats nest to %s copies (at most %.0f): "
                     "the compiled pattern would be that large; use an open repeat (+, {m,}) "
                     "or fewer nested counts",
                     rule_id, si->name, num, REPEAT_EXPANSION_MAX);
        c->errors++;
        return false;
    }
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)si->pattern, PCRE2_ZERO_TERMINATED, opts,
                                     &errcode, &erroff, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, pn->line,
                     at_node ? pn->col : col_of(pn, erroff),
                     "rule '%s', signal '%s': pattern error at offset %zu%s: %s", rule_id,
                     si->name, (size_t)erroff,
                     pn->quoted != 2 && at_node ? " (of the pattern with its fragments written out)" : "",
                     (const char *)msg);
        c->errors++;
        return false;
    }
    /* A pattern that matches an empty line would fire on every log. */
    long nested = nested_unbounded(si->pattern);
    if (nested >= 0)
        ldx_msgs_add(c->msgs, LDX_MSG_WARNING, c->path, pn->line,
                     at_node ? pn->col : col_of(pn, (size_t)nested),
                     "rule '%s', signal '%s': a repeated group that itself repeats without "
                     "bound can backtrack for exponential time; bound one of them or make it "
                     "possessive (++, *+)",
                     rule_id, si->name);
    uint32_t backrefs = 0;
    pcre2_pattern_info(code, PCRE2_INFO_BACKREFMAX, &backrefs);
    if (backrefs)
        ldx_msgs_add(c->msgs, LDX_MSG_WARNING, c->path, pn->line, pn->col,
                     "rule '%s', signal '%s': a back reference makes a match's cost grow with "
                     "the line's length (more so under repetition); it is matched on the first "
                     "%d bytes of each line only",
                     rule_id, si->name, LDXI_BACKREF_SUBJECT);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(code, NULL);
    if (md && pcre2_match(code, (PCRE2_SPTR) "", 0, 0, 0, md, NULL) >= 0) {
        error_at(c, pn, "rule '%s', signal '%s': pattern matches an empty line", rule_id,
                 si->name);
    }
    pcre2_match_data_free(md);
    sc->code = code;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &sc->ngroups);
    uint32_t count = 0, esize = 0;
    PCRE2_SPTR table = NULL;
    pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
    pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &esize);
    pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
    if (count) {
        sc->capnames = ldxi_arena_alloc(c->arena, count * sizeof(char *));
        sc->capgroups = ldxi_arena_alloc(c->arena, count * sizeof(int));
        if (!sc->capnames || !sc->capgroups) return false;
        for (uint32_t i = 0; i < count; i++) {
            PCRE2_SPTR e = table + (size_t)i * esize;
            sc->capgroups[i] = (e[0] << 8) | e[1];
            sc->capnames[i] = ldxi_arena_strdup(c->arena, (const char *)e + 2);
        }
        sc->ncaps = count;
    }
    return true;
}

/* A signal's where, over its pattern's named captures (known once it compiled). */
static void load_where(ctx *c, const ldxi_ynode *v, ldx_signal_info *si, ldxi_sigc *sc,
                       const char *rule_id, bool compiled)
{
    const ldxi_ynode *wn = ldxi_ymap_get(v, "where");
    if (!wn) return;
    if (wn->kind != LDXI_YSCALAR || !*wn->str) {
        error_at(c, wn, "'where' must be a non-empty string such as 'skipped >= 2'");
        return;
    }
    si->where = trim_end(c, wn->str);
    if (!compiled) return; /* the pattern's error is reported: its captures are not known */
    char err[256];
    size_t off = 0;
    if (ldxi_where_parse(si->where, sc->capnames, sc->ncaps, c->arena, &sc->where, &off, err,
                         sizeof err) != LDX_OK) {
        ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, wn->line,
                     wn->quoted == 2 ? wn->col : col_of(wn, off),
                     "rule '%s', signal '%s': where: %s", rule_id, si->name, err);
        c->errors++;
        return;
    }
    ldxi_clause *cl;
    if (ldxi_where_clauses(sc->where, c->arena, &cl, &sc->nclauses)) sc->clauses = cl;
}

/* lookup: {table: xid, capture: code, only: {class: gpu_ecc_error}}: the capture's text
 * is looked up in the table (linked once every table is known: ldxi_rule_link_tables);
 * with only, a hit needs the row's column to hold the value (or one of a list). */
static void load_lookup(ctx *c, const ldxi_ynode *v, ldx_signal_info *si)
{
    const ldxi_ynode *ln = ldxi_ymap_get(v, "lookup");
    if (!ln) return;
    si->lookup_line = ln->line;
    si->lookup_col = ln->col;
    if (ln->kind != LDXI_YMAP) {
        error_at(c, ln, "'lookup' is a mapping {table: NAME, capture: NAME, only: {COLUMN: VALUE}}");
        return;
    }
    check_keys(c, ln, lookup_keys, "lookup");
    si->lookup_table = scalar(c, ln, "table", 1);
    si->lookup_capture = scalar(c, ln, "capture", 1);
    const ldxi_ynode *on = ldxi_ymap_get(ln, "only");
    if (!on) return;
    if (on->kind != LDXI_YMAP || on->n != 2 || on->items[0]->kind != LDXI_YSCALAR) {
        error_at(c, on, "'only' is one column and its value or values: {class: gpu_ecc_error}");
        return;
    }
    si->only_column = c->keep ? on->items[0]->str : ldxi_arena_strdup(c->arena, on->items[0]->str);
    const ldxi_ynode *val = on->items[1];
    size_t n = val->kind == LDXI_YSEQ ? val->n : 1;
    const char **vals = ldxi_arena_alloc(c->arena, (n ? n : 1) * sizeof *vals);
    if (!vals) return;
    for (size_t i = 0; i < n; i++) {
        const ldxi_ynode *x = val->kind == LDXI_YSEQ ? val->items[i] : val;
        if (x->kind != LDXI_YSCALAR) {
            error_at(c, x, "only: values are strings");
            return;
        }
        vals[i] = c->keep ? x->str : ldxi_arena_strdup(c->arena, x->str);
    }
    si->only_values.v = vals;
    si->only_values.n = n;
}

/* A signal's key that counts lines (tail, below): a whole number from 1 to max, or an error
 * saying what the lines are. */
static void line_count(ctx *c, const ldxi_ynode *sig, const char *key, long max, const char *what,
                       unsigned *out)
{
    const ldxi_ynode *n = ldxi_ymap_get(sig, key);
    if (!n) return;
    char *end = NULL;
    long t = n->kind == LDXI_YSCALAR ? strtol(n->str, &end, 10) : 0;
    if (!end || *end || t < 1 || t > max)
        error_at(c, n, "%s must be a number of lines from 1 to %ld (%s)", key, max, what);
    else
        *out = (unsigned)t;
}

static void load_signals(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *sigs = ldxi_ymap_get(root, "signals");
    if (!sigs) {
        error_at(c, root, "missing required key 'signals'");
        return;
    }
    if (sigs->kind != LDXI_YMAP || sigs->n == 0) {
        error_at(c, sigs, "'signals' must be a mapping of signal names to signals");
        return;
    }
    size_t n = sigs->n / 2;
    ldx_signal_info *si = ldxi_arena_alloc(c->arena, n * sizeof(*si));
    ldxi_sigc *sc = ldxi_arena_alloc(c->arena, n * sizeof(*sc));
    if (!si || !sc) return;
    memset(si, 0, n * sizeof(*si));
    memset(sc, 0, n * sizeof(*sc));
    int symptoms = 0;
    const char *rid = r->info.id ? r->info.id : "?";
    for (size_t i = 0; i < n; i++) {
        const ldxi_ynode *k = sigs->items[2 * i], *v = sigs->items[2 * i + 1];
        ldx_signal_info *s = &si[i];
        s->name = k->kind != LDXI_YSCALAR ? "?" : c->keep ? k->str : ldxi_arena_strndup(c->arena, k->str, k->len);
        s->weight = 1.0;
        s->line = k->line;
        s->col = k->col;
        if (k->kind != LDXI_YSCALAR || !is_ident(k->str)) {
            error_at(c, k, "signal names are identifiers ([A-Za-z_][A-Za-z0-9_]*)");
            continue;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(si[j].name, s->name) == 0)
                error_at(c, k, "duplicate signal '%s'", s->name);
        if (v->kind != LDXI_YMAP) {
            error_at(c, v, "signal '%s' must be a mapping with a 'pattern'", s->name);
            continue;
        }
        check_keys(c, v, signal_keys, "signal");
        const ldxi_ynode *role = ldxi_ymap_get(v, "role");
        if (role) {
            if (role->kind == LDXI_YSCALAR && strcmp(role->str, "symptom") == 0)
                s->role = LDX_SIGNAL_SYMPTOM;
            else if (role->kind == LDXI_YSCALAR && strcmp(role->str, "context") == 0)
                s->role = LDX_SIGNAL_CONTEXT;
            else
                error_at(c, role, "role must be 'symptom' or 'context'");
        }
        if (s->role == LDX_SIGNAL_SYMPTOM) symptoms++;
        const ldxi_ynode *w = ldxi_ymap_get(v, "weight");
        if (w) {
            char *end = NULL;
            double d = w->kind == LDXI_YSCALAR ? strtod(w->str, &end) : NAN;
            if (!end || *end || !(d >= 0) || d > 1000)
                error_at(c, w, "weight must be a number from 0 to 1000 (0: the signal only "
                               "serves the condition)");
            else
                s->weight = d;
        }
        line_count(c, v, "tail", LDX_TAIL_MAX, "the signal is matched on the log's last lines only",
                   &s->tail);
        line_count(c, v, "below", LDX_BELOW_MAX, "the lines under the signal's that name what failed",
                   &s->below);
        const ldxi_ynode *f = ldxi_ymap_get(v, "flags");
        if (f) {
            if (f->kind != LDXI_YSEQ) {
                error_at(c, f, "flags must be a list, e.g. [caseless]");
            } else {
                for (size_t j = 0; j < f->n; j++) {
                    const ldxi_ynode *fl = f->items[j];
                    if (fl->kind == LDXI_YSCALAR && strcmp(fl->str, "caseless") == 0)
                        s->caseless = true;
                    else
                        error_at(c, fl, "unknown flag (known: caseless)");
                }
            }
        }
        const ldxi_ynode *pn = ldxi_ymap_get(v, "pattern");
        if (!pn || pn->kind != LDXI_YSCALAR || !*pn->str) {
            error_at(c, pn ? pn : v, "signal '%s' needs a non-empty 'pattern' string", s->name);
            continue;
        }
        s->pattern = trim_end(c, pn->str);
        s->line = pn->line;
        s->col = pn->col;
        bool compiled = compile_signal(c, pn, s, &sc[i], rid);
        load_where(c, v, s, &sc[i], rid, compiled);
        load_lookup(c, v, s);
        r->total_weight += s->weight;
    }
    if (!symptoms) error_at(c, sigs, "a rule needs at least one signal with role 'symptom'");
    r->info.signals = si;
    r->info.nsignals = n;
    r->sigs = sc;
}

/* The then() or after() call that counts with tracker t. */
static const ldxi_cond *tracker_node(const ldxi_cond *n, int t)
{
    if (!n) return NULL;
    if (n->kind == LDXI_C_FUNC && (n->func == LDXI_F_THEN || n->func == LDXI_F_AFTER) && n->track == t)
        return n;
    const ldxi_cond *l = tracker_node(n->l, t);
    return l ? l : tracker_node(n->r, t);
}

/* What a condition over the rule's signals may name: each signal and its captures (the
 * caller frees the array). NULL when out of memory. */
static ldxi_cond_sig *cond_sigs(const ldxi_rule *r)
{
    size_t n = r->info.nsignals;
    ldxi_cond_sig *cs = calloc(n ? n : 1, sizeof(*cs));
    for (size_t i = 0; cs && i < n; i++) {
        cs[i].name = r->info.signals[i].name;
        cs[i].caps = r->sigs[i].capnames;
        cs[i].ncaps = r->sigs[i].ncaps;
    }
    return cs;
}

/* fix: [text, or {text, when: COND} / {text, unless: COND}]: COND is a condition over the
 * rule's signals, as `condition` is, read on the log at hand: a step `when` it holds
 * comes first, one `unless` it holds is left out. Sequences (then, after) are counted
 * while scanning, for the rule's condition only, so a step cannot use them. */
static void load_fix(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *n = ldxi_ymap_get(root, "fix");
    if (!n || n->kind != LDXI_YSEQ || !r->info.fix.n) return; /* said by strlist */
    bool any = false;
    for (size_t i = 0; i < n->n; i++) any |= n->items[i]->kind == LDXI_YMAP;
    if (!any) return;
    size_t nf = r->info.fix.n;
    const char **src = ldxi_arena_alloc(c->arena, nf * sizeof(*src));
    bool *unless = ldxi_arena_alloc(c->arena, nf * sizeof(*unless));
    ldxi_cond **conds = ldxi_arena_alloc(c->arena, nf * sizeof(*conds));
    size_t ns = r->info.nsignals;
    ldxi_cond_sig *cs = cond_sigs(r);
    if (!src || !unless || !conds || !cs) {
        free(cs);
        return;
    }
    memset(src, 0, nf * sizeof(*src));
    memset(unless, 0, nf * sizeof(*unless));
    memset(conds, 0, nf * sizeof(*conds));
    /* i walks the items, k the steps strlist kept (it left out the ones it said were bad) */
    for (size_t j = 0, k = 0; j < n->n && k < nf; j++) {
        const ldxi_ynode *it = n->items[j];
        const ldxi_ynode *t = it->kind == LDXI_YMAP ? ldxi_ymap_get(it, "text") : NULL;
        bool kept = it->kind == LDXI_YMAP ? t && t->kind == LDXI_YSCALAR && *t->str
                                          : it->kind == LDXI_YSCALAR && *it->str;
        if (!kept) continue;
        size_t i = k++;
        if (it->kind != LDXI_YMAP) continue;
        check_keys(c, it, fix_keys, "fix");
        const ldxi_ynode *w = ldxi_ymap_get(it, "when"), *u = ldxi_ymap_get(it, "unless");
        if ((w != NULL) == (u != NULL)) {
            error_at(c, it, "a fix step that is a mapping takes one of 'when' and 'unless'");
            continue;
        }
        const ldxi_ynode *cn = w ? w : u;
        if (cn->kind != LDXI_YSCALAR || !*cn->str) {
            error_at(c, cn, "fix: '%s' must be a non-empty condition", w ? "when" : "unless");
            continue;
        }
        char err[256];
        size_t off = 0;
        src[i] = trim_end(c, cn->str);
        unless[i] = u != NULL;
        if (ldxi_cond_parse(src[i], cs, ns, c->arena, &conds[i], &off, err, sizeof err) != LDX_OK) {
            ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, cn->line,
                         cn->quoted == 2 ? cn->col : col_of(cn, off), "fix: %s: %s",
                         w ? "when" : "unless", err);
            c->errors++;
            continue;
        }
        ldxi_tracker *tr = NULL;
        if (ldxi_cond_trackers(conds[i], c->arena, &tr)) {
            error_at(c, cn, "fix: then() and after() are counted for the rule's condition only; "
                            "a step's condition cannot use them");
            conds[i] = NULL;
        }
    }
    free(cs);
    r->info.fix_cond = src;
    r->info.fix_unless = unless;
    r->fix_conds = conds;
}

static void load_condition(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *cn = ldxi_ymap_get(root, "condition");
    if (!cn) return;
    if (cn->kind != LDXI_YSCALAR || !*cn->str) {
        error_at(c, cn, "'condition' must be a non-empty string");
        return;
    }
    r->info.condition = trim_end(c, cn->str);
    size_t n = r->info.nsignals;
    ldxi_cond_sig *cs = cond_sigs(r);
    if (!cs) return;
    char err[256];
    size_t off = 0;
    if (ldxi_cond_parse(r->info.condition, cs, n, c->arena, &r->cond, &off, err,
                        sizeof err) != LDX_OK) {
        ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, cn->line,
                     cn->quoted == 2 ? cn->col : col_of(cn, off), "condition: %s", err);
        c->errors++;
    } else {
        r->ntrackers = ldxi_cond_trackers(r->cond, c->arena, &r->trackers);
        for (size_t t = 0; t < r->ntrackers; t++) {
            const ldxi_tracker *tr = &r->trackers[t];
            r->trackers_timed |= tr->seconds != 0;
            int tail = r->info.signals[tr->a].tail ? tr->a : r->info.signals[tr->b].tail ? tr->b : -1;
            if (tail < 0) continue;
            /* a tail signal is matched once the log has ended, not line by line in order
             * with the others, so a sequence that counts it cannot be followed */
            const ldxi_cond *at = tracker_node(r->cond, (int)t);
            ldx_msgs_add(c->msgs, LDX_MSG_ERROR, c->path, cn->line,
                         cn->quoted == 2 || !at ? cn->col : col_of(cn, at->off),
                         "condition: %s() cannot use signal '%s': it has a tail",
                         tr->kind == LDXI_F_THEN ? "then" : "after", r->info.signals[tail].name);
            c->errors++;
        }
    }
    free(cs);
}

/* The captures a condition reads as numbers (max(mem.bytes), rising(loss.v, 3)), and
 * those whose jump it reads (LDXI_NUM_JUMP: the series keeps its recent readings). */
static void cond_numbers(const ldxi_cond *n, ldxi_rule *r)
{
    if (!n) return;
    if (n->kind == LDXI_C_FUNC && n->cap >= 0 && r->sigs[n->sig].numbered)
        r->sigs[n->sig].numbered[n->cap] |=
            n->func == LDXI_F_JUMP_FROM || n->func == LDXI_F_JUMP_TO || n->func == LDXI_F_JUMP_NEXT
                ? LDXI_NUM_READ | LDXI_NUM_JUMP
                : LDXI_NUM_READ;
    cond_numbers(n->l, r);
    cond_numbers(n->r, r);
}

/* The captures a where reads. */
static void where_numbers(const ldxi_cond *n, ldxi_sigc *sc)
{
    if (!n) return;
    if (n->kind == LDXI_C_CAP) sc->numbered[n->cap] |= LDXI_NUM_READ;
    where_numbers(n->l, sc);
    where_numbers(n->r, sc);
}

static void mark_numbers(ctx *c, ldxi_rule *r)
{
    for (size_t k = 0; r->sigs && k < r->info.nsignals; k++) {
        ldxi_sigc *sc = &r->sigs[k];
        if (!sc->ncaps) continue;
        sc->numbered = ldxi_arena_alloc(c->arena, sc->ncaps);
        if (!sc->numbered) return;
        memset(sc->numbered, 0, sc->ncaps);
        where_numbers(sc->where, sc);
    }
    cond_numbers(r->cond, r);
    for (size_t i = 0; r->fix_conds && i < r->info.fix.n; i++) cond_numbers(r->fix_conds[i], r);
}

static void load_symptoms(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *sn = ldxi_ymap_get(root, "symptoms");
    if (!sn) {
        error_at(c, root, "missing required key 'symptoms'");
        return;
    }
    if (sn->kind != LDXI_YSEQ || sn->n == 0) {
        error_at(c, sn, "'symptoms' must be a non-empty list of {symptom, why}");
        return;
    }
    ldx_symptom *v = ldxi_arena_alloc(c->arena, sn->n * sizeof(*v));
    if (!v) return;
    for (size_t i = 0; i < sn->n; i++) {
        const ldxi_ynode *it = sn->items[i];
        v[i].symptom = v[i].why = NULL;
        if (it->kind != LDXI_YMAP) {
            error_at(c, it, "each symptom is a mapping {symptom: ..., why: ...}");
            continue;
        }
        check_keys(c, it, symptom_keys, "symptom");
        v[i].symptom = trim_end(c, scalar(c, it, "symptom", 1));
        v[i].why = trim_end(c, scalar(c, it, "why", 1));
    }
    r->info.symptoms = v;
    r->info.nsymptoms = sn->n;
}

/* Line of each (valid) item of a list, to point at a failing example. */
static const unsigned *item_lines(ctx *c, const ldxi_ynode *map, const char *key, size_t n)
{
    const ldxi_ynode *seq = ldxi_ymap_get(map, key);
    unsigned *v = ldxi_arena_alloc(c->arena, (n ? n : 1) * sizeof(unsigned));
    if (!v || !seq || seq->kind != LDXI_YSEQ) return v;
    size_t k = 0;
    for (size_t i = 0; i < seq->n && k < n; i++)
        if (seq->items[i]->kind == LDXI_YSCALAR && *seq->items[i]->str)
            /* a block scalar's text starts on the line after its '|' or '>' */
            v[k++] = seq->items[i]->line + (seq->items[i]->quoted == 2);
    return v;
}

/* "600 lines", "90 s", "10 min", "2 h" */
static bool parse_within(const char *s, double *v, bool *seconds)
{
    char *end;
    double d = strtod(s, &end);
    if (end == s || !(d > 0)) return false;
    while (*end == ' ') end++;
    double mul;
    if (!ldxi_window_unit(end, &mul, seconds)) return false;
    *v = d * mul;
    return true;
}

/* caused_by: a list of classes or rule ids, each optionally a mapping
 * {cause: X, order: auto|any|earlier, within: "600 lines" | "10 min"}. */
static void load_causes(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *n = ldxi_ymap_get(root, "caused_by");
    if (!n) return;
    if (n->kind != LDXI_YSEQ) {
        error_at(c, n, "'caused_by' must be a list of classes or rule ids");
        return;
    }
    const char **names = ldxi_arena_alloc(c->arena, (n->n ? n->n : 1) * sizeof(char *));
    ldxi_cause *causes = ldxi_arena_alloc(c->arena, (n->n ? n->n : 1) * sizeof(ldxi_cause));
    if (!names || !causes) return;
    size_t k = 0;
    for (size_t i = 0; i < n->n; i++) {
        const ldxi_ynode *it = n->items[i];
        ldxi_cause cs = {.order = LDXI_ORDER_AUTO};
        if (it->kind == LDXI_YSCALAR && *it->str) {
            cs.name = c->keep ? it->str : ldxi_arena_strndup(c->arena, it->str, it->len);
        } else if (it->kind == LDXI_YMAP) {
            check_keys(c, it, cause_keys, "caused_by");
            cs.name = scalar(c, it, "cause", 1);
            const char *ord = scalar(c, it, "order", 0);
            if (ord) {
                if (!strcmp(ord, "auto")) cs.order = LDXI_ORDER_AUTO;
                else if (!strcmp(ord, "any")) cs.order = LDXI_ORDER_ANY;
                else if (!strcmp(ord, "earlier")) cs.order = LDXI_ORDER_EARLIER;
                else error_at(c, ldxi_ymap_get(it, "order"), "order must be auto, any or earlier");
            }
            const char *w = scalar(c, it, "within", 0);
            if (w && !parse_within(w, &cs.within, &cs.within_seconds))
                error_at(c, ldxi_ymap_get(it, "within"),
                         "within must be like \"600 lines\", \"90 s\", \"10 min\" or \"2 h\"");
        } else {
            error_at(c, it, "items of 'caused_by' are classes, rule ids or {cause: ..., order: ..., within: ...}");
            continue;
        }
        if (!cs.name) continue;
        names[k] = cs.name;
        causes[k++] = cs;
    }
    r->info.caused_by.v = names;
    r->info.caused_by.n = k;
    r->causes = causes;
}

/* advice: [{when: "deepspeed < 0.13.0", text: "..."}] */
static void load_advice(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *n = ldxi_ymap_get(root, "advice");
    if (!n) return;
    if (n->kind != LDXI_YSEQ) {
        error_at(c, n, "'advice' must be a list of {when: ..., text: ...}");
        return;
    }
    ldx_advice *v = ldxi_arena_alloc(c->arena, (n->n ? n->n : 1) * sizeof(*v));
    ldxi_when *w = ldxi_arena_alloc(c->arena, (n->n ? n->n : 1) * sizeof(*w));
    if (!v || !w) return;
    size_t k = 0;
    for (size_t i = 0; i < n->n; i++) {
        const ldxi_ynode *it = n->items[i];
        if (it->kind != LDXI_YMAP) {
            error_at(c, it, "each advice is a mapping {when: ..., text: ...}");
            continue;
        }
        check_keys(c, it, advice_keys, "advice");
        const char *when = scalar(c, it, "when", 1), *text = trim_end(c, scalar(c, it, "text", 1));
        if (!when || !text) continue;
        char err[200];
        if (!ldxi_when_parse(when, &w[k], err, sizeof err)) {
            error_at(c, ldxi_ymap_get(it, "when"), "advice: %s", err);
            continue;
        }
        v[k].when = when;
        v[k].text = text;
        k++;
    }
    r->info.advice = v;
    r->info.nadvice = k;
    r->whens = w;
}

static void load_examples(ctx *c, const ldxi_ynode *root, ldxi_rule *r)
{
    const ldxi_ynode *en = ldxi_ymap_get(root, "examples");
    if (!en) {
        error_at(c, root, "missing required key 'examples' (match and no_match)");
        return;
    }
    if (en->kind != LDXI_YMAP) {
        error_at(c, en, "'examples' must be a mapping with 'match' and 'no_match'");
        return;
    }
    check_keys(c, en, example_keys, "examples");
    r->info.ex_match = strlist(c, en, "match", 1, 1);
    r->info.ex_no_match = strlist(c, en, "no_match", 1, 1);
    r->info.ex_match_line = item_lines(c, en, "match", r->info.ex_match.n);
    r->info.ex_no_match_line = item_lines(c, en, "no_match", r->info.ex_no_match.n);
}

static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

ldxi_rule *ldxi_rule_load(const ldxi_ynode *root, const char *path, bool builtin,
                          bool keep_strings, const ldxi_fragments *frags, ldx_arena *arena,
                          ldx_msgs *msgs)
{
    ctx c = {.path = path, .arena = arena, .msgs = msgs, .builtin = builtin,
             .keep = keep_strings, .frags = frags};
    if (root->kind != LDXI_YMAP) {
        error_at(&c, root, "a rule file is a mapping (id:, title:, class:, ...)");
        return NULL;
    }
    ldxi_rule *r = calloc(1, sizeof(*r));
    if (!r) return NULL;
    ldx_rule_info *ri = &r->info;
    ri->path = ldxi_arena_strdup(arena, path);
    ri->builtin = builtin;
    check_keys(&c, root, top_keys, "rule");

    ri->id = scalar(&c, root, "id", 1);
    if (ri->id && !is_kebab(ri->id))
        error_at(&c, ldxi_ymap_get(root, "id"),
                 "id '%s' must be kebab-case (lower-case words joined by '-')", ri->id);
    if (ri->id) {
        const char *b = basename_of(path);
        size_t il = strlen(ri->id);
        if (!(strncmp(b, ri->id, il) == 0 &&
              (strcmp(b + il, ".yaml") == 0 || strcmp(b + il, ".yml") == 0)) &&
            strchr(path, '/')) {
            ldx_msgs_add(msgs, LDX_MSG_WARNING, path, 1, 1,
                         "file name should be '%s.yaml' to match the rule id", ri->id);
        }
    }
    ri->title = trim_end(&c, scalar(&c, root, "title", 1));
    ri->klass = scalar(&c, root, "class", 1);
    const char *tcat = NULL;
    ldx_severity tsev = LDX_SEV_MEDIUM;
    if (ri->klass && !ldx_taxonomy_lookup(ri->klass, &tcat, &tsev, NULL)) {
        const char *best = NULL;
        size_t bestd = 4;
        for (size_t t = 0; t < ldx_taxonomy_count(); t++) {
            size_t d = ldxi_edit_distance(ldx_taxonomy_class(t), ri->klass);
            if (d < bestd) bestd = d, best = ldx_taxonomy_class(t);
        }
        if (best)
            error_at(&c, ldxi_ymap_get(root, "class"),
                     "unknown class '%s' (did you mean '%s'? logdx rules classes lists them)",
                     ri->klass, best);
        else
            error_at(&c, ldxi_ymap_get(root, "class"),
                     "unknown class '%s' (logdx rules classes lists them)", ri->klass);
    }
    ri->category = scalar(&c, root, "category", 0);
    if (ri->category && tcat && strcmp(ri->category, tcat) != 0)
        error_at(&c, ldxi_ymap_get(root, "category"),
                 "category '%s' does not match class '%s' (its category is '%s')",
                 ri->category, ri->klass, tcat);
    if (!ri->category) ri->category = tcat ? tcat : "unknown";
    const char *sev = scalar(&c, root, "severity", 1);
    ri->severity = tsev;
    if (sev) {
        int s = ldx_severity_parse(sev);
        if (s < 0)
            error_at(&c, ldxi_ymap_get(root, "severity"),
                     "severity must be critical, high, medium, low or info");
        else
            ri->severity = (ldx_severity)s;
    }
    const char *level = scalar(&c, root, "level", 0);
    if (level && !strcmp(level, "concept"))
        ri->level = LDX_LEVEL_CONCEPT;
    else if (level && strcmp(level, "specific"))
        error_at(&c, ldxi_ymap_get(root, "level"), "level must be specific or concept");
    ri->tags = strlist(&c, root, "tags", 0, 0);
    ri->affects = strlist(&c, root, "affects", 0, 0);
    ri->related = strlist(&c, root, "related", 0, 0);
    load_causes(&c, root, r);
    ri->summary = trim_end(&c, scalar(&c, root, "summary", 1));
    ri->root_cause = trim_end(&c, scalar(&c, root, "root_cause", 1));
    ri->fix = strlist(&c, root, "fix", 1, 1);
    ri->verify = strlist(&c, root, "verify", 1, 1);
    ri->references = strlist(&c, root, "references", 1, 1);
    const ldxi_ynode *refs = ldxi_ymap_get(root, "references");
    for (size_t i = 0; i < ri->references.n; i++)
        if (strncmp(ri->references.v[i], "https://", 8) != 0 &&
            strncmp(ri->references.v[i], "http://", 7) != 0)
            error_at(&c, refs, "reference '%s' is not a URL", ri->references.v[i]);
    load_symptoms(&c, root, r);
    load_signals(&c, root, r);
    load_condition(&c, root, r);
    load_fix(&c, root, r);
    mark_numbers(&c, r);
    load_examples(&c, root, r);
    load_advice(&c, root, r);

    if (c.errors) {
        ldxi_rule_free(r);
        return NULL;
    }
    return r;
}

void ldxi_rule_free(ldxi_rule *r)
{
    if (!r) return;
    for (size_t i = 0; r->sigs && i < r->info.nsignals; i++) {
        ldxi_sig_free_code(&r->sigs[i]);
        free(r->sigs[i].req);
    }
    free(r);
}

/* The where a lookup's only adds: the capture equals one of the keys whose rows hold
 * the values ("code == 48 or code == 63"), and the signal's own where. */
static char *only_where(const ldx_signal_info *si, const ldx_table_info *t, long col)
{
    ldx_buf b;
    ldxi_buf_init(&b, 1 << 20);
    bool any = false;
    if (si->where) {
        ldxi_buf_append(&b, "(", 1);
        ldxi_buf_append(&b, si->where, strlen(si->where));
        ldxi_buf_append(&b, ") and (", 7);
    }
    for (size_t r = 0; r < t->nrows; r++) {
        const char *cell = t->cells[r * t->ncolumns + (size_t)col];
        bool in = false;
        for (size_t k = 0; k < si->only_values.n && !in; k++) in = !strcmp(cell, si->only_values.v[k]);
        if (!in) continue;
        const char *key = t->cells[r * t->ncolumns + t->key];
        if (any) ldxi_buf_append(&b, " or ", 4);
        ldxi_buf_append(&b, si->lookup_capture, strlen(si->lookup_capture));
        ldxi_buf_append(&b, " == ", 4);
        ldxi_buf_append(&b, key, strlen(key));
        any = true;
    }
    if (!any) {
        ldxi_buf_free(&b);
        return NULL;
    }
    if (si->where) ldxi_buf_append(&b, ")", 1);
    ldxi_buf_append(&b, "", 1);
    return b.data;
}

bool ldxi_rule_link_tables(ldxi_rule *r, ldx_table_info *const *tables, size_t ntables,
                           ldx_arena *arena, ldx_msgs *msgs)
{
    bool ok = true;
    for (size_t k = 0; k < r->info.nsignals; k++) {
        ldx_signal_info *si = (ldx_signal_info *)&r->info.signals[k];
        ldxi_sigc *sc = &r->sigs[k];
        if (!si->lookup_table || !si->lookup_capture) continue;
        const char *path = r->info.path;
        const ldx_table_info *t = NULL;
        for (size_t i = 0; i < ntables && !t; i++)
            if (!strcmp(tables[i]->name, si->lookup_table)) t = tables[i];
        if (!t) {
            ldx_msgs_add(msgs, LDX_MSG_ERROR, path, si->lookup_line, si->lookup_col,
                         "rule '%s', signal '%s': lookup: no table '%s' (tables are "
                         "rules/tables/<name>.yaml)", r->info.id, si->name, si->lookup_table);
            ok = false;
            continue;
        }
        long cap = -1;
        for (size_t i = 0; i < sc->ncaps && cap < 0; i++)
            if (!strcmp(sc->capnames[i], si->lookup_capture)) cap = (long)i;
        if (cap < 0) {
            ldx_msgs_add(msgs, LDX_MSG_ERROR, path, si->lookup_line, si->lookup_col,
                         "rule '%s', signal '%s': lookup: the pattern has no capture '%s'",
                         r->info.id, si->name, si->lookup_capture);
            ok = false;
            continue;
        }
        sc->table = t;
        sc->lookup_cap = (size_t)cap;
        if (!si->only_column) continue;
        long col = -1;
        for (size_t i = 0; i < t->ncolumns && col < 0; i++)
            if (!strcmp(t->columns[i], si->only_column)) col = (long)i;
        const char *why = col < 0 ? "the table has no such column"
                          : !t->numeric ? "only works on tables whose keys are numbers"
                                        : NULL;
        char *text = why ? NULL : only_where(si, t, col);
        if (!why && !text) why = "no row holds that value";
        if (why) {
            ldx_msgs_add(msgs, LDX_MSG_ERROR, path, si->lookup_line, si->lookup_col,
                         "rule '%s', signal '%s': lookup: only %s: %s", r->info.id, si->name,
                         si->only_column, why);
            ok = false;
            continue;
        }
        char err[256];
        size_t off = 0;
        ldxi_cond *w;
        if (ldxi_where_parse(text, sc->capnames, sc->ncaps, arena, &w, &off, err, sizeof err) !=
            LDX_OK) {
            ldx_msgs_add(msgs, LDX_MSG_ERROR, path, si->lookup_line, si->lookup_col,
                         "rule '%s', signal '%s': lookup: %s", r->info.id, si->name, err);
            free(text);
            ok = false;
            continue;
        }
        si->where = ldxi_arena_strdup(arena, text);
        free(text);
        sc->where = w;
        sc->clauses = NULL;
        sc->nclauses = 0;
        ldxi_clause *cl;
        if (ldxi_where_clauses(sc->where, arena, &cl, &sc->nclauses)) sc->clauses = cl;
        if (sc->numbered) where_numbers(sc->where, sc);
    }
    return ok;
}
