/* The multi-pattern prefilter of a ruleset (Vectorscan). Every signal pattern goes in,
 * in prefilter mode (a superset of what the PCRE2 pattern matches, so nothing is lost),
 * plus a few patterns that tell the scanner which lines to hand to its structure
 * readers (launcher summaries, version banners). PCRE2 confirms each hit; a pattern
 * Vectorscan cannot take, or gets wrong on its own rule's examples, is matched with
 * PCRE2 on every line instead.
 *
 * There are up to two databases: the built-in rules' one, compiled at build time and
 * embedded, and one compiled at run time for every other rule (user rules, or all of
 * them when the embedded one cannot be used). Adding a user rule therefore costs the
 * compilation of that rule only. */
#ifndef LDX_RULES_HSDB_H
#define LDX_RULES_HSDB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ldxi_sigc_s;
typedef struct {
    uint32_t rule, sig;
    /* the signal's compiled pattern, where and captures: the matching threads read it
     * for every item of the memo, and a rule set four times the size spread the rules
     * it hangs from over more memory than the caches hold */
    const struct ldxi_sigc_s *sc;
} ldxi_sigref;

enum { LDXI_HS_LAUNCHER = 0, LDXI_HS_VERSIONS, LDXI_HS_FAILURE, LDXI_HS_NSPECIAL };

/* What a database id stands for. */
#define LDXI_HS_IGNORE UINT32_MAX /* a built-in signal whose rule was replaced */

typedef struct {
    void *db;        /* hs_database_t */
    uint32_t *map;   /* id -> global signal index g; nsig + LDXI_HS_*; or LDXI_HS_IGNORE */
    uint32_t nids;
    size_t mapped;   /* db was loaded into pages of its own, this many bytes (0: hs malloc'd it) */
    /* The template database: the signals of db whose patterns read digits, each widened
     * for line templates (digits.c), scanned over the templates of lines the line memo
     * sees first, so that it knows which of them may match any line of a template.
     * NULL when the part has none. */
    void *tdb;
    uint32_t *tmap;  /* id -> g */
    uint32_t ntids;
    size_t tmapped;
    /* The collapsed database: every signal of db (and the specials), widened for
     * collapsed templates (digits.c), scanned over the collapsed template of a line
     * the memo knows neither way, so that it knows which signals may match any line of
     * that collapsed template. NULL when it could not be built. */
    void *cdb;
    uint32_t *cmap;  /* id -> g, or nsig + LDXI_HS_* */
    uint32_t ncids;
    size_t cmapped;
    /* a loaded part's collapsed database is deserialized when first asked for
     * (ldxi_hsdb_collapsed): most logs never need it, and it is the largest of the
     * three; until then its bytes, in cfree when that is not NULL (a cache file's
     * bytes, which the part keeps rather than copy) */
    const unsigned char *cblob;
    size_t cbloblen;
    void *cfree;
} ldxi_hspart;

/* Which lines a database scans, and so how its patterns are given (digits.c). */
enum { LDXI_HS_LINES = 0, LDXI_HS_TEMPLATES, LDXI_HS_COLLAPSED };

#define LDXI_HS_MAX_PARTS 32
/* The built-in rules are embedded as one part (ldx-hsdb serializes a single part and stops
 * the build when they need more), so this must stay above their number of distinct
 * patterns; a user's large set is compiled in parts of this size. */
#define LDXI_HS_PART_SIGNALS 4000

