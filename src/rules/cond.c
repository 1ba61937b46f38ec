/* Recursive-descent parser and evaluator for rule conditions. The grammar:
 *
 *   expr   := and ('or' and)*
 *   and    := not ('and' not)*
 *   not    := 'not' not | cmp
 *   cmp    := sum (('>'|'>='|'<'|'<='|'=='|'!=') sum)?
 *   sum    := prod (('+'|'-') prod)*
 *   prod   := term (('*'|'/') term)*
 *   term   := NUMBER UNIT? | '(' expr ')' | NAME | FUNC '(' args ')'
 *
 * A missing number is NaN, and every comparison involving NaN is false, so a rule that
 * asks about values never seen simply does not fire. Arithmetic on NaN stays NaN, and
 * a division by zero gives NaN too. */
#include "cond.h"

#include <ctype.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *src;
    size_t pos;
    const ldxi_cond_sig *sigs;
    size_t nsigs;
    ldx_arena *arena;
    char *err;
    size_t errsize;
    size_t err_off;
    int failed;
    int depth;
    int ntrack;
    size_t nodes;
    /* a where: bare names are these captures of the line, and there are no functions */
    const char *const *caps;
    size_t ncaps;
    bool where;
} parser;

static const struct {
    const char *name;
    ldxi_func f;
    /* 0: (sig)  1: (sig.cap)  2: (sig.cap, N)  3: (sig, sig)  4: ()
     * 5: (sig, sig, N lines|N s) */
    int kind;
} funcs[] = {
    {"count", LDXI_F_COUNT, 0},    {"ranks", LDXI_F_RANKS, 0},   {"max", LDXI_F_MAX, 1},
    {"min", LDXI_F_MIN, 1},        {"first", LDXI_F_FIRST, 1},   {"last", LDXI_F_LAST, 1},
    {"sum", LDXI_F_SUM, 1},        {"avg", LDXI_F_AVG, 1},       {"points", LDXI_F_POINTS, 1},
    {"rising", LDXI_F_RISING, 2},  {"falling", LDXI_F_FALLING, 2}, {"flat", LDXI_F_FLAT, 2},
    {"growth", LDXI_F_GROWTH, 1},  {"jump_from", LDXI_F_JUMP_FROM, 1},
    {"jump_to", LDXI_F_JUMP_TO, 1}, {"jump_next", LDXI_F_JUMP_NEXT, 1}, {"before", LDXI_F_BEFORE, 3},
    {"then", LDXI_F_THEN, 5},      {"after", LDXI_F_AFTER, 3},   {"others", LDXI_F_OTHERS, 3},
    {"first_line", LDXI_F_FIRST_LINE, 0}, {"last_line", LDXI_F_LAST_LINE, 0},
    {"lines", LDXI_F_LINES, 4},
};

#define LDXI_STR_(x) #x
#define LDXI_STR(x) LDXI_STR_(x)

static void fail(parser *p, size_t off, const char *fmt, const char *arg)
{
    if (p->failed) return;
    p->failed = 1;
    p->err_off = off;
    snprintf(p->err, p->errsize, fmt, arg ? arg : "");
}

static void skip_ws(parser *p)
{
    while (isspace((unsigned char)p->src[p->pos])) p->pos++;
}

static ldxi_cond *node(parser *p, ldxi_ckind kind, size_t off)
{
    if (++p->nodes > LDXI_COND_MAX_NODES) {
        fail(p, off, "condition too large: more than " LDXI_STR(LDXI_COND_MAX_NODES)
                     " terms%s", NULL);
        return NULL;
    }
    ldxi_cond *c = ldxi_arena_alloc(p->arena, sizeof(*c));
    if (!c) {
        fail(p, off, "out of memory%s", NULL);
        return NULL;
    }
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->off = (unsigned)off;
    c->cap = -1;
    c->sig2 = -1;
    c->height = 1;
    return c;
}

/* Every walk over a condition recurses on its operands, and a chain of `and`, `or`,
 * `+` or `*` builds one level per operand, so the tree's height is bounded here (as
 * well as the parser's nesting): no walk can then run a scan thread out of stack. */
