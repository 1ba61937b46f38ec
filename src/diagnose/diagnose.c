/* From scan state to ranked diagnoses.
 *
 * A rule fires when its condition holds (or, without one, when a symptom signal hit).
 * Ranking must put the initiating failure first. Three things decide it, in order of
 * strength: whether the failure is explained by another one that fired (caused_by:
 * an NCCL timeout after a CUDA OOM is collateral), its severity, and what the evidence
 * says (how much of the rule's signal weight is present, how specific it is, and how
 * early in the log it first appeared). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "diag_int.h"
#include "../plumbing.h"

const char *ldx_version_component(size_t i)
{
    return i < LDXI_NCOMPONENTS ? ldxi_components[i] : NULL;
}

const char *ldx_role_name(ldx_role r)
{
    switch (r) {
    case LDX_ROLE_INITIATING: return "initiating";
    case LDX_ROLE_COLLATERAL: return "collateral";
    case LDX_ROLE_CONTRIBUTING: return "contributing";
    }
    return "?";
}

void ldxi_evidence_free(ldx_evidence *e)
{
    free(e->text);
    free(e->host);
    for (size_t c = 0; c < e->ncaps; c++) free(e->caps[c].value);
    free(e->caps);
}

static int ev_cmp(const void *a, const void *b)
{
    const ldx_evidence *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

#define EV_MAX 10

static ldx_status add_evidence(ldx_diagnosis *d, const ldxi_rule *r, size_t k,
                               const ldxi_hit *h, size_t *cap)
{
    for (size_t i = 0; i < d->nevidence; i++)
        if (d->evidence[i].line == h->line) return LDX_OK;
    if (ldxi_grow((void **)&d->evidence, cap, d->nevidence + 1, sizeof(ldx_evidence)) != LDX_OK)
        return LDX_ENOMEM;
    ldx_evidence *e = &d->evidence[d->nevidence++];
    memset(e, 0, sizeof(*e));
    e->line = h->line;
    e->rank = h->rank;
    e->ts_kind = h->info.ts_kind;
    e->ts = h->info.ts;
    e->step = h->info.step;
    if (h->info.host[0] && !(e->host = ldxi_strdup(h->info.host))) return LDX_ENOMEM;
    e->signal = r->info.signals[k].name;
    e->text = ldxi_strdup(h->text ? h->text : "");
    e->row = -1;
    e->code_cap = -1;
    const ldxi_sigc *sc = &r->sigs[k];
    if (h->caps && sc->ncaps) {
        e->caps = calloc(sc->ncaps, sizeof(ldx_capture));
        for (size_t c = 0; e->caps && c < sc->ncaps; c++) {
            if (!h->caps[c]) continue;
            e->caps[e->ncaps].name = sc->capnames[c];
            e->caps[e->ncaps].value = ldxi_strdup(h->caps[c]);
            e->ncaps++;
            ldxi_evidence_code(e, sc, c);
        }
    }
    return LDX_OK;
}

typedef struct {
    ldx_diagnosis *d;
    const ldx_scanner *s;
    const ldxi_rule *r;
    size_t cap;
} trend_ctx;

static void collect_trends(const ldxi_cond *c, trend_ctx *t)
{
    if (!c) return;
    if (c->kind == LDXI_C_FUNC && (c->func == LDXI_F_RISING || c->func == LDXI_F_FALLING)) {
        const ldxi_sigstate *ss = ldxi_scanner_state(t->s, t->r->index, (size_t)c->sig);
        const ldxi_numstat *ns = ss->nums ? &ss->nums[c->cap] : NULL;
        const ldxi_series *se = ns ? ldxi_numstat_trend(ns, c->func, c->num) : NULL;
        if (se && se->n &&
            ldxi_grow((void **)&t->d->trends, &t->cap, t->d->ntrends + 1, sizeof(ldx_trend)) ==
                LDX_OK) {
            ldx_trend *tr = &t->d->trends[t->d->ntrends++];
            memset(tr, 0, sizeof(*tr));
            tr->signal = t->r->info.signals[c->sig].name;
            tr->capture = t->r->sigs[c->sig].capnames[c->cap];
            tr->rising = c->func == LDXI_F_RISING;
            tr->rank = se->rank;
            tr->points = se->n;
            tr->first = se->first;
            tr->last = se->last;
            tr->bytes = ss->nfirst && ss->first[0].caps &&
                        ldxi_has_byte_unit(ss->first[0].caps[c->cap]);
            tr->values = malloc(se->nsamples * sizeof(double));
            if (tr->values) {
                memcpy(tr->values, se->samples, se->nsamples * sizeof(double));
                tr->nvalues = se->nsamples;
            }
        }
    }
    collect_trends(c->l, t);
    collect_trends(c->r, t);
}

/* Replaces "{torch}", "{deepspeed}", ... with the versions the log shows. */
static char *fill_versions(const ldx_scanner *s, const char *text)
{
    ldx_buf b;
    ldxi_buf_init(&b, 1 << 16);
    for (const char *p = text; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        int comp = close ? ldxi_component_find(p + 1, (size_t)(close - p - 1)) : -1;
        const char *v = ldxi_scanner_version_at(s, comp);
        if (v) {
            ldxi_buf_append(&b, v, strlen(v));
            p = close + 1;
        } else {
            ldxi_buf_append(&b, p, 1);
            p++;
        }
    }
    if (!b.data) return ldxi_strdup("");
    return b.data;
}

/* A fix step's {signal.capture}: the capture's text as the log wrote it ("300.00 GiB"),
 * from the signal's first hit that has it (a context signal on the line of a symptom is
 * no evidence line of its own, but its hits keep their captures); "(see the evidence)"
 * when no hit has it. */
