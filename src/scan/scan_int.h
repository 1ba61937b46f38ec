/* What a scan keeps per rule and signal, read by the diagnosis. Never installed. */
#ifndef LDX_SCAN_SCAN_INT_H
#define LDX_SCAN_SCAN_INT_H

#include <pthread.h>
#include <stdbool.h>

#include "logdx/scan.h"
#include "../plumbing.h"
#include "../rules/ruleset_int.h"
#include "failure.h"
#include "launcher.h"
#include "memo.h"
#include "../core/version.h"

#define LDXI_EV_FIRST 3      /* evidence kept per signal: the first few hits ... */
#define LDXI_EV_TEXT 640     /* ... with their text cut to this many bytes (a whole OOM line) */
#define LDXI_CAP_TEXT 80
#define LDXI_EV_LEAD 48      /* context kept before captures when a long line is cut */
#define LDXI_SERIES_MAX 16   /* trend series (ranks) kept per capture */
#define LDXI_SAMPLES 32      /* values kept per series for display */
#define LDXI_RANK_BITS 4096
#define LDXI_NUMREAD 256     /* numbers a batch remembers by where they lie (a power of two) */

/* What a line says about itself besides its message. */
typedef struct {
    int rank;             /* -1: none */
    ldx_ts_kind ts_kind;
    double ts;            /* seconds, meaning per ts_kind */
    char host[64];        /* "" when none */
    long step;            /* training step or iteration, -1: none */
} ldxi_line_info;

/* Reads rank, timestamp (ISO-8601, Python logging, glog, syslog, dmesg), host (NCCL
 * prefix, syslog) and step ("step 10", "iteration 100/", "global_step=5"). */
void ldxi_line_parse(const char *text, size_t len, ldxi_line_info *info);

typedef struct {
    uint64_t line;
    int rank;
    ldxi_line_info info;   /* time, host, step of the line */
    char *text;
    char **caps;   /* one per named capture of the signal; NULL when it did not take part */
} ldxi_hit;

typedef struct {
    int rank;
    uint32_t n, rises, falls;
    uint32_t flat;         /* the latest points within 0.1% of the first of them (flat_base) */
    double flat_base;
    double first, last;
    long last_step;        /* the training step of the last point, -1 when its line named none */
    double samples[LDXI_SAMPLES];
    uint32_t nsamples, stride, skip; /* decimation keeps the samples spread over the run */
} ldxi_series;

#define LDXI_JUMP_BASE 8 /* readings before a value that give the level it rose from */

typedef struct {
    uint64_t n;
    double min, max, sum, first, last;
    /* The jump: the reading (one a training step) that stands highest above the level of the
     * up to LDXI_JUMP_BASE readings before it (at least 3, none more than 1.5 times their
     * median, a positive median), as that median, the reading and the reading after it (NAN until
     * there is one): a spike against where the run was, not against a mean its own tail has
     * raised or a first loss it fell from. */
    double jump_from, jump_to, jump_next;
    double recent[LDXI_JUMP_BASE];
    long recent_step[LDXI_JUMP_BASE]; /* their training steps, -1: none; a step below them all
                                       * starts the level again (a second run in the log) */
    uint64_t nrecent;     /* finite readings seen */
    bool jump_open;       /* the next reading is the one after the jump */
    ldxi_series series[LDXI_SERIES_MAX];
    uint32_t nseries;
} ldxi_numstat;

typedef struct {
    uint64_t count;
    ldxi_hit *first;     /* LDXI_EV_FIRST of them from the first hit on (most signals
                          * never hit: a scanner holds hundreds of these) */
    uint32_t nfirst;
    ldxi_hit last;       /* the latest hit after the first few */
    bool has_last;
    /* The last hit is overwritten on every hit of a busy signal, so its text, captures
     * and line structure are only made when the scan's results are asked for
     * (ldxi_scan_settle): until then it points into the batch, and once the batch is
     * done (or the line, for the plain engine) into a copy of the line's bytes here. */
    bool last_pending;
    bool pend_owned;     /* pend_text is raw, not the batch's */
    const char *pend_text;
    size_t pend_len;
    size_t *pend_ov;     /* 2 per named capture: offsets in pend_text, or SIZE_MAX */
    char *raw;
    size_t rawcap;
    uint64_t *rankbits;  /* LDXI_RANK_BITS, from the first hit with a rank on */
    uint32_t nranks;
    ldxi_numstat *nums;  /* one per named capture, allocated on the first number */
} ldxi_sigstate;