static ldxi_cond *join(parser *p, ldxi_ckind kind, size_t off, ldxi_cond *l, ldxi_cond *r)
{
    unsigned h = 1 + (l->height > (r ? r->height : 0) ? l->height : r->height);
    if (h > LDXI_COND_MAX_HEIGHT) {
        fail(p, off, "condition too long: over " LDXI_STR(LDXI_COND_MAX_HEIGHT)
                     " operands in a chain or levels of nesting%s", NULL);
        return NULL;
    }
    ldxi_cond *c = node(p, kind, off);
    if (!c) return NULL;
    c->l = l;
    c->r = r;
    c->height = h;
    return c;
}

/* Reads an identifier into buf; returns its length (0 if none). */
static size_t ident(parser *p, char *buf, size_t size)
{
    size_t n = 0;
    const char *s = p->src + p->pos;
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(buf, s, k);
    buf[k] = '\0';
    p->pos += n;
    return n;
}

static int is_word(parser *p, const char *w)
{
    size_t n = strlen(w);
    const char *s = p->src + p->pos;
    return strncmp(s, w, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_' &&
           s[n] != '.';
}

static int find_sig(parser *p, const char *name)
{
    for (size_t i = 0; i < p->nsigs; i++)
        if (strcmp(p->sigs[i].name, name) == 0) return (int)i;
    return -1;
}

static int sig_ref(parser *p, int *sig)
{
    char name[128];
    size_t off = p->pos;
    if (!ident(p, name, sizeof name)) {
        fail(p, off, "expected a signal name%s", NULL);
        return 0;
    }
    *sig = find_sig(p, name);
    if (*sig < 0) {
        fail(p, off, "unknown signal '%s'", name);
        return 0;
    }
    return 1;
}

static int cap_ref(parser *p, int *sig, int *cap)
{
    size_t off = p->pos;
    if (!sig_ref(p, sig)) return 0;
    if (p->src[p->pos] != '.') {
        fail(p, off, "expected signal.capture (a named capture read as a number)%s", NULL);
        return 0;
    }
    p->pos++;
    char name[128];
    size_t coff = p->pos;
    if (!ident(p, name, sizeof name)) {
        fail(p, coff, "expected a capture name after '.'%s", NULL);
        return 0;
    }
    const ldxi_cond_sig *s = &p->sigs[*sig];
    for (size_t i = 0; i < s->ncaps; i++)
        if (strcmp(s->caps[i], name) == 0) {
            *cap = (int)i;
            return 1;
        }
    fail(p, coff, "signal has no named capture '%s'", name);
    return 0;
}

static int expect(parser *p, char c)
{
    skip_ws(p);
    if (p->src[p->pos] != c) {
        char s[2] = {c, 0};
        fail(p, p->pos, "expected '%s'", s);
        return 0;
    }
    p->pos++;
    return 1;
}

static int number(parser *p, double *out)
{
    const char *s = p->src + p->pos;
    size_t n = 0;
    while (isdigit((unsigned char)s[n]) || s[n] == '.') n++;
    if ((s[n] == 'e' || s[n] == 'E') &&
        (isdigit((unsigned char)s[n + 1]) ||
         ((s[n + 1] == '-' || s[n + 1] == '+') && isdigit((unsigned char)s[n + 2])))) {
        n += 2;
        while (isdigit((unsigned char)s[n])) n++;
    }
    while (isalpha((unsigned char)s[n])) n++;
    if (!ldxi_parse_quantity(s, n, out)) {
        char tok[64];
        snprintf(tok, sizeof tok, "%.*s", (int)(n < 60 ? n : 60), s);
        fail(p, p->pos, "bad number '%s' (units: B, KB, MB, GB, KiB, MiB, GiB, K, M, G)", tok);
        return 0;
    }
    p->pos += n;
    return 1;
}

static ldxi_cond *parse_expr(parser *p);

/* then()'s window: ", 50 lines" or ", 90 s" / "10 min" */
static int window(parser *p, ldxi_cond *f)
{
    if (!expect(p, ',')) return 0;
    skip_ws(p);
    const char *s = p->src + p->pos;
    size_t off = p->pos, n = 0;
    while (isdigit((unsigned char)s[n]) || s[n] == '.') n++;
    char *end;
    double v = strtod(s, &end);
    if (!n || end != s + n || !(v > 0)) {
        fail(p, off, "expected a window such as '50 lines' or '90 s'%s", NULL);
        return 0;
    }
    p->pos += n;
    skip_ws(p);
    char unit[16];
    size_t uoff = p->pos;
    if (!ident(p, unit, sizeof unit)) {
        fail(p, uoff, "give the window a unit: lines, s, min or h%s", NULL);
        return 0;
    }
    double mul;
    bool seconds;
    if (!ldxi_window_unit(unit, &mul, &seconds)) {
        fail(p, uoff, "unknown window unit '%s' (lines, s, min, h)", unit);
        return 0;
    }
    f->seconds = seconds;
    f->num = v * mul;
    return 1;
}

bool ldxi_window_unit(const char *unit, double *mul, bool *seconds)
{
    static const struct {
        const char *name;
        double mul;
        bool seconds;
    } units[] = {{"lines", 1, false}, {"line", 1, false},   {"s", 1, true},
                 {"sec", 1, true},    {"seconds", 1, true}, {"min", 60, true},
                 {"minutes", 60, true}, {"h", 3600, true},  {"hours", 3600, true}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strcmp(unit, units[i].name)) {
            *mul = units[i].mul;
            *seconds = units[i].seconds;
            return true;
        }
    return false;
}

/* A bare name in a where: one of the line's captures. */
static ldxi_cond *capture(parser *p, const char *name, size_t off)
{
    char c = p->src[p->pos];
    if (c == '(' || c == '.') {
        fail(p, off, c == '(' ? "a where tests one line: its captures and numbers, no "
                                "functions such as '%s()' (those go in the rule's condition)"
                              : "a where names the signal's own captures bare: '%s', not "
                                "signal.capture",
             name);
        return NULL;
    }
    for (size_t i = 0; i < p->ncaps; i++)
        if (strcmp(p->caps[i], name) == 0) {
            ldxi_cond *n = node(p, LDXI_C_CAP, off);
            if (n) n->cap = (int)i;
            return n;
        }
    fail(p, off, "the pattern has no named capture '%s'", name);
    return NULL;
}

static ldxi_cond *parse_term(parser *p)
{
    skip_ws(p);
    size_t off = p->pos;
    char c = p->src[off];
    if (c == '(') {
        p->pos++;
        ldxi_cond *e = parse_expr(p);
        if (!e || !expect(p, ')')) return NULL;
        return e;
    }
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)p->src[off + 1]))) {
        ldxi_cond *n = node(p, LDXI_C_NUM, off);
        if (!n || !number(p, &n->num)) return NULL;
        return n;
    }
    char name[128];
    if (!ident(p, name, sizeof name)) {
        if (!c)
            fail(p, off, "unexpected end of condition%s", NULL);
        else
            fail(p, off, "unexpected '%.1s'", p->src + off);
        return NULL;
    }
    skip_ws(p);
    if (p->where) return capture(p, name, off);
    if (p->src[p->pos] == '(') {
        for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
            if (strcmp(funcs[i].name, name) != 0) continue;
            p->pos++;
            skip_ws(p);
            ldxi_cond *f = node(p, LDXI_C_FUNC, off);
            if (!f) return NULL;
            f->func = funcs[i].f;
            f->track = -1;
            int kind = funcs[i].kind;
            if (kind != 4) {
                int ok = kind == 1 || kind == 2 ? cap_ref(p, &f->sig, &f->cap)
                                                : sig_ref(p, &f->sig);
                if (!ok) return NULL;
            }
            if (kind == 2 || kind == 3 || kind == 5) {
                if (!expect(p, ',')) return NULL;
                skip_ws(p);
            }
            if (kind == 3 || kind == 5) {
                if (!sig_ref(p, &f->sig2)) return NULL;
            }
            if (kind == 2) {
                size_t noff = p->pos;
                if (!number(p, &f->num)) return NULL;
                if (f->num < 2 || f->num != floor(f->num)) {
                    fail(p, noff, "the number of points must be a whole number >= 2%s", NULL);
                    return NULL;
                }
            }
            if (kind == 5 && !window(p, f)) return NULL;
            if (f->func == LDXI_F_THEN || f->func == LDXI_F_AFTER) f->track = p->ntrack++;
            if (!expect(p, ')')) return NULL;
            return f;
        }
        fail(p, off, "unknown function '%s'", name);
        return NULL;
    }
    if (p->src[p->pos] == '.') {
        fail(p, off, "'%s.…' is a capture: use it inside max(), min(), last(), rising()…",
             name);
        return NULL;
    }
    int sig = find_sig(p, name);
    if (sig < 0) {
        fail(p, off, "unknown signal '%s'", name);
        return NULL;
    }
    ldxi_cond *s = node(p, LDXI_C_SIG, off);
    if (s) s->sig = sig;
    return s;
}