static const char *capture_text(const ldx_scanner *s, const ldxi_rule *r, const char *sig,
                                size_t ns, const char *cap, size_t nc)
{
    for (size_t k = 0; k < r->info.nsignals; k++) {
        if (strlen(r->info.signals[k].name) != ns || strncmp(r->info.signals[k].name, sig, ns))
            continue;
        const ldxi_sigc *sc = &r->sigs[k];
        const ldxi_sigstate *st = ldxi_scanner_state(s, r->index, k);
        for (size_t c = 0; c < sc->ncaps; c++) {
            if (strlen(sc->capnames[c]) != nc || strncmp(sc->capnames[c], cap, nc)) continue;
            for (uint32_t h = 0; h < st->nfirst; h++)
                if (st->first[h].caps && st->first[h].caps[c]) return st->first[h].caps[c];
            if (st->has_last && st->last.caps && st->last.caps[c]) return st->last.caps[c];
        }
    }
    return NULL;
}

static char *fill_captures(const ldx_scanner *s, const ldxi_rule *r, const char *text)
{
    ldx_buf b;
    ldxi_buf_init(&b, 1 << 16);
    for (const char *p = text; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        const char *dot = close ? memchr(p, '.', (size_t)(close - p)) : NULL;
        if (!dot) {
            ldxi_buf_append(&b, p, 1);
            p++;
            continue;
        }
        const char *v = capture_text(s, r, p + 1, (size_t)(dot - p - 1), dot + 1,
                                     (size_t)(close - dot - 1));
        if (!v) v = "(see the evidence)";
        ldxi_buf_append(&b, v, strlen(v));
        p = close + 1;
    }
    if (!b.data) return ldxi_strdup("");
    return b.data;
}

/* The rule's fix steps for this log: those whose `when` holds first, then the plain
 * ones, without those whose `unless` holds or whose `when` does not. */
static ldx_status choose_fix(const ldx_scanner *s, const ldxi_rule *r, ldx_diagnosis *d)
{
    size_t n = r->info.fix.n, cap = 0;
    bool *hold = calloc(n ? n : 1, sizeof(*hold));
    if (!hold) return LDX_ENOMEM;
    ldxi_env_ctx ec;
    ldxi_cond_env env;
    ldxi_scan_env(s, r->index, &ec, &env);
    for (size_t i = 0; r->fix_conds && i < n; i++)
        hold[i] = r->fix_conds[i] && ldxi_cond_true(ldxi_cond_eval(r->fix_conds[i], &env));
    ldx_status st = LDX_OK;
    for (int pass = 0; pass < 2 && st == LDX_OK; pass++)
        for (size_t i = 0; i < n && st == LDX_OK; i++) {
            bool conditional = r->fix_conds && r->fix_conds[i];
            bool unless = conditional && r->info.fix_unless[i];
            bool show = pass == 0 ? conditional && !unless && hold[i]
                                  : !conditional || (unless && !hold[i]);
            if (!show) continue;
            char *t = fill_captures(s, r, r->info.fix.v[i]);
            if (!t || LDXI_PUSH(d->fix, d->nfix, cap, t) != LDX_OK) {
                free(t);
                st = LDX_ENOMEM;
            }
        }
    free(hold);
    return st;
}

void ldxi_evidence_code(ldx_evidence *e, const ldxi_sigc *sc, size_t k)
{
    const char *v = e->caps[e->ncaps - 1].value;
    if (!sc->table || k != sc->lookup_cap || !v) return;
    e->table = sc->table;
    e->code_cap = (int)e->ncaps - 1;
    e->row = ldx_table_row(sc->table, v);
}

/* How far an action goes: the strongest one any evidence line's code asks for wins. */
static int action_rank(const char *a)
{
    static const char *const order[] = {"ignore", "check_app", "restart_app", "reset_gpu",
                                        "reboot_node", "drain", "replace", "contact_support", NULL};
    for (int i = 0; order[i]; i++)
        if (!strcmp(order[i], a)) return i;
    return 2; /* an action of a user's table: as strong as a restart */
}

void ldxi_choose_action(ldx_diagnosis *d)
{
    free(d->action.code_value);
    memset(&d->action, 0, sizeof d->action);
    int best = -1;
    for (size_t i = 0; i < d->nevidence; i++) {
        const ldx_evidence *e = &d->evidence[i];
        const char *a = e->row >= 0 ? ldx_table_cell(e->table, e->row, "action") : NULL;
        int rank = a && *a ? action_rank(a) : -1;
        if (rank <= best) continue;
        best = rank;
        d->action.action = a;
        const char *t = ldx_table_cell(e->table, e->row, "action_text");
        d->action.text = t && *t ? t : NULL;
        d->action.table = e->table->name;
        d->action.line = e->line;
        free(d->action.code_value);
        d->action.code_value = ldxi_strdup(e->caps[e->code_cap].value);
    }
}

static double sev_weight(ldx_severity s)
{
    static const double w[] = {0.1, 0.3, 0.55, 0.8, 1.0};
    return w[s];
}