typedef struct {
    uint64_t last_a_line;   /* 0: a has not hit yet */
    ldx_ts_kind last_a_kind;
    double last_a_ts;
    uint64_t count;
} ldxi_trackstate;

typedef struct {
    size_t off, len;     /* in the batch buffer */
    uint64_t lineno;
    uint8_t hints;       /* LDXI_HINT_*: structure readers that want the line */
    int rank;            /* ldx_line_rank, once the line has a match */
    uint32_t memo;       /* the memo entry of its template, or LDXI_MEMO_NONE */
    uint32_t cx;         /* the collapsed memo's entry whose signals it takes instead of
                          * the prefilter's (memo.h), or LDXI_MEMO_NONE */
} ldxi_bline;

typedef struct {
    size_t off, len;     /* whole lines in the batch buffer, as they came: each ends with
                          * a line end ("\n", "\r", "\r\n"), ANSI escapes still in */
    uint64_t first_line, lines;
} ldxi_seg;

typedef struct {
    size_t off;          /* a template the prefilter scans, in tbuf */
    uint32_t line;       /* its batch line */
} ldxi_tline;

enum { LDXI_HINT_LAUNCHER = 1, LDXI_HINT_VERSIONS = 2, LDXI_HINT_FAILURE = 4 };

typedef struct {
    uint32_t line, id;   /* a prefilter hit: batch line index, database id */
} ldxi_phit;

typedef struct {
    uint32_t line, g;    /* a confirmed signal: batch line, signal index */
    uint32_t co;         /* where its capture offsets start in the batch's co[] */
    bool out;            /* the pattern matched, the signal's where did not hold: kept for
                            the memo and signals of the same pattern, not a hit */
} ldxi_match;

/* What matching cost one rule: merged into the scanner by ldxi_scan_count(). */
typedef struct {
    uint64_t calls, matches, ns, limit_hits;
    uint32_t limit_sig;
} ldxi_rulecount;

/* Lines queued for the prefilter, what it found in them, and what PCRE2 confirmed. */
typedef struct ldxi_batch_s {
    char *buf;           /* runs of lines (segs), split into bl[] by the matching thread */
    size_t len, cap;
    ldxi_seg *seg;
    size_t nseg, segcap;
    uint64_t nlines;     /* in the segs (bl[] has room for them) */
    char *rbuf;          /* the lines the memo does not know, for the prefilter, */
    size_t rcap;
    char *tbuf;          /* and their templates (digits.c) at the same offsets */
    size_t tlen, tcap;
    bool remembered;     /* the memo was in use for the batch */
    uint64_t pf_bytes;   /* what the prefilter scanned of it */
    ldxi_tline *tl;
    size_t ntl, tlcap;
    uint64_t known;      /* lines the memo knew */
    ldxi_bline *bl;
    size_t nbl, blcap;
    uint32_t *busy;      /* the lines matching must visit: all but those of quiet templates
                          * (memo.h), which need nothing */
    size_t nbusy, busycap;
    uint32_t *hot;       /* the lines the applying thread must see (a match or a hint), so
                          * that it reads nothing of the others (with -j, bl[] was
                          * written on another core) */
    size_t nhot, hotcap;
    ldxi_phit *ph;
    size_t nph, phcap;
    ldxi_phit *ph2;      /* room to sort ph into */
    size_t ph2cap;
    uint32_t *lend;      /* per line: where its hits end in the sorted list */
    size_t lendcap;
    uint32_t *last;      /* per signal: batch line + 1 of its last hit */
    bool failed;         /* out of memory collecting hits: every signal on every line */
    ldxi_match *m;       /* the confirmed signals, in line then rule and signal order */
    size_t nm, mcap;
    size_t *co;          /* their capture offsets */
    size_t nco, cocap;
    double *val;         /* the number of each capture (val[i / 2] for co[i]), NaN: none:
                          * read by the matching thread, not the one that applies */
    size_t valcap;
    uint8_t *vread;      /* per val[]: read yet (numbers are read as they are needed) */
    size_t vreadcap;
    /* the numbers read in this batch by where they lie on their line: distinct signals that
     * capture the same bytes (a concept rule's reader and a specific rule's, a user's rule
     * beside a built-in one) read them once; an entry of an earlier match is stale */
    struct ldxi_numread {
        const char *at;
        uint32_t len, gen;
        double v;
    } numread[LDXI_NUMREAD];
    uint32_t numgen;
    ldxi_rulecount *rc;  /* per rule */
    uint64_t pf_ns;      /* the prefilter's time on it */
    uint64_t pf_pairs;   /* the (line, signal) pairs it handed to PCRE2 */
    bool done;           /* matched (by a worker): ready to apply */
    char pad_[64];       /* batches side by side are written by different threads: no
                          * cache line of one is another's */
} ldxi_batch;

