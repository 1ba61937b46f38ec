/* A failed run that no rule names is never answered with silence.
 *
 * The rules of class unclassified_failure fire on the words of dying (a traceback's
 * header, std::terminate, a fatal signal, a launcher's or scheduler's non-zero exit);
 * the failure reader (scan/failure.c) has read the blocks themselves. Here the first
 * failure that no other fired rule explains becomes the diagnosis: its line, its rank,
 * the exception's type and the innermost frame outside libraries, where the user's
 * code was. A failure another rule's symptom pattern matches (the OutOfMemoryError
 * line of a CUDA OOM) is explained; an exit status says nothing beyond "it failed", so
 * it is only used when no other rule fired at all, and not before the job's own report that it
 * completed. An exception that the log goes on long after, with no launcher or exit report
 * behind it, was handled: not a failure. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_int.h"
#include "../core/util.h"

/* an exception this close to the end of the log is where the process died */
#define TERMINAL_SPAN 400

typedef struct {
    uint64_t line;
    const ldxi_fail_event *ev; /* a block the reader read, or */
    const ldxi_hit *hit;       /* a line of one of the rule's own signals */
    size_t sig;
} candidate;

static int cand_cmp(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Signals whose name starts with "exit" report an exit status: weak evidence. */
static bool exit_report(const ldxi_rule *r, size_t k)
{
    return strncmp(r->info.signals[k].name, "exit", 4) == 0;
}

/* Signals whose name starts with "wrapper" read a line that announces an exception the log
 * prints again further down (Ray's dual type above its remote traceback). */
static bool wrapper_report(const ldxi_rule *r, size_t k)
{
    return strncmp(r->info.signals[k].name, "wrapper", 7) == 0;
}

/* The fallback rule: the one whose signals stand for the failure reader's blocks (a
 * signal named "traceback"), beside specific rules of the class (a CUDA library that
 * cannot be loaded), which name what they saw. */
static bool fallback(const ldxi_rule *r)
{
    for (size_t k = 0; k < r->info.nsignals; k++)
        if (!strcmp(r->info.signals[k].name, "traceback")) return true;
    return false;
}

/* Does another fired rule (not d[self]) explain this line: evidence of its own there, or
 * one of its symptom patterns matching the text? For the fallback (own_class), a specific
 * rule of its own class explains a line too (the line is reported once, by the rule that
 * names it), and the few lines after its evidence (the loader's next words, the abort
 * that follows). */
#define OWN_CLASS_SPAN 5
static const ldx_signal_info *signal_named(const ldxi_rule *r, const char *name)
{
    for (size_t k = 0; name && k < r->info.nsignals; k++)
        if (!strcmp(r->info.signals[k].name, name)) return &r->info.signals[k];
    return NULL;
}

static bool tail_signal(const ldxi_rule *r, const char *name)
{
    const ldx_signal_info *si = signal_named(r, name);
    return si && si->tail != 0;
}

/* A context line of a rule that names this failure as its cause, not next to one of its
 * symptoms, is that cause as the rule read it (the exception before a KeyboardInterrupt),
 * not a part of the rule's own report (gloo's file and line on the line above its timeout's
 * words, a message a paste wrapped). */
#define REPORT_SPAN 1
static bool read_as_cause(const ldx_diagnosis *dj, const ldxi_rule *rj, const ldxi_rule *self,
                          const ldx_evidence *ev)
{
    const ldx_signal_info *si = signal_named(rj, ev->signal);
    if (!si || si->role != LDX_SIGNAL_CONTEXT || !ldxi_rule_cause(rj, self, NULL)) return false;
    for (size_t e = 0; e < dj->nevidence; e++) {
        const ldx_evidence *o = &dj->evidence[e];
        const ldx_signal_info *oi = o == ev ? NULL : signal_named(rj, o->signal);
        if (oi && oi->role == LDX_SIGNAL_SYMPTOM &&
            (o->line > ev->line ? o->line - ev->line : ev->line - o->line) <= REPORT_SPAN)
            return false;
    }
    return true;
}

static bool explained(ldx_scanner *s, const ldx_diagnosis *d, const ldxi_rule *const *rules,
                      size_t n, size_t self, bool own_class, uint64_t line, const char *text)
{
    size_t len = strlen(text);
    for (size_t j = 0; j < n; j++) {
        bool same = !strcmp(d[j].rule->klass, LDXI_UNCLASSIFIED);
        if (j == self || (same && !own_class)) continue;
        for (size_t e = 0; e < d[j].nevidence; e++) {
            /* what a signal read on the log's last lines (a progress bar the crash was
             * written into) says how the log ended, not what failed there */
            if (tail_signal(rules[j], d[j].evidence[e].signal)) continue;
            if (!same && read_as_cause(&d[j], rules[j], rules[self], &d[j].evidence[e])) continue;
            uint64_t at = d[j].evidence[e].line;
            if (at == line || (same && at < line && line - at <= OWN_CLASS_SPAN)) return true;
        }
        const ldxi_rule *o = rules[j];
        for (size_t k = 0; k < o->info.nsignals; k++)
            if (o->info.signals[k].role == LDX_SIGNAL_SYMPTOM && !o->info.signals[k].tail &&
                ldxi_scan_matches_text(s, o->index, k, text, len))
                return true;
    }
    return false;
}

/* A line that ends in a colon goes on below: an exception line read alone ("XGBoostError:
 * [10:45:01] .../result.cc:83: [coll.cu:203|10:45:01]:" over its chain of reasons, "- [coll.cu:162
 * |...]: NCCL timeout: 1800s.") says what failed in the lines after it, and another rule's
 * evidence there explains it; so does a line of a signal with `below: N`, a report's heading
 * whose reason follows (CANN's "EI9999: Inner Error!"), whatever rule reads that reason. Under a
 * colon, not the evidence of a rule that follows from a failure (a launcher's "Rank 0 crashed
 * with exit code 1" under Hydra's "Error in call to target ...:"), which is this failure's
 * consequence. */
#define CONTINUED_SPAN 4
static bool explained_below(const ldx_diagnosis *d, const ldxi_rule *const *rules, size_t n, size_t self,
                            uint64_t line, const char *text, unsigned below)
{
    size_t len = ldxi_trimmed_len(text, strlen(text));
    uint64_t span = len && text[len - 1] == ':' ? CONTINUED_SPAN : 0;
    if (below > span) span = below;
    if (!span) return false;
    for (size_t j = 0; j < n; j++) {
        if (j == self || !strcmp(d[j].rule->klass, LDXI_UNCLASSIFIED)) continue;
        if (!below && ldxi_rule_cause(rules[j], rules[self], NULL)) continue;
        for (size_t e = 0; e < d[j].nevidence; e++) {
            uint64_t at = d[j].evidence[e].line;
            if (at > line && at - line <= span) return true;
        }
    }
    return false;
}

static bool add(ldx_diagnosis *u, size_t *cap, uint64_t line, const char *text,
                const char *signal)
{
    if (ldxi_grow((void **)&u->evidence, cap, u->nevidence + 1, sizeof(ldx_evidence)) != LDX_OK)
        return false;
    ldx_evidence *e = &u->evidence[u->nevidence];
    memset(e, 0, sizeof *e);
    e->line = line;
    e->row = -1;
    e->code_cap = -1;
    e->signal = signal;
    e->text = ldxi_strdup(text);
    if (!e->text) return false;
    ldxi_line_info li;
    ldxi_line_parse(text, strlen(text), &li);
    e->rank = li.rank;
    e->ts_kind = li.ts_kind;
    e->ts = li.ts;
    e->step = li.step;
    if (li.host[0] && !(e->host = ldxi_strdup(li.host))) return LDX_ENOMEM;
    u->nevidence++;
    return true;
}

static void capture(ldx_evidence *e, const char *name, const char *value)
{
    if (!value || !*value) return;
    ldx_capture *c = realloc(e->caps, (e->ncaps + 1) * sizeof *c);
    if (!c) return;
    e->caps = c;
    c[e->ncaps].name = name;
    c[e->ncaps].value = ldxi_strdup(value);
    if (c[e->ncaps].value) e->ncaps++;
}

/* Past what a logger writes between its timestamp and the message, at t (the timestamp
 * already read): the separator after the time, a pid column ("  136004  ", Neuron), the
 * logger's name as the logging cookbook's format puts it ("- lmdeploy - ERROR - "), the
 * level ("ERROR ", "| ERROR    | " loguru) and loguru's "module:function:line - ". NULL
 * where t holds no level. */
static const char *past_level_prefix(const char *t)
{
    static const char *const levels[] = {"CRITICAL", "ERROR", "FATAL", "WARNING", "WARN", "INFO", "DEBUG"};
    const char *p = t;
    while (*p == ':' || *p == ',' || *p == ' ' || (*p == '|' && p[1] == ' ')) p++;
    if (p[0] == '-' && p[1] == ' ') { /* the logging cookbook's "- name - LEVEL - " */
        const char *q = p + 2;
        while (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '-') q++;
        if (q > p + 2 && !strncmp(q, " - ", 3)) p = q + 3;
    }
    if (isdigit((unsigned char)*p)) { /* a pid column */
        while (isdigit((unsigned char)*p)) p++;
        if (*p != ' ') return NULL;
        while (*p == ' ') p++;
    }
    size_t k = 0;
    for (size_t i = 0; i < sizeof levels / sizeof *levels && !k; i++)
        if (!strncmp(p, levels[i], strlen(levels[i]))) k = strlen(levels[i]);
    if (!k || (p[k] != ' ' && p[k] != ':' && p[k] != '|')) return NULL;
    p += k;
    if (*p == ':') p++;
    while (*p == ' ') p++;
    if (p[0] == '-' && p[1] == ' ') p += 2;
    if (p[0] == '|' && p[1] == ' ') p += 2; /* loguru's column bar, not "||NEURON_CC_WRAPPER||" */
    const char *dash = strstr(p, " - "); /* loguru: "yolox.core.launch:90 - " */
    if (dash && dash - p < 100) {
        const char *q = p;
        while (q < dash && *q != ' ') q++;
        if (q == dash && memchr(p, ':', (size_t)(dash - p))) p = dash + 3;
    }
    return p;
}

/* Past a tqdm bar that a native thread's message was written into before the bar's line
 * ended ("0/10 [00:00<?, ?it/sF0717 16:08:46.411695 76098 array.h:414] Check failed: ..."):
 * where the message starts after the bar's rate, or NULL. */
static const char *past_progress_bar(const char *t)
{
    const char *bar = strstr(t, "%|");
    if (!bar) return NULL;
    for (const char *p = bar; (p = strchr(p, '/')) != NULL; p++) {
        const char *rate = NULL;
        if (p - bar >= 2 && p[-2] == 'i' && p[-1] == 't' && p[1] == 's') rate = p + 2;
        else if (p[-1] == 's' && p[1] == 'i' && p[2] == 't') rate = p + 3;
        if (!rate) continue;
        if (*rate == ']') rate++;
        while (*rate == ' ') rate++;
        if (isalpha((unsigned char)*rate)) return rate;
    }
    return NULL;
}

/* The failure in the log's words: the line from the exception's type (or, for a line of
 * the rule's own, past a quote's "> " and a rank's tag), cut to a headline's length
 * (headline_of: and not inside a character). */
static char *headline_cut(const candidate *c)
{
    const char *t = c->ev ? c->ev->what.text : c->hit->text ? c->hit->text : "";
    if (c->ev && c->ev->kind == LDXI_FAIL_EXCEPTION && c->ev->type[0]) {
        const char *at = strstr(t, c->ev->type);
        if (at) t = at;
        if (c->ev->detail.line) { /* the message on the line below: "RuntimeError: Failed to ..." */
            const char *m = c->ev->detail.text;
            while (*m == ' ' || *m == '\t') m++;
            return ldxi_asprintf("%.60s: %.120s", c->ev->type, m);
        }
    } else if (c->ev && c->ev->kind == LDXI_FAIL_CUT) {
        const ldxi_fail_event *ev = c->ev;
        if (ev->type[0]) /* the innermost frame's "raise X(...)" named it */
            return ev->frame.line
                       ? ldxi_asprintf("%.60s raised in %.40s (%.80s:%ld); the log ends before its message",
                                       ev->type, ev->func, ev->file, ev->frame_lineno)
                       : ldxi_asprintf("%.60s raised; the log ends before its message", ev->type);
        return ev->frame.line
                   ? ldxi_asprintf("a traceback the log ends inside, before its exception (in %.40s, %.80s:%ld)",
                                   ev->func, ev->file, ev->frame_lineno)
                   : ldxi_strdup("a traceback the log ends inside, before its exception");
    } else if (c->ev && c->ev->kind == LDXI_FAIL_TERMINATE) {
        const char *w = c->ev->detail.line ? strstr(c->ev->detail.text, "what():") : NULL;
        if (w) {
            w += 7;
            while (*w == ' ') w++;
        }
        return ldxi_asprintf("%.60s: %.100s", c->ev->type[0] ? c->ev->type : "C++ exception",
                             w ? w : "terminate called");
    } else {
        const char *bar = past_progress_bar(t);
        if (bar) { /* the message, without the bar's padding and count the line goes on with */
            const char *pad = strstr(bar, "          ");
            return ldxi_asprintf("%.*s", (int)(pad && pad - bar < 160 ? pad - bar : 160), bar);
        }
        /* the timestamp a log collector puts before every line ("2022-01-23 02:08:36.029 ") */
        if (isdigit((unsigned char)t[0]) && strlen(t) > 20 && t[4] == '-' && t[7] == '-' &&
            (t[10] == ' ' || t[10] == 'T') && t[13] == ':' && t[16] == ':') {
            t += 19;
            while (*t == '.' || *t == ',' || isdigit((unsigned char)*t)) t++;
            const char *past = past_level_prefix(t);
            if (past && *past) t = past;
        }
        /* the prefixes launchers and collectors put there (scan/body.c), and a quote's markers */
        for (bool more = true; more;) {
            while (*t == ' ' || *t == '\t') t++;
            size_t b = ldxi_line_body(t, strlen(t));
            if (!b && *t == '>') b = 1;
            t += b;
            more = b > 0;
        }
    }
    return ldxi_asprintf("%.160s", t);
}

static char *headline_of(const candidate *c)
{
    char *h = headline_cut(c);
    if (h) ldxi_utf8_clip(h);
    return h;
}

/* A block's line that names a code (a context signal with a table lookup: "CUDA error:
 * unknown error") gets that code's row, so the failure carries the table's action. */
static void annotate(ldx_scanner *s, const ldxi_rule *r, ldx_evidence *e)
{
    size_t len = strlen(e->text);
    for (size_t k = 0; k < r->info.nsignals; k++) {
        const ldxi_sigc *sc = &r->sigs[k];
        if (!sc->table || r->info.signals[k].role != LDX_SIGNAL_CONTEXT ||
            !ldxi_scan_matches_text(s, r->index, k, e->text, len))
            continue;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
        uint32_t g = (uint32_t)sc->capgroups[sc->lookup_cap];
        if (g >= pcre2_get_ovector_count(s->md) || ov[2 * g] == PCRE2_UNSET) continue;
        char *v = ldxi_asprintf("%.*s", (int)(ov[2 * g + 1] - ov[2 * g]), e->text + ov[2 * g]);
        if (!v) return;
        size_t before = e->ncaps;
        capture(e, sc->capnames[sc->lookup_cap], v);
        free(v);
        if (e->ncaps > before) ldxi_evidence_code(e, sc, sc->lookup_cap);
        return;
    }
}

/* The chosen failure becomes u's evidence, line and rank. */
static bool describe(ldx_scanner *s, ldx_diagnosis *u, const ldxi_rule *r, const candidate *c)
{
    for (size_t i = 0; i < u->nevidence; i++) ldxi_evidence_free(&u->evidence[i]);
    u->nevidence = 0;
    size_t cap = 0;
    free(u->evidence);
    u->evidence = NULL;
    bool ok;
    if (c->ev) {
        const ldxi_fail_event *ev = c->ev;
        static const char *const names[] = {"", "exception", "terminate", "fatal_error",
                                            "traceback_cut"};
        ok = add(u, &cap, ev->what.line, ev->what.text, names[ev->kind]);
        if (ok) capture(&u->evidence[0], "type", ev->type);
        if (ok) annotate(s, r, &u->evidence[0]);
        if (ok && ev->detail.line) ok = add(u, &cap, ev->detail.line, ev->detail.text, "what");
        if (ok && ev->detail.line) annotate(s, r, &u->evidence[u->nevidence - 1]);
        if (ok && ev->frame.line) {
            /* a traceback pasted on one line (failure.c) has its frame on the exception's
             * line: the frame's captures go on that evidence */
            if (ev->frame.line != ev->what.line)
                ok = add(u, &cap, ev->frame.line, ev->frame.text, "frame");
            if (ok) {
                ldx_evidence *e = &u->evidence[u->nevidence - 1];
                char num[24];
                snprintf(num, sizeof num, "%ld", ev->frame_lineno);
                capture(e, "file", ev->file);
                capture(e, "line", num);
                capture(e, "function", ev->func);
            }
        }
        u->confidence = ev->frame.line ? 0.55 : 0.5;
    } else {
        ok = add(u, &cap, c->hit->line, c->hit->text ? c->hit->text : "",
                 r->info.signals[c->sig].name);
        const ldxi_sigc *sc = &r->sigs[c->sig];
        ldx_evidence *e = &u->evidence[0];
        for (size_t k = 0; ok && c->hit->caps && k < sc->ncaps; k++) {
            size_t before = e->ncaps;
            capture(e, sc->capnames[k], c->hit->caps[k]);
            if (e->ncaps > before) ldxi_evidence_code(e, sc, k); /* an exit status's row */
        }
        if (ok && !e->table) annotate(s, r, e);
        u->confidence = exit_report(r, c->sig) ? 0.4 : 0.5;
    }
    if (!ok) return false;
    /* the failure's line is the first one kept; the evidence reads in line order */
    ldx_evidence first = u->evidence[0];
    for (size_t i = 1; i < u->nevidence; i++)
        for (size_t j = i; j > 0 && u->evidence[j].line < u->evidence[j - 1].line; j--) {
            ldx_evidence t = u->evidence[j];
            u->evidence[j] = u->evidence[j - 1];
            u->evidence[j - 1] = t;
        }
    const ldx_evidence *m = &first;
    u->line = m->line;
    u->rank = m->rank;
    u->ts_kind = m->ts_kind;
    u->ts = m->ts;
    free(u->ranks);
    u->ranks = NULL;
    u->nranks = 0;
    if (m->rank >= 0 && (u->ranks = malloc(sizeof(int)))) {
        u->ranks[0] = m->rank;
        u->nranks = 1;
    }
    ldxi_choose_action(u);
    free(u->headline);
    u->headline = headline_of(c);
    return true;
}

/* The last line a context signal whose name starts with prefix hit, 0: none. */
static uint64_t last_context(ldx_scanner *s, const ldxi_rule *r, const char *prefix)
{
    uint64_t at = 0;
    for (size_t k = 0; k < r->info.nsignals; k++)
        if (r->info.signals[k].role == LDX_SIGNAL_CONTEXT &&
            !strncmp(r->info.signals[k].name, prefix, strlen(prefix))) {
            uint64_t last = ldxi_sigstate_last_line(ldxi_scanner_state(s, r->index, k));
            if (last > at) at = last;
        }
    return at;
}

bool ldxi_unclassified_settle(ldx_scanner *s, size_t ui, ldx_diagnosis *d,
                              const ldxi_rule *const *rules, size_t n, uint64_t lines,
                              const ldx_launcher_info *launcher)
{
    const ldxi_rule *r = rules[ui];
    ldx_diagnosis *u = &d[ui];
    bool own_class = fallback(r);
    size_t others = 0; /* fired rules that name a failure */
    for (size_t j = 0; j < n; j++) others += strcmp(d[j].rule->klass, LDXI_UNCLASSIFIED) != 0;
    const ldxi_fail_event *evs[LDXI_FAIL_EVENTS + 1 + LDXI_FAIL_OPEN];
    size_t nev = ldxi_failure_events(&s->failure, evs, sizeof evs / sizeof evs[0]);
    size_t ncand = nev;
    for (size_t k = 0; k < r->info.nsignals; k++) {
        const ldxi_sigstate *ss = ldxi_scanner_state(s, r->index, k);
        ncand += ss->nfirst + ss->has_last;
    }
    candidate *c = calloc(ncand ? ncand : 1, sizeof *c);
    if (!c) return true; /* out of memory: keep what the rule said */
    size_t m = 0;
    /* the last exit report, fatal signal or launcher summary: a process ended there */
    uint64_t last_end = launcher && launcher->present ? launcher->line : 0;
    for (size_t i = 0; i < nev; i++) c[m++] = (candidate){.line = evs[i]->what.line, .ev = evs[i]};
    for (size_t k = 0; k < r->info.nsignals; k++) {
        if (r->info.signals[k].role != LDX_SIGNAL_SYMPTOM) continue;
        const ldxi_sigstate *ss = ldxi_scanner_state(s, r->index, k);
        uint64_t last = ldxi_sigstate_last_line(ss);
        if (last > last_end && ss->count) last_end = last;
        for (uint32_t h = 0; h < ss->nfirst; h++)
            c[m++] = (candidate){.line = ss->first[h].line, .hit = &ss->first[h], .sig = k};
        if (ss->has_last) c[m++] = (candidate){.line = ss->last.line, .hit = &ss->last, .sig = k};
    }
    qsort(c, m, sizeof *c, cand_cmp);
    /* the job's own word that it completed (context signals named succeeded*): an exit report
     * before it was a replica that its controller restarted, not how the job ended */
    uint64_t succeeded = last_context(s, r, "succeeded");
    /* a launcher's word that it restarts the workers after a failure (context signals named
     * restarted*: torchelastic's "will restart worker group"): what failed before it was
     * recovered from; a failure of the restarted run comes after it */
    uint64_t restarted = last_context(s, r, "restarted");
    /* an exit report says only "it failed": the rule's other evidence (the exception an IPython
     * traceback ends in, below its header) goes first, the report where there is none */
    const candidate *pick = NULL;
    for (int pass = 0; pass < 2 && !pick; pass++) {
        for (size_t i = 0; i < m && !pick; i++) {
            if ((c[i].hit && exit_report(r, c[i].sig)) != (pass == 1)) continue;
            if (c[i].line < restarted) continue;
            if (c[i].hit) {
                /* a line the reader read as part of a block is its to judge */
                bool read = false;
                for (size_t e = 0; e < nev && !read; e++) read = evs[e]->what.line == c[i].line;
                if (read) continue;
                /* a hit of a signal the reader stands for (a traceback's header) is read
                 * as the block itself */
                const char *name = r->info.signals[c[i].sig].name;
                if (!strcmp(name, "traceback") || !strcmp(name, "frame") ||
                    !strcmp(name, "terminate") || !strcmp(name, "fatal_python"))
                    continue;
                if (exit_report(r, c[i].sig) && (others || c[i].line < succeeded)) continue;
                /* the wrapper above a remote traceback: the exception it carries is judged where
                 * the traceback ends (another rule may name it); only a paste cut before that
                 * end leaves the wrapper to stand for it */
                if (wrapper_report(r, c[i].sig) && c[m - 1].line > c[i].line) continue;
                /* a crash the log goes on long after, with nothing ending there, was a child's */
                if (lines - c[i].line > TERMINAL_SPAN && last_end <= c[i].line) continue;
                const char *text = c[i].hit->text ? c[i].hit->text : "";
                if (explained(s, d, rules, n, ui, own_class, c[i].line, text) ||
                    explained_below(d, rules, n, ui, c[i].line, text, r->info.signals[c[i].sig].below))
                    continue;
            } else {
                const ldxi_fail_event *ev = c[i].ev;
                if (ev->ignored || ev->chained) continue;
                /* a traceback cut off before its exception says only "it failed", like an
                 * exit report: its exception may be what another rule found */
                if (ev->kind == LDXI_FAIL_CUT && others) continue;
                bool terminal = lines - ev->what.line <= TERMINAL_SPAN || last_end > ev->what.line ||
                                ev->kind != LDXI_FAIL_EXCEPTION;
                if (!terminal || explained(s, d, rules, n, ui, own_class, ev->what.line, ev->what.text) ||
                    (ev->detail.line && explained(s, d, rules, n, ui, own_class, ev->detail.line, ev->detail.text)))
                    continue;
            }
            pick = &c[i];
        }
    }
    bool keep = pick && describe(s, u, r, pick);
    free(c);
    return keep;
}