static ldx_status build(const ldx_scanner *s, const ldxi_rule *r, uint64_t lines,
                        ldx_diagnosis *d)
{
    memset(d, 0, sizeof(*d));
    d->rule = &r->info;
    d->rank = -1;
    double present = 0;
    uint64_t sym_hits = 0;
    uint64_t first_sym = 0, first_any = 0;
    /* symptoms that are all tail signals say how the log ends: the diagnosis points at
     * their last line, not at the first of the last lines kept */
    bool tail_only = true;
    const ldxi_hit *last_sym = NULL;
    size_t evcap = 0;
    /* symptom evidence first, so that a line shared with a context signal is
     * attributed to the symptom */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < r->info.nsignals; k++) {
            const ldx_signal_info *si = &r->info.signals[k];
            bool sym = si->role == LDX_SIGNAL_SYMPTOM;
            if (sym != (pass == 0)) continue;
            const ldxi_sigstate *ss = ldxi_scanner_state(s, r->index, k);
            if (!ss->count) continue;
            present += si->weight;
            if (sym) {
                sym_hits += ss->count;
                if (!first_sym || ss->first[0].line < first_sym) {
                    first_sym = ss->first[0].line;
                    d->rank = ss->first[0].rank;
                }
                const ldxi_hit *last = ss->has_last ? &ss->last : &ss->first[ss->nfirst - 1];
                if (!last_sym || last->line > last_sym->line) last_sym = last;
                tail_only = tail_only && si->tail;
            }
            if (!first_any || ss->first[0].line < first_any) first_any = ss->first[0].line;
            for (uint32_t h = 0; h < ss->nfirst; h++)
                LDX_TRY(add_evidence(d, r, k, &ss->first[h], &evcap));
            if (ss->has_last) LDX_TRY(add_evidence(d, r, k, &ss->last, &evcap));
        }
    }
    /* the ranks the failure was seen on, from the symptoms (or any signal) */
    uint64_t bits[LDXI_RANK_BITS / 64] = {0};
    bool any_sym = sym_hits > 0;
    for (size_t k = 0; k < r->info.nsignals; k++) {
        if (any_sym && r->info.signals[k].role != LDX_SIGNAL_SYMPTOM) continue;
        const ldxi_sigstate *ss = ldxi_scanner_state(s, r->index, k);
        for (size_t w = 0; ss->rankbits && w < LDXI_RANK_BITS / 64; w++) bits[w] |= ss->rankbits[w];
    }
    size_t nranks = 0;
    for (size_t w = 0; w < LDXI_RANK_BITS / 64; w++)
        nranks += (size_t)__builtin_popcountll(bits[w]);
    if (nranks) {
        d->ranks = malloc(nranks * sizeof(int));
        if (!d->ranks) return LDX_ENOMEM;
        for (size_t w = 0; w < LDXI_RANK_BITS / 64; w++)
            for (int b = 0; b < 64; b++)
                if (bits[w] >> b & 1) d->ranks[d->nranks++] = (int)(w * 64 + (size_t)b);
    }
    if (d->nevidence > 1) qsort(d->evidence, d->nevidence, sizeof(ldx_evidence), ev_cmp);
    if (d->nevidence > EV_MAX) {
        /* keep the first ones and the very last: the start and the end of the story */
        for (size_t i = EV_MAX - 1; i < d->nevidence - 1; i++) ldxi_evidence_free(&d->evidence[i]);
        d->evidence[EV_MAX - 1] = d->evidence[d->nevidence - 1];
        d->nevidence = EV_MAX;
    }
    d->hits = s->rule_lines[r->index] + (s->tail_lines ? s->tail_lines[r->index] : 0);
    d->line = first_sym ? first_sym : first_any;
    if (!first_sym && d->nevidence) d->rank = d->evidence[0].rank;
    if (first_sym && tail_only) {
        d->line = last_sym->line;
        d->rank = last_sym->rank;
    }
    for (size_t i = 0; i < d->nevidence; i++)
        if (d->evidence[i].line == d->line) {
            d->ts_kind = d->evidence[i].ts_kind;
            d->ts = d->evidence[i].ts;
        }

    /* Symptom signals are alternatives (any of them can fire a rule), so their strength
     * is the strongest one present; context signals corroborate, so theirs is the share
     * present. Repeated hits add a little. */
    double sym_max = 0, sym_best = 0, ctx_total = 0, ctx_present = 0;
    for (size_t k = 0; k < r->info.nsignals; k++) {
        const ldx_signal_info *si = &r->info.signals[k];
        bool hit = ldxi_scanner_state(s, r->index, k)->count > 0;
        if (si->role == LDX_SIGNAL_SYMPTOM) {
            sym_max = fmax(sym_max, si->weight);
            if (hit) sym_best = fmax(sym_best, si->weight);
        } else {
            ctx_total += si->weight;
            if (hit) ctx_present += si->weight;
        }
    }
    double sym = sym_max > 0 ? sym_best / sym_max : 0;
    double ctx = ctx_total > 0 ? ctx_present / ctx_total : 0.5;
    double conf = 0.45 + 0.3 * sym + 0.15 * ctx + fmin(0.1, 0.025 * log2(1.0 + (double)sym_hits));
    d->confidence = fmax(0.05, fmin(0.99, round(conf * 100.0) / 100.0));
    double pos = lines > 1 ? 1.0 - (double)(d->line - 1) / (double)lines : 1.0;
    d->weight = present;
    double spec = fmin(1.0, present / 6.0);
    d->score = 0.5 * sev_weight(r->info.severity) + 0.25 * d->confidence + 0.15 * pos +
               0.1 * spec;
    ldxi_choose_action(d);
    trend_ctx tc = {d, s, r, 0};
    collect_trends(r->cond, &tc);
    size_t advcap = 0;
    for (size_t a = 0; a < r->info.nadvice; a++) {
        const char *found = ldxi_scanner_version_at(s, r->whens[a].component);
        if (!ldxi_when_holds(&r->whens[a], found)) continue;
        char *text = fill_versions(s, r->info.advice[a].text);
        if (!text || LDXI_PUSH(d->advice, d->nadvice, advcap, text) != LDX_OK) {
            free(text);
            return LDX_ENOMEM;
        }
    }
    return choose_fix(s, r, d);
}