static ldxi_cond *arith(parser *p, const char *ops, ldxi_cond *(*sub)(parser *))
{
    ldxi_cond *l = sub(p);
    while (l) {
        skip_ws(p);
        char c = p->src[p->pos];
        if (!c || !strchr(ops, c)) break;
        size_t off = p->pos++;
        ldxi_cond *r = sub(p);
        if (!r) return NULL;
        ldxi_cond *n = join(p, LDXI_C_ARITH, off, l, r);
        if (!n) return NULL;
        n->aop = c;
        l = n;
    }
    return l;
}

static ldxi_cond *parse_prod(parser *p) { return arith(p, "*/", parse_term); }
static ldxi_cond *parse_sum(parser *p) { return arith(p, "+-", parse_prod); }

static ldxi_cond *parse_cmp(parser *p)
{
    ldxi_cond *l = parse_sum(p);
    if (!l) return NULL;
    skip_ws(p);
    const char *s = p->src + p->pos;
    ldxi_cop op;
    size_t n = 2;
    if (s[0] == '>' && s[1] == '=') op = LDXI_OP_GE;
    else if (s[0] == '<' && s[1] == '=') op = LDXI_OP_LE;
    else if (s[0] == '=' && s[1] == '=') op = LDXI_OP_EQ;
    else if (s[0] == '!' && s[1] == '=') op = LDXI_OP_NE;
    else if (s[0] == '>') op = LDXI_OP_GT, n = 1;
    else if (s[0] == '<') op = LDXI_OP_LT, n = 1;
    else if (s[0] == '=') {
        fail(p, p->pos, "use '==' to compare%s", NULL);
        return NULL;
    } else return l;
    size_t off = p->pos;
    p->pos += n;
    ldxi_cond *r = parse_sum(p);
    if (!r) return NULL;
    ldxi_cond *c = join(p, LDXI_C_CMP, off, l, r);
    if (!c) return NULL;
    c->op = op;
    return c;
}