/* One matching thread: what it cannot share. */
typedef struct {
    struct ldx_scanner *s;
    pthread_t thread;
    void *scratch;           /* Vectorscan */
    pcre2_match_data *md;
    uint64_t nconfirm;
    /* per pattern head (hsdb same_head): the line it was last run on, and where the
     * captures of its match there start in the batch's co[] and val[] (UINT32_MAX: it
     * did not match), so that signals sharing it share the run and its numbers */
    uint64_t *stamp, seq;
    uint32_t *res;
    uint8_t *pass;       /* and whether it passed its where (signals with that where take it) */
    ldxi_memo memo;      /* what the lines of each template matched (memo.h) */
    ldxi_memo cmemo;     /* what may match the lines of each collapsed template */
    char *ctext;         /* a line's collapsed template (LDXI_MEMO_LINE_MAX + slack) */
    uint32_t *cg;        /* a collapsed template's candidates, as they are collected */
    size_t ncg, cgcap;
    ldxi_phit *cph;      /* a line's candidates from its collapsed template, as
                          * prefilter hits */
    size_t cphcap;
    /* collapsed templates are made from the first batch where the memo knew fewer than
     * three lines in four (most logs never need them, nor their database), for good
     * (LOGDX_MEMO_COLLAPSE=always|never decides instead, for the tests) */
    int8_t collapse;     /* 0: not yet, 1: on, -1: never */
    ldxi_memo_judge judge; /* whether the memo pays, and its rests (memo.h) */
    struct ldxi_cand {
        uint32_t g;
        uint32_t m;      /* its match in the batch, UINT32_MAX: none */
        bool off;        /* its rule was over its time budget */
    } *cand;             /* a remembered line's candidates */
    size_t candcap;
    char pad_[64];       /* (as for batches) */
} ldxi_worker;

/* What the current line says about itself: its rank on its first hit, the rest of its
 * structure only when evidence or a time window needs it. */
typedef struct {
    bool ranked, parsed, stepped;
    int rank;
    long step;
    ldxi_line_info li;
} ldxi_linectx;

