/* Rule conditions: a small boolean/arithmetic expression language over signals.
 *
 *   oom and not retry_ok          count(timeout) >= 3        ranks(t) >= 2
 *   max(mem.bytes) > 1GiB         rising(mem.bytes, 3)       before(oom, timeout)
 *   last(f.unalloc) >= 0.5 * last(f.req)
 *   then(oom, timeout, 600 s) >= 1   others(oom, timeout) >= 3    after(beat, step) >= 5
 *   lines() - last_line(step) > 100
 *
 * Parsing resolves signal and capture names to indices, so evaluation never looks up
 * strings. Evaluation asks the caller for the numbers through ldxi_cond_env, which
 * keeps this module free of any knowledge of how a scan stores its hits. */
#ifndef LDX_RULES_COND_H
#define LDX_RULES_COND_H

#include <stdbool.h>
#include <stddef.h>

#include "logdx/core.h"
#include "../core/util.h"

/* Bounds on one condition, so that every recursive walk over it is depth-bounded. */
#define LDXI_COND_MAX_HEIGHT 256
#define LDXI_COND_MAX_NODES 4096

typedef enum {
    LDXI_F_COUNT, LDXI_F_RANKS, LDXI_F_MAX, LDXI_F_MIN, LDXI_F_FIRST, LDXI_F_LAST,
    LDXI_F_SUM, LDXI_F_AVG, LDXI_F_POINTS, LDXI_F_RISING, LDXI_F_FALLING, LDXI_F_FLAT,
    LDXI_F_GROWTH, LDXI_F_JUMP_FROM, LDXI_F_JUMP_TO,
    LDXI_F_JUMP_NEXT,
    LDXI_F_BEFORE, LDXI_F_THEN, LDXI_F_AFTER, LDXI_F_OTHERS, LDXI_F_FIRST_LINE,
    LDXI_F_LAST_LINE, LDXI_F_LINES
} ldxi_func;

typedef enum { LDXI_C_NUM, LDXI_C_SIG, LDXI_C_FUNC, LDXI_C_NOT, LDXI_C_AND, LDXI_C_OR,
               LDXI_C_CMP, LDXI_C_ARITH,
               LDXI_C_CAP /* a signal's `where`: a capture's number on the line at hand */
} ldxi_ckind;

typedef enum { LDXI_OP_GT, LDXI_OP_GE, LDXI_OP_LT, LDXI_OP_LE, LDXI_OP_EQ, LDXI_OP_NE } ldxi_cop;

typedef struct ldxi_cond {
    ldxi_ckind kind;
    double num;       /* NUM; the argument N of rising/falling */
    ldxi_cop op;      /* CMP */
    char aop;         /* ARITH: one of + - * / */
    ldxi_func func;   /* FUNC */
    int sig, cap;     /* SIG, FUNC: signal index; FUNC, CAP: capture index or -1 */
    int sig2;         /* before(a, b), then(a, b, N), after(b, a), others(a, b) */
    int track;        /* then/after: index of the streaming tracker that counts it */
    int seconds;      /* then: the window N is in seconds (else lines) */
    unsigned off;     /* offset in the source, for messages */
    unsigned height;  /* levels below and including this node (<= LDXI_COND_MAX_HEIGHT) */
    struct ldxi_cond *l, *r;
} ldxi_cond;

/* What the parser may refer to: each signal's name and its named captures. */
typedef struct {
    const char *name;
    const char *const *caps;
    size_t ncaps;
} ldxi_cond_sig;

/* Sequences cannot be judged from per-signal summaries, so the scanner counts them as
 * it goes: then(a, b, N) counts hits of b within N lines (or seconds) after a hit of a;
 * after(b, a) counts hits of b since the last hit of a. Parsing numbers the trackers
 * a condition needs, from 0; *ntrack returns how many. */
typedef struct {
    ldxi_func kind;  /* LDXI_F_THEN or LDXI_F_AFTER */
    int a, b;        /* then: a then b; after: b counted after the last a */
    double window;   /* then: lines or seconds */
    int seconds;
} ldxi_tracker;

/* On error returns LDX_EPARSE with a message in err and its byte offset in *err_off. */
ldx_status ldxi_cond_parse(const char *src, const ldxi_cond_sig *sigs, size_t nsigs,
                           ldx_arena *a, ldxi_cond **out, size_t *err_off, char *err,
                           size_t errsize);
/* A signal's `where`: the same expressions over the numbers of one line's named
 * captures (caps[0..ncaps), referred to by their bare names), without functions: the
 * line is a hit of the signal only where it is true. Errors as ldxi_cond_parse. */
ldx_status ldxi_where_parse(const char *src, const char *const *caps, size_t ncaps,
                            ldx_arena *a, ldxi_cond **out, size_t *err_off, char *err,
                            size_t errsize);
/* Whether a line whose captures read vals[0..ncaps) (NAN: no number) passes c. */
bool ldxi_where_true(const ldxi_cond *c, const double *vals);
/* Most wheres are comparisons of a capture with a number joined by `and`: as such
 * clauses, tested in order, a scan reads a capture's number only when its clause is
 * reached and walks no tree. */
typedef struct {
    int cap;
    ldxi_cop op;
    double num;
} ldxi_clause;
/* The clauses of c into an arena array (*n of them); false when c is more than that. */
bool ldxi_where_clauses(const ldxi_cond *c, ldx_arena *a, ldxi_clause **out, size_t *n);
/* Whether a capture whose number is v (NAN: none) passes the clause. */
bool ldxi_clause_true(const ldxi_clause *cl, double v);

/* The trackers of a parsed condition, in index order, into an arena array. */
size_t ldxi_cond_trackers(const ldxi_cond *c, ldx_arena *a, ldxi_tracker **out);

typedef struct {
    void *ctx;
    double (*count)(void *ctx, int sig);
    double (*ranks)(void *ctx, int sig);
    double (*first_line)(void *ctx, int sig); /* NAN when the signal never hit */
    /* One aggregate of a capture's numbers (LDXI_F_MAX .. LDXI_F_JUMP_NEXT); NAN when
     * there are none. For rising/falling, 1 or 0; arg is their N. */
    double (*stat)(void *ctx, int sig, int cap, ldxi_func f, double arg);
    double (*last_line)(void *ctx, int sig);  /* NAN when the signal never hit */
    double (*others)(void *ctx, int a, int b); /* ranks where b hit and a did not */
    double (*track)(void *ctx, int index);     /* a then/after tracker's count */
    double (*lines)(void *ctx);                /* lines in the log */
} ldxi_cond_env;

double ldxi_cond_eval(const ldxi_cond *c, const ldxi_cond_env *env);

/* Writes the expression c back as text (signal and capture names from sigs). */
void ldxi_cond_print(const ldxi_cond *c, const ldxi_cond_sig *sigs, char *buf, size_t size);
int ldxi_cond_true(double v);
/* A window unit of then() and caused_by's within: lines, s, min or h (and their long
 * names); *mul turns a number of them into lines or seconds. False: not a unit. */
bool ldxi_window_unit(const char *unit, double *mul, bool *seconds);

/* Calls fn for each signal the condition mentions (for explanations). */
void ldxi_cond_signals(const ldxi_cond *c, void (*fn)(int sig, void *ctx), void *ctx);

#endif