static ldxi_cond *parse_not(parser *p)
{
    skip_ws(p);
    if (is_word(p, "not")) {
        size_t off = p->pos;
        p->pos += 3;
        if (++p->depth > 200) {
            fail(p, off, "condition nested too deeply%s", NULL);
            return NULL;
        }
        ldxi_cond *e = parse_not(p);
        p->depth--;
        if (!e) return NULL;
        return join(p, LDXI_C_NOT, off, e, NULL);
    }
    return parse_cmp(p);
}

static ldxi_cond *parse_binary(parser *p, const char *word, ldxi_ckind kind,
                               ldxi_cond *(*sub)(parser *))
{
    ldxi_cond *l = sub(p);
    while (l) {
        skip_ws(p);
        if (!is_word(p, word)) break;
        size_t off = p->pos;
        p->pos += strlen(word);
        ldxi_cond *r = sub(p);
        if (!r) return NULL;
        ldxi_cond *c = join(p, kind, off, l, r);
        if (!c) return NULL;
        l = c;
    }
    return l;
}

static ldxi_cond *parse_and(parser *p) { return parse_binary(p, "and", LDXI_C_AND, parse_not); }

static ldxi_cond *parse_expr(parser *p)
{
    if (++p->depth > 200) {
        fail(p, p->pos, "condition nested too deeply%s", NULL);
        return NULL;
    }
    ldxi_cond *e = parse_binary(p, "or", LDXI_C_OR, parse_and);
    p->depth--;
    return e;
}