struct ldx_scanner {
    const ldx_ruleset *rs;
    ldxi_sigstate **st;   /* st[rule][signal] */
    uint64_t *rule_lines; /* lines on which any signal of a rule hit */
    ldxi_trackstate **trk; /* trk[rule][tracker] */
    pcre2_match_data *md;
    char *clean;          /* the line without ANSI escapes */
    ldxi_launcher launcher;
    ldxi_failure failure; /* how the processes died (failure.c) */
    char versions[LDXI_NCOMPONENTS][32]; /* "" when not seen */
    pcre2_match_context *mctx;           /* match, depth and heap limits */
    uint64_t *limit_hits;                /* per rule: lines where a limit stopped a match */
    uint32_t *limit_sig;                 /* per rule: the signal that hit it last */
    uint64_t *rule_ns;                   /* per rule: estimated PCRE2 time on this input */
    bool *rule_off;                      /* per rule: over its time budget, skipped */
    uint64_t nconfirm;                   /* confirms so far, for sampling the clock */
    bool profile;                        /* time every confirm (rules profile) */
    bool gate_check;                     /* LOGDX_GATE_CHECK: confirm.c's ldxi_gate_check */
    bool every_number;                   /* read every capture as a number (explain) */
    uint64_t *sig_prof;                  /* profiling: per signal (rule_base order) runs,
                                          * matches, ns */
    ldxi_prefilter_cost pf;               /* the prefilter's share so far */
    uint64_t *rule_calls, *rule_matches; /* per rule: PCRE2 runs and matches */
    size_t *rule_base;                   /* first signal index of each rule */
    struct ldxi_pending {
        ldxi_sigstate *ss;               /* a state whose last hit awaits its copy */
        uint32_t ncaps;                  /* its signal's captures */
    } *pend;
    size_t npend, pendcap;
    /* the prefilter engine (batch.c): lines are batched, scanned at once, confirmed by
     * PCRE2, on worker threads when there are any, and applied here in order */
    ldxi_batch *bt;                      /* a ring of nbt */
    int nbt;
    uint64_t filled, claimed, applied;   /* batches handed on, taken by a worker, applied */
    ldxi_worker own;                     /* this thread's, when it matches batches itself */
    ldxi_worker *wk;
    int nworkers;
    int want;                            /* workers to start once an input needs them */
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    bool quit;
    /* the log's last lines, for the tail signals (tail.c): two halves of up to
     * rs->max_tail lines each, their text end to end; the older half is dropped when
     * the newer one is full, so both hold at least the last rs->max_tail lines */
    struct ldxi_tailhalf {
        char *text;                      /* each line cut to LDX_TAIL_TEXT bytes */
        size_t len, cap;
        struct ldxi_tailline {
            size_t off, len;
            uint64_t lineno;
        } *line;                         /* rs->max_tail of them */
        size_t n;
    } tail[2];
    int tail_cur;                        /* the half lines go to */
    uint64_t tail_at;                    /* lines when the tail signals were matched */
    uint64_t *tail_lines;                /* per rule: tail lines that only a tail signal hit */
    uint64_t tail_runs;                  /* PCRE2 runs of the tail signals, last matching */
    struct ldxi_batch_s *tail_pend;      /* the last applied batch, its last lines not
                                          * kept yet (batch.c) */
    /* twins (twins.c), per prefilter signal: the ruleset's twin_of and has_twins
     * (ldxi_hsdb; NULL: no twins), whether a twin still shares its head's state, and the
     * line a head was last recorded on, as apply_seq << 32 | its index in the batch, + 1
     * (a caller's line numbers need not be unique) */
    const uint32_t *twin_of;
    const uint8_t *has_twins;
    uint8_t *twinned;
    uint64_t *rec_line;
    uint64_t apply_seq;                  /* batches applied since the scan began */
    /* counted on every line by the reading thread, apart from what the workers read
     * (sharing a cache line with rs cost -j 2 a tenth of its time) */
    char pad_[64];
    uint64_t lines;
    uint64_t truncated;
};

/* The functions below, by file, from the top of the scan layer down: a file calls only
 * those of files listed after it (and rank.c, text.c, lineinfo.c, memo.c, launcher.c,
 * failure.c, which call nothing here).
 *
 *   scanner.c   front door (logdx/scan.h)
 *   batch.c     batch engine: ring, threads, applying in input order
 *   match.c     matching one batch: cut, memo, prefilter, PCRE2
 *   tail.c      tail signals on the last lines
 *   plain.c     plain engine
 *   twins.c     twin signals' state
 *   record.c    recorder: a hit into its signal's state and its rule's trackers
 *   numstat.c   number series
 *   structure.c structure readers and a line's own fields
 *   confirm.c   PCRE2 on one signal, and its cost */

/* ---- batch.c: the batch engine ---- */
ldx_status ldxi_batch_init(ldx_scanner *s);
void ldxi_batch_free(ldx_scanner *s);
/* Forgets the lines queued and not yet applied (ldx_scanner_reset). */
void ldxi_batch_discard(ldx_scanner *s);
/* Queues a line; false if it could not (the caller scans it with the plain engine). */
bool ldxi_batch_line(ldx_scanner *s, const ldx_line *line);
/* A chunk of whole lines (ldxi_reader_chunk) for the batches; false when it could not be
 * queued (then nothing was). */