static void free_diagnosis(ldx_diagnosis *d)
{
    for (size_t i = 0; i < d->nevidence; i++) ldxi_evidence_free(&d->evidence[i]);
    free(d->evidence);
    for (size_t i = 0; i < d->ntrends; i++) free(d->trends[i].values);
    free(d->trends);
    free(d->ranks);
    for (size_t i = 0; i < d->nadvice; i++) free(d->advice[i]);
    for (size_t i = 0; i < d->nfix; i++) free(d->fix[i]);
    free(d->fix);
    free(d->advice);
    free(d->action.code_value);
    free(d->headline);
}

const char *ldx_diagnosis_title(const ldx_diagnosis *d, char *buf, size_t size)
{
    if (d->headline) {
        /* "KeyError: 'x' (a failure no rule names)": the title as an aside, its first letter
         * in lower case unless it starts an acronym ("CUDA kernel crashed ...") */
        const char *t = d->rule->title;
        bool acronym = t[0] && isupper((unsigned char)t[1]);
        snprintf(buf, size, "%s (%c%s)", d->headline, acronym ? t[0] : tolower((unsigned char)t[0]),
                 t[0] ? t + 1 : "");
    }
    else
        snprintf(buf, size, "%s", d->rule->title);
    return buf;
}

static bool related(const ldx_rule_info *a, const ldx_rule_info *b)
{
    for (size_t k = 0; k < a->related.n; k++)
        if (!strcmp(a->related.v[k], b->id)) return true;
    for (size_t k = 0; k < b->related.n; k++)
        if (!strcmp(b->related.v[k], a->id)) return true;
    return false;
}

/* Related rules describe one failure from different angles (a plain CUDA OOM and the
 * fragmentation reading of the same message). When both fire, the one with more
 * signal weight present is the more specific reading and goes first. */
static void refine_related(ldx_diagnosis *d, size_t n)
{
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                if (i == j || d[i].role == LDX_ROLE_COLLATERAL ||
                    d[j].role == LDX_ROLE_COLLATERAL || d[i].weight <= d[j].weight ||
                    d[j].score < d[i].score || !related(d[i].rule, d[j].rule))
                    continue;
                d[j].score = d[i].score - 1e-6;
            }
}

/* Independent failures that a rule names (medium and up) first, then independent warnings
 * (low, info) and the failure no rule names (which settles below them, see below), then
 * collateral findings: a fine-tuning head left newly initialised early in a log is not why
 * a job that Slurm cancelled later ended. */
static int diag_tier(const ldx_diagnosis *d)
{
    if (d->role == LDX_ROLE_COLLATERAL) return 2;
    return d->rule->severity >= LDX_SEV_MEDIUM && strcmp(d->rule->klass, LDXI_UNCLASSIFIED) ? 0 : 1;
}

static int diag_cmp(const void *a, const void *b)
{
    const ldx_diagnosis *x = a, *y = b;
    int tx = diag_tier(x), ty = diag_tier(y);
    if (tx != ty) return tx < ty ? -1 : 1;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(x->rule->id, y->rule->id);
}

/* Can we tell that x happened before y? Timestamps decide when both lines carry the
 * same kind; otherwise line order decides, but only within one rank (or between
 * lines without ranks): per-rank logs are often concatenated, and then a later line on
 * another rank may well be an earlier event. */
static int order_known(const ldx_diagnosis *x, const ldx_diagnosis *y, double tolerance)
{
    if (x->ts_kind != LDX_TS_NONE && x->ts_kind == y->ts_kind) {
        if (x->ts < y->ts - tolerance) return 1;
        if (y->ts < x->ts - tolerance) return -1;
        return 0;
    }
    if (x->rank != y->rank) return 0;
    return x->line < y->line ? 1 : x->line > y->line ? -1 : 0;
}

/* Lines of torchrun's "Root Cause (first observed failure):" block after its header: the
 * rank's index, time, host, rank, exitcode, error_file, traceback (one line for a signal). */
#define LAUNCHER_BLOCK_LINES 10

/* Is c about the rank the launcher saw stop first: on that rank, or read from the
 * launcher's own account of it (the block's "traceback : Signal 7 (SIGBUS) received by
 * PID 10" carries no rank of its own)? */
static bool on_first_stopped(const ldx_diagnosis *c, const ldx_launcher_info *launcher)
{
    if (!launcher || !launcher->present) return false;
    if (c->rank >= 0) return c->rank == launcher->rank;
    return c->line > launcher->line && c->line <= launcher->line + LAUNCHER_BLOCK_LINES;
}

/* Does diagnosis c (of a rule that d's rule names in caused_by) explain d? */
static bool explains(const ldx_diagnosis *c, const ldx_diagnosis *d, const ldxi_cause *cs,
                     const ldx_launcher_info *launcher)
{
    bool first_stopped = on_first_stopped(c, launcher);
    switch (cs->order) {
    case LDXI_ORDER_ANY: break;
    case LDXI_ORDER_EARLIER:
        if (c->ts_kind != LDX_TS_NONE && c->ts_kind == d->ts_kind) {
            if (c->ts > d->ts) return false;
        } else if (c->line >= d->line) {
            return false;
        }
        break;
    case LDXI_ORDER_AUTO:
        /* a failure on the rank the launcher saw stop first may explain anything;
         * otherwise the cause must not be known to come later (2 s of slack for
         * buffered output) */
        if (!first_stopped && order_known(d, c, 2.0) > 0) return false;
        break;
    }
    if (cs->within > 0) {
        if (cs->within_seconds) {
            if (c->ts_kind != LDX_TS_NONE && c->ts_kind == d->ts_kind &&
                fabs(d->ts - c->ts) > cs->within)
                return false;
        } else if (fabs((double)d->line - (double)c->line) > cs->within) {
            return false;
        }
    }
    return true;
}

/* The first of r's caused_by entries naming other's rule (by class or id) in an order the
 * log allows for c explaining d: a rule may name one cause twice ("earlier, anywhere" and
 * "any order, within 10 lines"), and either counts. NULL when none does. */