static ldx_status parse(parser *pp, ldxi_cond **out, size_t *err_off)
{
    parser p = *pp;
    ldxi_cond *c = parse_expr(&p);
    if (c && !p.failed) {
        skip_ws(&p);
        if (p.src[p.pos]) {
            if (isalpha((unsigned char)p.src[p.pos]))
                fail(&p, p.pos, "expected 'and', 'or' or the end, found '%.20s'",
                     p.src + p.pos);
            else
                fail(&p, p.pos, "unexpected '%.1s'", p.src + p.pos);
        }
    }
    if (p.failed || !c) {
        if (!p.failed) fail(&p, p.pos, "invalid condition%s", NULL);
        *err_off = p.err_off;
        *out = NULL;
        return LDX_EPARSE;
    }
    *out = c;
    return LDX_OK;
}

ldx_status ldxi_cond_parse(const char *src, const ldxi_cond_sig *sigs, size_t nsigs,
                           ldx_arena *a, ldxi_cond **out, size_t *err_off, char *err,
                           size_t errsize)
{
    parser p = {.src = src, .sigs = sigs, .nsigs = nsigs, .arena = a, .err = err,
                .errsize = errsize};
    return parse(&p, out, err_off);
}

ldx_status ldxi_where_parse(const char *src, const char *const *caps, size_t ncaps,
                            ldx_arena *a, ldxi_cond **out, size_t *err_off, char *err,
                            size_t errsize)
{
    parser p = {.src = src, .arena = a, .err = err, .errsize = errsize, .caps = caps,
                .ncaps = ncaps, .where = true};
    return parse(&p, out, err_off);
}

int ldxi_cond_true(double v) { return !isnan(v) && v != 0.0; }

/* A comparison: false with a NaN. */
static bool compare(ldxi_cop op, double l, double r)
{
    if (isnan(l) || isnan(r)) return false;
    switch (op) {
    case LDXI_OP_GT: return l > r;
    case LDXI_OP_GE: return l >= r;
    case LDXI_OP_LT: return l < r;
    case LDXI_OP_LE: return l <= r;
    case LDXI_OP_EQ: return l == r;
    case LDXI_OP_NE: return l != r;
    }
    return false;
}

/* A comparison (1 or 0) or arithmetic (NaN stays NaN, x / 0 is NaN). */
static double binary(const ldxi_cond *c, double l, double r)
{
    if (c->kind == LDXI_C_CMP) return compare(c->op, l, r) ? 1.0 : 0.0;
    switch (c->aop) {
    case '+': return l + r;
    case '-': return l - r;
    case '*': return l * r;
    default: return r == 0.0 ? NAN : l / r;
    }
}

static double where_eval(const ldxi_cond *c, const double *vals)
{
    switch (c->kind) {
    case LDXI_C_NUM: return c->num;
    case LDXI_C_CAP: return vals[c->cap];
    case LDXI_C_NOT: return ldxi_cond_true(where_eval(c->l, vals)) ? 0.0 : 1.0;
    case LDXI_C_AND:
        return ldxi_cond_true(where_eval(c->l, vals)) && ldxi_cond_true(where_eval(c->r, vals));
    case LDXI_C_OR:
        return ldxi_cond_true(where_eval(c->l, vals)) || ldxi_cond_true(where_eval(c->r, vals));
    case LDXI_C_CMP:
    case LDXI_C_ARITH: return binary(c, where_eval(c->l, vals), where_eval(c->r, vals));
    default: return NAN; /* signals and functions are not parsed in a where */
    }
}

bool ldxi_where_true(const ldxi_cond *c, const double *vals)
{
    return ldxi_cond_true(where_eval(c, vals));
}

/* The comparison with its operands swapped: 3 < x is x > 3. */
static ldxi_cop swapped(ldxi_cop op)
{
    switch (op) {
    case LDXI_OP_GT: return LDXI_OP_LT;
    case LDXI_OP_GE: return LDXI_OP_LE;
    case LDXI_OP_LT: return LDXI_OP_GT;
    case LDXI_OP_LE: return LDXI_OP_GE;
    default: return op;
    }
}