bool ldxi_batch_chunk(ldx_scanner *s, const ldxi_chunk *c);
/* Where the reader may write the next chunk, at the end of the batch being filled, and
 * how much; NULL when there is no memory for it. */
char *ldxi_batch_read_room(ldx_scanner *s, size_t *cap);

/* The chunk written there is queued; false when it could not be (nothing was, and the
 * room may be reused: the caller must copy the chunk out first). */
bool ldxi_batch_placed(ldx_scanner *s, const ldxi_chunk *c);
/* Scans the lines queued for the prefilter; ldx_scanner_flush() calls it before the
 * tail and the results. */
void ldxi_scanner_flush(ldx_scanner *s);

/* ---- text.c: line text ---- */
/* How many bytes of markdown quote markers ("> ", "> > ") start line p[0..n) (text.c), and
 * the line without them, in place: its new length. */
size_t ldxi_quote_len(const char *p, size_t n);
size_t ldxi_unquote(char *p, size_t n);
/* Where the message string of line p[0..n) starts when the line is a record of a JSON log
 * (Docker's {"log":"...","stream":...}, journald, Cloud Logging, a structured logger), 0
 * when it is not (text.c); with that offset, the line the program printed, in place: its
 * new length; and that line as the scan reads it, escapes it carried (an escaped ESC,
 * typographic quotes) cleaned too. The record is read once, by ldxi_json_log. */
size_t ldxi_json_log(const char *p, size_t n);
size_t ldxi_unjson(char *p, size_t n, size_t at);
size_t ldxi_json_line(char *p, size_t n, size_t at);
/* Whether src[0..len) holds what ldxi_clean_line changes (an ESC, or the first bytes of a
 * typographic quote), and the line as the scan reads it: ANSI escapes removed
 * (ldx_strip_ansi) and typographic quotes (U+2018-201F, U+2032-2033) as ASCII ' and ",
 * since a log pasted through a blog's or a forum's editor comes with them. dst may be
 * src; returns the new length. */
bool ldxi_line_unclean(const char *src, size_t len);
/* The second half of that test alone: a typographic quote in src[0..len). */
bool ldxi_typo_quotes(const char *src, size_t len);
size_t ldxi_clean_line(const char *src, size_t len, char *dst);

/* ---- match.c ---- */
/* Matches a batch on thread w: its lines cut, the prefilter, PCRE2; the results stay in
 * the batch until it is applied. */
void ldxi_match_batch(const ldx_scanner *s, ldxi_batch *b, ldxi_worker *w);
/* Turns collapsed templates on for the worker (their databases loaded, its scratch grown
 * for them); false where they cannot be. */
bool ldxi_collapse_on(const ldx_scanner *s, ldxi_worker *w);

/* ---- tail.c: tail signals ---- */
/* The ring of last lines, fed by both engines' callers in input order (ldxi_tail_keep,
 * only when rs->max_tail), and the matching of the tail signals on it, which
 * ldx_scanner_flush() runs. */
ldx_status ldxi_tail_init(ldx_scanner *s);
void ldxi_tail_free(ldx_scanner *s);
void ldxi_tail_clear(ldx_scanner *s);
void ldxi_tail_keep(ldx_scanner *s, const char *text, size_t len, uint64_t lineno);
void ldxi_tail_match(ldx_scanner *s);

/* ---- plain.c: the plain engine ---- */
void ldxi_scan_plain(ldx_scanner *s, const char *text, size_t len, uint64_t lineno);
/* Signal k of rule i on a line, PCRE2 alone, recorded (counts and hit) when it matches:
 * the plain engine's step, and the tail signals'. */
bool ldxi_scan_signal(ldx_scanner *s, size_t i, size_t k, const char *text, size_t len,
                      uint64_t lineno, ldxi_linectx *lc);

/* ---- twins.c: signals that record as their head does, until they part ---- */
ldx_status ldxi_twins_init(ldx_scanner *s);
void ldxi_twins_reset(ldx_scanner *s);
void ldxi_twins_free(ldx_scanner *s);
/* Twin c takes a copy of its head's state and records on its own from now on. */
void ldxi_twin_split(ldx_scanner *s, uint32_t c);
void ldxi_twins_split_all(ldx_scanner *s);
/* The results are asked for: every twin takes a copy of its head's state. */
void ldxi_twins_sync(ldx_scanner *s);