static const ldxi_cause *cause_allowed(const ldxi_rule *r, const ldxi_rule *other, const ldx_diagnosis *c,
                                       const ldx_diagnosis *d, const ldx_launcher_info *launcher)
{
    for (const ldxi_cause *cs = ldxi_rule_cause(r, other, NULL); cs; cs = ldxi_rule_cause(r, other, cs))
        if (explains(c, d, cs, launcher)) return cs;
    return NULL;
}

/* Marks collateral diagnoses: those whose rule names (by class or id) another fired
 * rule in caused_by, when the order of the two allows it. When two rules name each
 * other, the more severe one is the cause (the earlier one between equals). */
static void assign_roles(ldx_diagnosis *d, size_t n, const ldxi_rule **rules,
                         const ldx_launcher_info *launcher)
{
    for (size_t i = 0; i < n; i++) {
        const ldx_diagnosis *best = NULL;
        ldx_severity best_sev = LDX_SEV_INFO;
        for (size_t j = 0; j < n; j++) {
            if (i == j) continue;
            const ldxi_cause *cs = cause_allowed(rules[i], rules[j], &d[j], &d[i], launcher);
            if (!cs) continue;
            /* a failure no rule names explains only what comes after it: it is the
             * reader's guess, which a finding before it does not follow from; unless the
             * rule says any order (how a log ends follows from a failure at its end) */
            if (!strcmp(rules[j]->info.klass, LDXI_UNCLASSIFIED) && d[j].line >= d[i].line &&
                cs->order != LDXI_ORDER_ANY)
                continue;
            /* two rules that name each other, each in an order the log allows: the more
             * severe one is the cause, and between equals the earlier one (a name the log's
             * order rules out, "earlier" when it came later, leaves the other way alone) */
            if (cause_allowed(rules[j], rules[i], &d[i], &d[j], launcher)) {
                ldx_severity si = rules[i]->info.severity, sj = rules[j]->info.severity;
                if (sj < si || (sj == si && d[j].line >= d[i].line)) continue;
            }
            /* the failure it follows from rather than a warning of a cause's class before
             * it (a launcher's exit after an assertion, not after an allocator's
             * survivable cache flush hours earlier); between equals the earliest */
            bool fail_j = rules[j]->info.severity >= LDX_SEV_MEDIUM;
            bool fail_b = best && best_sev >= LDX_SEV_MEDIUM;
            if (!best || fail_j > fail_b || (fail_j == fail_b && d[j].line < best->line)) {
                best = &d[j];
                best_sev = rules[j]->info.severity;
            }
        }
        if (best) {
            d[i].role = LDX_ROLE_COLLATERAL;
            d[i].cause = best->rule->id;
            d[i].score -= 1.0;
        }
        /* evidence from the rank that stopped first points at the initiating failure */
        if (launcher && launcher->rank >= 0 && d[i].rank == launcher->rank) d[i].score += 0.05;
    }
}

/* What the launcher's summary means for finding the cause: which rank to look at, and
 * what its exit says when its own error is not in the log. */
static char *launcher_note(const ldx_file_report *fr)
{
    const ldx_launcher_info *l = &fr->launcher;
    if (!l->present || l->rank < 0) return NULL;
    char where[96] = "";
    if (l->host && *l->host) snprintf(where, sizeof where, " on host %s", l->host);
    for (size_t i = 0; i < fr->n; i++) {
        const ldx_diagnosis *d = &fr->diagnoses[i];
        if (d->rank == l->rank && d->role != LDX_ROLE_COLLATERAL &&
            strcmp(d->rule->klass, "launcher_child_failed") != 0) {
            char title[512];
            return ldxi_asprintf("the launcher names rank %d%s as the first failure; its own "
                                 "error is diagnosis [%zu] (%s, line %llu)",
                                 l->rank, where, i + 1, ldx_diagnosis_title(d, title, sizeof title),
                                 (unsigned long long)d->line);
        }
    }
    const char *sig = l->signame ? l->signame : "";
    if (l->signal == 9)
        return ldxi_asprintf(
            "the launcher names rank %d%s as the first failure: it was killed by SIGKILL "
            "(exitcode -9) and left no error of its own. The kernel OOM killer is the usual "
            "sender: check `dmesg -T | grep -i -E 'killed process|oom'` on that host and the "
            "job's peak memory (`sacct -j JOB -o MaxRSS`, container memory limits)",
            l->rank, where);
    if (l->signal == 15 || l->signal == 1 || l->signal == 2)
        return ldxi_asprintf("the launcher names rank %d%s as the first failure: it received "
                             "signal %d %s from outside (scheduler, orchestrator or a person), "
                             "not an error of its own",
                             l->rank, where, l->signal, sig);
    if (l->signal)
        return ldxi_asprintf("the launcher names rank %d%s as the first failure: it died from "
                             "signal %d %s (a crash in native code if SIGSEGV/SIGBUS/SIGABRT); "
                             "run it with `faulthandler` enabled (PYTHONFAULTHANDLER=1) to see where",
                             l->rank, where, l->signal, sig);
    if (l->has_exitcode)
        return ldxi_asprintf(
            "the launcher names rank %d%s as the first failure (exitcode %d)%s: look at rank "
            "%d's own traceback (its [rank%d]: lines, or torchrun --log-dir/--tee 3 output)",
            l->rank, where, l->exitcode,
            l->error_file_missing ? " and its error is not in this log (error_file: <N/A>)" : "",
            l->rank, l->rank);
    return NULL;
}

/* Whether evidence e of diagnosis d was found by a symptom of its rule (not by a context
 * signal, nor by a tail signal: those say where the symptoms stand or how the log ends,
 * not what the lines mean). */