/* Counts the clauses of an and-chain into out (when given); -1 if it is not one. */
static long clauses(const ldxi_cond *c, ldxi_clause *out)
{
    if (c->kind == LDXI_C_AND) {
        long l = clauses(c->l, out);
        long r = l < 0 ? -1 : clauses(c->r, out ? out + l : NULL);
        return r < 0 ? -1 : l + r;
    }
    if (c->kind != LDXI_C_CMP) return -1;
    const ldxi_cond *cap = c->l, *num = c->r;
    ldxi_cop op = c->op;
    if (cap->kind == LDXI_C_NUM && num->kind == LDXI_C_CAP) {
        cap = c->r;
        num = c->l;
        op = swapped(op);
    }
    if (cap->kind != LDXI_C_CAP || num->kind != LDXI_C_NUM) return -1;
    if (out) *out = (ldxi_clause){cap->cap, op, num->num};
    return 1;
}

bool ldxi_where_clauses(const ldxi_cond *c, ldx_arena *a, ldxi_clause **out, size_t *n)
{
    long k = clauses(c, NULL);
    *out = NULL;
    *n = 0;
    if (k <= 0 || !(*out = ldxi_arena_alloc(a, (size_t)k * sizeof(ldxi_clause)))) return false;
    clauses(c, *out);
    *n = (size_t)k;
    return true;
}

bool ldxi_clause_true(const ldxi_clause *cl, double v) { return compare(cl->op, v, cl->num); }

double ldxi_cond_eval(const ldxi_cond *c, const ldxi_cond_env *env)
{
    switch (c->kind) {
    case LDXI_C_NUM: return c->num;
    case LDXI_C_SIG: return env->count(env->ctx, c->sig);
    case LDXI_C_NOT: return ldxi_cond_true(ldxi_cond_eval(c->l, env)) ? 0.0 : 1.0;
    case LDXI_C_AND:
        return ldxi_cond_true(ldxi_cond_eval(c->l, env)) &&
                       ldxi_cond_true(ldxi_cond_eval(c->r, env))
                   ? 1.0
                   : 0.0;
    case LDXI_C_OR:
        return ldxi_cond_true(ldxi_cond_eval(c->l, env)) ||
                       ldxi_cond_true(ldxi_cond_eval(c->r, env))
                   ? 1.0
                   : 0.0;
    case LDXI_C_CMP:
    case LDXI_C_ARITH: return binary(c, ldxi_cond_eval(c->l, env), ldxi_cond_eval(c->r, env));
    case LDXI_C_CAP: return NAN; /* only in a where (where_eval) */
    case LDXI_C_FUNC:
        switch (c->func) {
        case LDXI_F_COUNT: return env->count(env->ctx, c->sig);
        case LDXI_F_RANKS: return env->ranks(env->ctx, c->sig);
        case LDXI_F_THEN:
        case LDXI_F_AFTER: return env->track(env->ctx, c->track);
        case LDXI_F_OTHERS: return env->others(env->ctx, c->sig, c->sig2);
        case LDXI_F_FIRST_LINE: return env->first_line(env->ctx, c->sig);
        case LDXI_F_LAST_LINE: return env->last_line(env->ctx, c->sig);
        case LDXI_F_LINES: return env->lines(env->ctx);
        case LDXI_F_BEFORE: {
            double a = env->first_line(env->ctx, c->sig), b = env->first_line(env->ctx, c->sig2);
            return (!isnan(a) && !isnan(b) && a < b) ? 1.0 : 0.0;
        }
        default: return env->stat(env->ctx, c->sig, c->cap, c->func, c->num);
        }
    }
    return NAN;
}

void ldxi_cond_signals(const ldxi_cond *c, void (*fn)(int sig, void *ctx), void *ctx)
{
    if (!c) return;
    if (c->kind == LDXI_C_SIG || (c->kind == LDXI_C_FUNC && c->func != LDXI_F_LINES))
        fn(c->sig, ctx);
    if (c->kind == LDXI_C_FUNC && c->sig2 >= 0) fn(c->sig2, ctx);
    ldxi_cond_signals(c->l, fn, ctx);
    ldxi_cond_signals(c->r, fn, ctx);
}