/* ---- record.c: the recorder ---- */
/* A match recorded: co the capture offsets, vals their numbers as ldxi_parse_quantity
 * reads them (NaN: none, or not read), or NULL to read them here. */
void ldxi_scan_hit(ldx_scanner *s, size_t rule, size_t sig, const ldxi_sigc *sc, const char *text,
                   size_t len, uint64_t lineno, ldxi_linectx *lc, const size_t *co,
                   const double *vals);
/* ldxi_scan_hit() without the record: a twin's hit (twins.c) still counts for its
 * rule's sequences. */
void ldxi_scan_track(ldx_scanner *s, size_t rule, size_t sig, const char *text, size_t len,
                     uint64_t lineno, ldxi_linectx *lc);
/* The batch (or line) is about to be reused: pending last hits keep a copy of their
 * line. */
void ldxi_scan_materialize(ldx_scanner *s);
/* The results are asked for: pending last hits are made (display text, captures, line
 * structure). */
void ldxi_scan_settle(ldx_scanner *s);
/* Forgets what a signal recorded. */
void ldxi_sigstate_clear(ldxi_sigstate *ss, size_t ncaps);
const ldxi_sigstate *ldxi_scanner_state(const ldx_scanner *s, size_t rule, size_t sig);
const ldxi_trackstate *ldxi_scanner_track(const ldx_scanner *s, size_t rule, size_t t);

/* ---- numstat.c: number series ---- */
/* A value read at a training step (-1: the line names none). The same step's value again in
 * a rank's series (eight ranks printing the same step's line with no rank tag, a logger
 * printing it twice) is one reading of the run: it counts in the aggregates, not in the
 * series' trend. */
/* jump: also keep the readings a jump is measured from (a condition reads its jump). */
void ldxi_numstat_add(ldxi_numstat *ns, int rank, long step, double v, bool jump);
/* Aggregates for conditions; NAN when there are no values. */
double ldxi_numstat_get(const ldxi_numstat *ns, ldxi_func f, double arg);
/* The series that makes rising/falling true (or the longest one), for display. */
const ldxi_series *ldxi_numstat_trend(const ldxi_numstat *ns, ldxi_func f, double arg);

/* ---- structure.c: structure readers and a line's own fields ---- */
/* Which structure readers may want a line, by cheap tests (the plain engine's; the
 * batch engine has the prefilter say it). */
uint8_t ldxi_scan_hints(const char *text, size_t len);
void ldxi_scan_structure(ldx_scanner *s, const char *text, size_t len, uint64_t lineno,
                         uint8_t hints);
/* Whether a structure reader is in the middle of a block and wants every line, line
 * lineno among them (a warning's window ends at its source line or LDXI_FAIL_WARNING lines
 * on, whether or not a line after it is fed). */
static inline bool ldxi_scan_following(const ldx_scanner *s, uint64_t lineno)
{
    return s->launcher.state || s->failure.nopen || ldxi_failure_in_warning(&s->failure, lineno);
}
/* The line's rank, or its whole structure, read once however many hits need it. */
void ldxi_linectx_rank(ldxi_linectx *lc, const char *text, size_t len);
/* The training step the line names, -1 when none (its structure's, when parsed). */
long ldxi_linectx_step(ldxi_linectx *lc, const char *text, size_t len);
void ldxi_linectx_parse(ldxi_linectx *lc, const char *text, size_t len);

/* versions.c (fed by ldxi_scan_structure) */
void ldxi_versions_feed(ldx_scanner *s, const char *text, size_t len);
/* Whether a version banner could be read from the line, whatever is known already: one
 * answer for every line of its template (the version patterns are digit-blind), so the
 * line memo drops the hint from templates that hold none. Thread-safe with one md per
 * thread. */
bool ldxi_versions_possible(const char *text, size_t len, pcre2_match_data *md);
/* ldx_scanner_version by component index (ldxi_components); NULL for -1 or none seen. */
const char *ldxi_scanner_version_at(const ldx_scanner *s, int c);
/* lineinfo.c: ldxi_line_parse for a line whose rank is already known. */
void ldxi_line_parse_ranked(const char *text, size_t len, int rank, ldxi_line_info *li);
/* lineinfo.c: the training step alone, -1 when the line names none. */
long ldxi_line_step(const char *text, size_t len);