static bool symptom_evidence(const ldx_diagnosis *d, const ldx_evidence *e)
{
    for (size_t k = 0; k < d->rule->nsignals; k++)
        if (d->rule->signals[k].name == e->signal)
            return d->rule->signals[k].role == LDX_SIGNAL_SYMPTOM && !d->rule->signals[k].tail;
    return false;
}

enum { SHARE_NONE, SHARE_CONTEXT, SHARE_SYMPTOM };

/* Where a symptom line of specific diagnosis s stands among d's evidence: on a line one
 * of d's own symptoms found (SHARE_SYMPTOM), only on lines d reads for context
 * (SHARE_CONTEXT), or nowhere. Then the specific rule explains that line better than a
 * concept rule can. */
static int shared_symptom_line(const ldx_diagnosis *s, const ldx_diagnosis *d)
{
    int share = SHARE_NONE;
    for (size_t i = 0; i < s->nevidence; i++) {
        const ldx_evidence *e = &s->evidence[i];
        if (!symptom_evidence(s, e)) continue;
        for (size_t j = 0; j < d->nevidence; j++) {
            if (d->evidence[j].line != e->line) continue;
            if (symptom_evidence(d, &d->evidence[j])) return SHARE_SYMPTOM;
            share = SHARE_CONTEXT;
        }
    }
    return share;
}

/* Frees the diagnoses marked in drop and closes the gaps, keeping d[] and rules[]
 * parallel; returns the new count. */
static size_t drop_marked(ldx_diagnosis *d, const ldxi_rule **rules, size_t n, const bool *drop)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (drop[i]) {
            free_diagnosis(&d[i]);
            continue;
        }
        d[kept] = d[i];
        rules[kept++] = rules[i];
    }
    return kept;
}

/* Concept rules give way to specific ones: a concept diagnosis is dropped when a
 * specific rule of its class fired or explains one of its lines: one of its symptom
 * lines, or a line it reads for context unless that rule names the concept's finding as
 * its cause (the loss dicts a collapsing loss scale reads are a zero loss's symptoms,
 * and the zero loss follows from the collapse). One that stays has a lower confidence
 * and ranks below specific diagnoses of its severity. */
static size_t give_way(ldx_diagnosis *d, const ldxi_rule **rules, size_t n)
{
    bool *drop = calloc(n ? n : 1, sizeof(bool));
    if (!drop) return n; /* out of memory: keep everything rather than lose a finding */
    for (size_t i = 0; i < n; i++) {
        if (d[i].rule->level != LDX_LEVEL_CONCEPT) continue;
        for (size_t j = 0; j < n && !drop[i]; j++) {
            if (d[j].rule->level != LDX_LEVEL_SPECIFIC || !strcmp(d[j].rule->klass, LDXI_UNCLASSIFIED))
                continue; /* the fallback explains nothing better */
            int share = strcmp(d[j].rule->klass, d[i].rule->klass) ? shared_symptom_line(&d[j], &d[i]) : SHARE_SYMPTOM;
            drop[i] = share == SHARE_SYMPTOM ||
                      (share == SHARE_CONTEXT && !cause_allowed(rules[j], rules[i], &d[i], &d[j], NULL));
        }
        if (!drop[i]) {
            d[i].confidence = fmax(0.05, round(d[i].confidence * 85.0) / 100.0);
            d[i].score -= 0.06;
        }
    }
    n = drop_marked(d, rules, n, drop);
    free(drop);
    return n;
}

/* Diagnoses of a failure no rule names: each settles on the first failure the others
 * do not explain, or goes (unclassified.c). */
static size_t settle_unclassified(ldx_scanner *s, ldx_diagnosis *d, const ldxi_rule **rules,
                                  size_t n, uint64_t lines, const ldx_launcher_info *li)
{
    bool *drop = calloc(n ? n : 1, sizeof(bool));
    if (!drop) return n;
    for (size_t i = 0; i < n; i++)
        drop[i] = !strcmp(d[i].rule->klass, LDXI_UNCLASSIFIED) &&
                  !ldxi_unclassified_settle(s, i, d, rules, n, lines, li);
    n = drop_marked(d, rules, n, drop);
    free(drop);
    return n;
}

/* A failure no rule names ranks below every independent finding of a rule that does
 * (above the collateral ones, which may follow from it). */
static void lower_unclassified(ldx_diagnosis *d, size_t n)
{
    double floor = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (d[i].role != LDX_ROLE_COLLATERAL && strcmp(d[i].rule->klass, LDXI_UNCLASSIFIED))
            floor = fmin(floor, d[i].score);
    if (floor == INFINITY) return;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(d[i].rule->klass, LDXI_UNCLASSIFIED) && d[i].score >= floor)
            d[i].score = floor - 0.01;
}

/* The independent diagnosis a collateral one follows from, through a chain of causes
 * (a tokenizer's warning -> a kernel's assertion -> the CUDA error that reports it), or
 * NULL. */
static const ldx_diagnosis *root_cause(const ldx_diagnosis *d, size_t n, const ldx_diagnosis *c)
{
    for (size_t hops = 0; c && c->role == LDX_ROLE_COLLATERAL && hops < n; hops++) {
        const ldx_diagnosis *next = NULL;
        for (size_t j = 0; j < n && !next; j++)
            if (&d[j] != c && !strcmp(d[j].rule->id, c->cause)) next = &d[j];
        c = next;
    }
    return c;
}

typedef struct {
    int tier;
    const ldx_diagnosis *d;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->tier != y->tier) return x->tier < y->tier ? -1 : 1;
    return diag_cmp(x->d, y->d);
}

/* Sorts by score and names the roles: the first independent diagnosis initiates, the
 * other independent ones contribute; collateral ones stay collateral. A warning that the
 * log shows a failure followed from ranks with the failures: it is where that failure
 * began (a tokenizer's "longer than the specified maximum" before an embedding's index
 * assertion), not one more warning beside it. */