typedef struct ldxi_hsdb {
    /* the built-in database, then the rest in parts of at most LDXI_HS_PART_SIGNALS
     * patterns each: Vectorscan's compile time and memory grow faster than the number of
     * patterns, and parts keep a large rule set's first load linear */
    ldxi_hspart part[LDXI_HS_MAX_PARTS];
    int nparts;
    ldxi_sigref *refs;   /* g -> (rule, signal); g counts signals in ruleset order */
    uint32_t nsig;
    /* Signals with the same pattern and flags share one database entry: the entry maps
     * to the first of them, and same_next[g] links to the next (LDXI_HS_IGNORE ends). */
    uint32_t *same_next;
    uint32_t *same_head; /* g -> the first signal with its pattern (itself if unshared) */
    uint32_t *always;    /* g of the signals matched with PCRE2 on every line, ascending */
    size_t nalways;
    bool embedded;       /* part 0 came from the build-time database */
    /* Per signal g (digits.c): whether its pattern is digit-blind, and for one that is
     * not, the pattern widened for templates (pattern NULL: none), compiled on first use
     * by ldxi_sig_code() like the signals' own. The line memo reads them, through
     * ldxi_hsdb_blind(), which reads a pattern the first time it is asked: a short log
     * asks about few of the rule set's two thousand patterns. */
    unsigned char *blind; /* 0: not read yet, 1: digit-blind, 2: reads digits */
    struct ldxi_sigc_s *wide;
    /* Collapsed templates: the signals no collapsed database has (its widening failed),
     * which may match a line of any collapsed template, ascending; cwide[g], the
     * collapsed widening of each signal (pattern NULL: none; made when the collapsed
     * databases load), with which the memo asks a collapsed template whether they may
     * match its lines;
     * collapsed: every part has its collapsed database (else the memo makes no
     * collapsed templates). */
    uint32_t *calways;
    size_t ncalways;
    struct ldxi_sigc_s *cwide;
    bool collapsed;
    int cstate;          /* 0: the collapsed databases not asked for yet, 1 loaded, -1 failed */
    pthread_mutex_t clock;
    /* Twins (src/scan/twins.c): g -> the head whose recorded hits signal g's are, a
     * signal with the head's pattern, where and captures (LDXI_HS_IGNORE: none), and
     * whether g is such a head; both NULL when no signal has a twin. */
    uint32_t *twin_of;
    uint8_t *has_twins;
} ldxi_hsdb;

struct ldx_ruleset;
struct ldx_msgs;

/* Scans with a database (hs_database_t, hs_scratch_t), as hs_scan() would, with the
 * scanner hsscan.c picks for this CPU; the Vectorscan status. Every scan goes through
 * it: the batches, the check against the examples, the test that a database runs. */
typedef int (*ldxi_hs_on_match)(unsigned id, unsigned long long from, unsigned long long to,
                                unsigned flags, void *ctx);
int ldxi_hs_scan(const void *db, const char *data, unsigned len, void *scratch,
                 ldxi_hs_on_match on_match, void *ctx);
/* Its name ("avx2_hs_scan" or "hs_scan"), for the tests. */
const char *ldxi_hs_scanner(void);

/* Whether every part of rs->hs has its collapsed database, loading those not loaded yet
 * with every signal's collapsed widening (once, for every thread: safe to call from any). */
bool ldxi_hsdb_collapsed(const struct ldx_ruleset *rs);

/* Builds rs->hs (stays NULL where Vectorscan is not built in or LOGDX_ENGINE=pcre2). */
void ldxi_hsdb_build(struct ldx_ruleset *rs, struct ldx_msgs *msgs);
void ldxi_hsdb_free(ldxi_hsdb *h);
/* What the database is given for signal g (hsentry.c): the pattern's required strings
 * (literal: a Vectorscan literal set, caseless when they came from a (?i) pattern), a
 * form of the pattern, or (expr NULL) the pattern itself. */
typedef struct {
    char *expr;
    bool literal;
    bool caseless;
} ldxi_hsentry;
ldxi_hsentry ldxi_hsentry_for(const struct ldx_ruleset *rs, const ldxi_hsdb *h, uint32_t g);
/* A pattern's form (pform.c) without anchors, malloc'd; NULL: the pattern itself. */
char *ldxi_hsentry_form(const char *pattern);
/* Checks a compiled database (hs_database_t) of the signals gs[0..n) against their
 * rules' examples (hsverify.c): the position in gs of the first signal it gets wrong,
 * or -1. mode (LDXI_HS_*) says what the database scans: the examples' lines, their
 * templates (ldxi_hspart.tdb) or their collapsed templates (cdb); it must report every
 * line the patterns match. */
long ldxi_hsdb_verify(const struct ldx_ruleset *rs, const ldxi_hsdb *h, void *db,
                      const uint32_t *gs, size_t n, int mode);
/* The cache of run-time databases (hscache.c): the file for a key, false when there is
 * no cache; its bytes (malloc'd) or NULL; writing one (failures are silent). */
bool ldxi_hscache_file(uint64_t key, char *out, size_t n);
unsigned char *ldxi_hscache_read(const char *path, size_t *len);
void ldxi_hscache_write(const char *path, const char *data, size_t len);

/* Serializes rs's run-time database with the names of what its ids stand for, for the
 * build-time tool. */
bool ldxi_hsdb_serialize(const struct ldx_ruleset *rs, char **out, size_t *len);

/* Whether signal g's pattern is digit-blind (digits.c); read, with its widened pattern
 * (wide[g]), the first time it is asked, by whichever thread asks first. */
bool ldxi_hsdb_blind(const ldxi_hsdb *h, uint32_t g);

#endif