/* body.c: where the text a program printed starts on text[0..len), past the prefixes
 * that launchers, container runtimes and log collectors put before it ("[rank3]: ",
 * "3: ", "trainer-0  | ", an ISO-8601 clock, Ray's "(pid=..) "); 0 where it holds none.
 * Reads shapes, not values: one answer for all lines of a template. */
size_t ldxi_line_body(const char *text, size_t len);

/* ---- confirm.c: PCRE2 on one signal ---- */
/* sc's compiled code on text[0..len) from start (ldxi_sig_subject's length and options):
 * pcre2_match's result. A pattern anchored at a line's start that does not match is
 * tried again on the line's body (ldxi_line_body), the offsets in md then the whole
 * line's. Every run of a signal's pattern, or of its widenings, on a line goes here. */
int ldxi_sig_exec(const ldxi_sigc *sc, pcre2_code *code, const char *text, size_t len, size_t start,
                  uint32_t opts, pcre2_match_data *md, pcre2_match_context *mctx);
/* PCRE2 from text[start]: no match of the signal may start before it (the line memo
 * knows where the first one can, see match.c); lookbehinds still see the text before.
 * Thread-safe: counts go to rc. */
bool ldxi_scan_match(const ldx_scanner *s, size_t rule, size_t sig, const char *text, size_t len,
                     size_t start, pcre2_match_data *md, ldxi_rulecount *rc, uint64_t *nconfirm);
/* Whether signal k of rule i (its pattern and where) matches text: a question about a
 * line, recorded nowhere. Only on the scanner's own thread between batches (it uses the
 * scanner's match data): the diagnosis, and the tail signals' matching. */
bool ldxi_scan_matches_text(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len);
/* A line signal k of rule i's gate turned away, matched all the same: aborts on a match. */
void ldxi_gate_check(const ldx_scanner *s, size_t i, size_t k, const char *text, size_t len, size_t start,
                     pcre2_match_data *md);
/* Counts, as a run of signal k of rule i, the answer it took from another signal's run of
 * the same pattern on the line (no time: nothing ran), so that every signal's matches
 * are its own whatever it shares. */
void ldxi_scan_shared(const ldx_scanner *s, size_t i, size_t k, bool hit, ldxi_rulecount *rc);
/* Counts a match of signal k of rule i that the memo knew (a match, no run): once for
 * every remembered match, so inline (below). */
static inline void ldxi_scan_remembered(const ldx_scanner *s, size_t i, size_t k, ldxi_rulecount *rc);
/* Adds a batch's or a line's counts of rule i to the scanner's. */
void ldxi_scan_count(ldx_scanner *s, size_t rule, const ldxi_rulecount *rc);
/* Whether the match in md of a signal on text is a hit by its where (always, without
 * one): the plain engine's and the tail's test. The batch engine reads the numbers it
 * tests into the batch, as far as the where's clauses need them (match.c). */
bool ldxi_scan_where(const ldxi_sigc *sc, const char *text, pcre2_match_data *md);
/* Takes back the match counted for signal k of rule i: its where did not hold. */
void ldxi_scan_dropped(const ldx_scanner *s, size_t i, size_t k, ldxi_rulecount *rc);
/* The capture offsets of a signal's named captures after a match: 2 per capture,
 * SIZE_MAX when it did not take part. */
void ldxi_scan_caps(const ldxi_sigc *sc, pcre2_match_data *md, size_t *co);
/* Whether a scan reads capture c of a signal as a number (see ldxi_sigc.numbered). */
static inline bool ldxi_scan_numbered(const ldx_scanner *s, const ldxi_sigc *sc, size_t c)
{
    return s->every_number || (sc->numbered && sc->numbered[c]);
}

static inline void ldxi_scan_remembered(const ldx_scanner *s, size_t i, size_t k, ldxi_rulecount *rc)
{
    rc->matches++;
    if (s->profile && s->sig_prof)
        __atomic_fetch_add(&s->sig_prof[3 * (s->rule_base[i] + k) + 1], 1, __ATOMIC_RELAXED);
}

#endif