static void rank_and_role(ldx_file_report *fr)
{
    size_t n = fr->n;
    ranked *order = n > 1 ? malloc(n * sizeof(*order)) : NULL;
    ldx_diagnosis *sorted = n > 1 ? malloc(n * sizeof(*sorted)) : NULL;
    if (order && sorted) {
        for (size_t i = 0; i < n; i++) order[i] = (ranked){diag_tier(&fr->diagnoses[i]), &fr->diagnoses[i]};
        for (size_t i = 0; i < n; i++) {
            const ldx_diagnosis *c = &fr->diagnoses[i];
            if (c->role != LDX_ROLE_COLLATERAL || c->rule->severity < LDX_SEV_MEDIUM ||
                !strcmp(c->rule->klass, LDXI_UNCLASSIFIED))
                continue;
            const ldx_diagnosis *root = root_cause(fr->diagnoses, n, c);
            if (root && strcmp(root->rule->klass, LDXI_UNCLASSIFIED)) order[root - fr->diagnoses].tier = 0;
        }
        qsort(order, n, sizeof(*order), ranked_cmp);
        for (size_t i = 0; i < n; i++) sorted[i] = *order[i].d;
        memcpy(fr->diagnoses, sorted, n * sizeof(*sorted));
    } else {
        /* out of memory: the plain order, which loses nothing */
        qsort(fr->diagnoses, n, sizeof(ldx_diagnosis), diag_cmp);
    }
    free(order);
    free(sorted);
    bool initiating = false;
    for (size_t i = 0; i < fr->n; i++) {
        if (fr->diagnoses[i].role == LDX_ROLE_COLLATERAL) continue;
        fr->diagnoses[i].role = initiating ? LDX_ROLE_CONTRIBUTING : LDX_ROLE_INITIATING;
        initiating = true;
    }
}

void ldx_file_report_baseline(ldx_file_report *fr, const ldx_file_report *baseline)
{
    if (!baseline) return;
    for (size_t i = 0; i < fr->n; i++) {
        ldx_diagnosis *d = &fr->diagnoses[i];
        for (size_t j = 0; j < baseline->n; j++) {
            if (strcmp(baseline->diagnoses[j].rule->id, d->rule->id)) continue;
            d->in_baseline = true;
            d->confidence = round(d->confidence * 50.0) / 100.0;
            d->score -= 0.6;
            break;
        }
    }
    rank_and_role(fr);
    /* the note names diagnoses by number, which the new order may have changed */
    free(fr->launcher_note);
    fr->launcher_note = launcher_note(fr);
}

ldx_status ldx_diagnose(ldx_scanner *s, const char *path, ldx_file_report **out)
{
    ldx_scanner_flush(s);
    ldx_file_report *fr = calloc(1, sizeof(*fr));
    if (!fr) return LDX_ENOMEM;
    fr->path = ldxi_display_name(path ? path : "-");
    if (fr->path && path && strcmp(fr->path, path) && !(fr->path_bytes = ldxi_strdup(path))) {
        ldx_file_report_destroy(fr);
        return LDX_ENOMEM;
    }
    fr->lines = ldx_scanner_lines(s);
    fr->versions = calloc(LDXI_NCOMPONENTS, sizeof(char *));
    if (!fr->path || !fr->versions || ldx_msgs_create(&fr->errors) != LDX_OK) {
        ldx_file_report_destroy(fr);
        return LDX_ENOMEM;
    }
    const ldx_ruleset *rs = s->rs;
    const ldxi_rule **fired = calloc(rs->n ? rs->n : 1, sizeof(*fired));
    fr->diagnoses = calloc(rs->n ? rs->n : 1, sizeof(ldx_diagnosis));
    if (!fired || !fr->diagnoses) {
        free(fired);
        ldx_file_report_destroy(fr);
        return LDX_ENOMEM;
    }
    ldx_status st = LDX_OK;
    for (size_t i = 0; i < rs->n && st == LDX_OK; i++) {
        const ldxi_rule *r = rs->rules[i];
        if (!ldxi_rule_fires(s, r)) continue;
        st = build(s, r, fr->lines, &fr->diagnoses[fr->n]);
        fired[fr->n++] = r;
    }
    if (st == LDX_OK) {
        const ldx_launcher_info *li = ldx_scanner_launcher(s);
        if (li) {
            /* the scanner's strings live as long as its scan: the report takes copies */
            fr->launcher = *li;
            fr->launcher.signame = ldxi_strdup(li->signame);
            fr->launcher.host = ldxi_strdup(li->host);
            fr->launcher.time = ldxi_strdup(li->time);
            if (!fr->launcher.signame || !fr->launcher.host || !fr->launcher.time) st = LDX_ENOMEM;
        }
        fr->n = give_way(fr->diagnoses, fired, fr->n);
        fr->n = settle_unclassified(s, fr->diagnoses, fired, fr->n, fr->lines, li);
        assign_roles(fr->diagnoses, fr->n, fired, li);
        refine_related(fr->diagnoses, fr->n);
        lower_unclassified(fr->diagnoses, fr->n);
        rank_and_role(fr);
    }
    free(fired);
    /* a slot was made for every rule; a report keeps only what fired (an archive of
     * many members holds many reports at once) */
    if (st == LDX_OK && fr->n < rs->n) {
        ldx_diagnosis *fit = realloc(fr->diagnoses, (fr->n ? fr->n : 1) * sizeof(ldx_diagnosis));
        if (fit) fr->diagnoses = fit;
    }
    if (st == LDX_OK) fr->launcher_note = launcher_note(fr);
    for (size_t i = 0; st == LDX_OK && i < LDXI_NCOMPONENTS; i++) {
        const char *v = ldxi_scanner_version_at(s, (int)i);
        if (v && !(fr->versions[i] = ldxi_strdup(v))) st = LDX_ENOMEM;
    }
    if (st != LDX_OK) {
        ldx_file_report_destroy(fr);
        return st;
    }
    *out = fr;
    return LDX_OK;
}