static void collect(const ldxi_cond *c, ldxi_tracker *v)
{
    if (!c) return;
    if (c->kind == LDXI_C_FUNC && c->track >= 0) {
        ldxi_tracker *t = &v[c->track];
        t->kind = c->func;
        if (c->func == LDXI_F_THEN) {
            t->a = c->sig;
            t->b = c->sig2;
            t->window = c->num;
            t->seconds = c->seconds;
        } else { /* after(b, a): b counted since the last a */
            t->a = c->sig2;
            t->b = c->sig;
        }
    }
    collect(c->l, v);
    collect(c->r, v);
}

static int max_track(const ldxi_cond *c)
{
    if (!c) return -1;
    int m = c->kind == LDXI_C_FUNC ? c->track : -1;
    int l = max_track(c->l), r = max_track(c->r);
    return m > l ? (m > r ? m : r) : (l > r ? l : r);
}

size_t ldxi_cond_trackers(const ldxi_cond *c, ldx_arena *a, ldxi_tracker **out)
{
    int n = max_track(c) + 1;
    *out = NULL;
    if (n <= 0) return 0;
    *out = ldxi_arena_alloc(a, (size_t)n * sizeof(ldxi_tracker));
    if (!*out) return 0;
    memset(*out, 0, (size_t)n * sizeof(ldxi_tracker));
    collect(c, *out);
    return (size_t)n;
}

static const char *func_name(ldxi_func f)
{
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
        if (funcs[i].f == f) return funcs[i].name;
    return "?";
}

static size_t put(char *buf, size_t size, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t put(char *buf, size_t size, size_t o, const char *fmt, ...)
{
    if (o >= size) return o;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + o, size - o, fmt, ap);
    va_end(ap);
    return n < 0 ? o : o + (size_t)n;
}

static size_t print_rec(const ldxi_cond *c, const ldxi_cond_sig *sigs, char *buf, size_t size,
                        size_t o, int parens)
{
    static const char *const cops[] = {">", ">=", "<", "<=", "==", "!="};
    switch (c->kind) {
    case LDXI_C_NUM: return put(buf, size, o, "%g", c->num);
    case LDXI_C_SIG: return put(buf, size, o, "%s", sigs[c->sig].name);
    case LDXI_C_CAP: return put(buf, size, o, "%s", sigs[0].caps[c->cap]); /* a where's */
    case LDXI_C_NOT:
        o = put(buf, size, o, "not ");
        return print_rec(c->l, sigs, buf, size, o, 1);
    case LDXI_C_AND:
    case LDXI_C_OR:
    case LDXI_C_CMP:
    case LDXI_C_ARITH: {
        const char *op = c->kind == LDXI_C_AND ? "and" : c->kind == LDXI_C_OR ? "or" : NULL;
        char a[2] = {c->aop, 0};
        if (parens) o = put(buf, size, o, "(");
        /* a chain of one operator needs no parentheses: a or b or c */
        o = print_rec(c->l, sigs, buf, size, o, !(op && c->l->kind == c->kind));
        o = put(buf, size, o, " %s ", op ? op : c->kind == LDXI_C_CMP ? cops[c->op] : a);
        o = print_rec(c->r, sigs, buf, size, o, !(op && c->r->kind == c->kind));
        if (parens) o = put(buf, size, o, ")");
        return o;
    }
    case LDXI_C_FUNC:
        o = put(buf, size, o, "%s(", func_name(c->func));
        if (c->func != LDXI_F_LINES) {
            o = put(buf, size, o, "%s", sigs[c->sig].name);
            if (c->cap >= 0) o = put(buf, size, o, ".%s", sigs[c->sig].caps[c->cap]);
        }
        if (c->sig2 >= 0) o = put(buf, size, o, ", %s", sigs[c->sig2].name);
        if (c->func == LDXI_F_RISING || c->func == LDXI_F_FALLING || c->func == LDXI_F_FLAT)
            o = put(buf, size, o, ", %g", c->num);
        if (c->func == LDXI_F_THEN)
            o = put(buf, size, o, ", %g %s", c->num, c->seconds ? "s" : "lines");
        return put(buf, size, o, ")");
    }
    return o;
}

void ldxi_cond_print(const ldxi_cond *c, const ldxi_cond_sig *sigs, char *buf, size_t size)
{
    if (!size) return;
    buf[0] = '\0';
    if (c) print_rec(c, sigs, buf, size, 0, 0);
}