ldx_status ldx_analyze(ldx_scanner *s, ldx_reader *r, ldx_file_report **out)
{
    ldx_scanner_reset(s);
    ldx_line line;
    ldx_status st;
    uint64_t first_long = 0;
    /* whole lines by the block where the scanner splits them on its own threads; one
     * at a time where a line straddles blocks (or the scanner wants them so) */
    bool chunks = ldxi_scanner_takes_chunks(s);
    ldxi_chunk c;
    for (;;) {
        if (chunks) {
            /* read where the batch keeps the lines, else copied there from the
             * reader's block */
            size_t cap;
            char *room = ldxi_scanner_chunk_room(s, &cap);
            if (room && ldxi_reader_chunk_into(r, room, cap, &c)) {
                ldxi_scanner_chunk_placed(s, &c);
                continue;
            }
            if (ldxi_reader_chunk(r, LDXI_CHUNK_MAX, &c)) {
                ldxi_scanner_chunk(s, &c);
                continue;
            }
        }
        if ((st = ldx_reader_next(r, &line)) != LDX_OK) break;
        if (line.truncated && !first_long) first_long = line.lineno;
        ldx_scanner_line(s, &line);
    }
    ldx_status dst = ldx_diagnose(s, ldx_reader_name(r), out);
    if (dst != LDX_OK) return dst;
    (*out)->bytes = ldx_reader_bytes(r);
    /* a pattern that hit PCRE2's limits counted as no match there: say so, per rule */
    for (size_t i = 0; i < s->rs->n; i++) {
        if (s->rule_off[i])
            ldx_msgs_add((*out)->errors, LDX_MSG_WARNING, ldx_reader_name(r), 0, 0,
                         "rule '%s' used up its time budget on this input and was switched "
                         "off for the rest of it (its patterns are too slow: see logdx rules "
                         "lint)",
                         s->rs->rules[i]->info.id);
        if (s->limit_hits[i])
            ldx_msgs_add((*out)->errors, LDX_MSG_WARNING, ldx_reader_name(r), 0, 0,
                         "rule '%s', signal '%s': the pattern hit PCRE2's match limits on "
                         "%llu line(s), counted there as no match",
                         s->rs->rules[i]->info.id,
                         s->rs->rules[i]->info.signals[s->limit_sig[i]].name,
                         (unsigned long long)s->limit_hits[i]);
    }
    uint64_t joins;
    size_t width = ldx_reader_unwrapped(r, &joins);
    if (width)
        ldx_msgs_add((*out)->errors, LDX_MSG_NOTE, ldx_reader_name(r), 0, 0,
                     "read as a paste hard-wrapped at %zu columns: %llu row(s) joined to the "
                     "row before (evidence shows a joined line at its first row)",
                     width, (unsigned long long)joins);
    if (first_long)
        ldx_msgs_add((*out)->errors, LDX_MSG_WARNING, ldx_reader_name(r), (unsigned)first_long,
                     0, "%llu line(s) longer than %zu bytes were matched on their first %zu bytes",
                     (unsigned long long)ldx_scanner_truncated(s), LDX_LINE_MAX, LDX_LINE_MAX);
    if (st == LDX_EIO)
        ldx_msgs_add((*out)->errors, LDX_MSG_ERROR, ldx_reader_name(r), 0, 0,
                     "read error after line %llu: %s", (unsigned long long)(*out)->lines,
                     ldx_reader_error(r) ? ldx_reader_error(r) : "unknown");
    return st == LDX_EIO ? LDX_EIO : LDX_OK;
}

void ldx_file_report_destroy(ldx_file_report *fr)
{
    if (!fr) return;
    for (size_t i = 0; i < fr->n; i++) free_diagnosis(&fr->diagnoses[i]);
    free(fr->diagnoses);
    ldx_msgs_destroy(fr->errors);
    free(fr->launcher_note);
    if (fr->launcher.present) {
        free((char *)fr->launcher.signame);
        free((char *)fr->launcher.host);
        free((char *)fr->launcher.time);
    }
    for (size_t i = 0; fr->versions && i < LDXI_NCOMPONENTS; i++) free(fr->versions[i]);
    free(fr->versions);
    free(fr->path);
    free(fr->path_bytes);
    for (size_t i = 0; i < fr->nown; i++) free(fr->own[i]);
    free(fr->own);
    free(fr);
}

int ldx_file_report_worst(const ldx_file_report *fr)
{
    int w = -1;
    for (size_t i = 0; i < fr->n; i++)
        if (!fr->diagnoses[i].in_baseline && (int)fr->diagnoses[i].rule->severity > w)
            w = (int)fr->diagnoses[i].rule->severity;
    return w;
}

void ldx_format_time(ldx_ts_kind kind, double ts, char *buf, size_t size)
{
    if (kind == LDX_TS_NONE) {
        snprintf(buf, size, "-");
        return;
    }
    if (kind == LDX_TS_BOOT) {
        snprintf(buf, size, "+%.3fs", ts);
        return;
    }
    time_t t = (time_t)floor(ts);
    int ms = (int)floor((ts - floor(ts)) * 1000.0 + 0.5);
    if (ms > 999) ms = 999;
    struct tm tm;
    gmtime_r(&t, &tm);
    if (kind == LDX_TS_WALL)
        snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
    else
        snprintf(buf, size, "%02d-%02d %02d:%02d:%02d.%03d", tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}
