/* The line memo: what the lines of one template matched (see src/rules/digits.c).
 *
 * A training log repeats a few hundred line shapes with other numbers in them; the
 * prefilter and the digit-blind PCRE2 patterns cannot tell those lines apart, so the
 * first line of a template is matched in full and every later one reuses the result:
 * the signals that matched, with their capture offsets (the numbers are read from the
 * line itself), and the signals that must still run on each line (patterns that look
 * at digits, rules over their time budget). One memo per matching thread; it is
 * bounded, and emptied when full; it rests where it does not pay (ldxi_memo_judge).
 * Never installed. */
#ifndef LDX_SCAN_MEMO_H
#define LDX_SCAN_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDXI_MEMO_LINE_MAX 65536 /* longer lines are matched in full every time */
#define LDXI_MEMO_RUN UINT32_MAX /* an item whose signal PCRE2 runs on every line */
#define LDXI_MEMO_NONE UINT32_MAX

typedef struct {
    uint32_t g;     /* the signal */
    uint32_t co;    /* where its capture offsets start in co[] (2 a capture, UINT32_MAX
                     * unset), or LDXI_MEMO_RUN */
    uint32_t start; /* LDXI_MEMO_RUN: where on the line a match can start, at the
                     * earliest */
} ldxi_memo_item;

enum { LDXI_MEMO_PENDING = 1, LDXI_MEMO_READY };

typedef struct {
    uint64_t hash;
    uint32_t key, len;      /* the template, in keys[] */
    uint32_t item, nitems;  /* items[item, item + nitems), in signal order */
    uint8_t hints;          /* the structure readers that want the lines (LDXI_HINT_*) */
    uint8_t state;          /* PENDING (its first line not matched yet) or READY */
    uint8_t rank;           /* LDXI_RANK_*: whether its lines may name a rank */
    uint8_t misses;         /* a collapsed template's: its lines whose template was new
                             * (saturating), see LDXI_MEMO_EXACT_TRIES */
    uint8_t refined;        /* a collapsed template's: its signals asked again, with their
                             * whole widenings, once a second line had it */
} ldxi_memo_entry;

/* A collapsed template (digits.c: every run of digits one '0') stands for the lines of
 * many templates. The memo keeps a second table of them, whose entries' items are the
 * signals that may match any of their lines, each to run (LDXI_MEMO_RUN): a line whose
 * template is new takes them instead of the prefilter. Its template is learnt from
 * them for the first LDXI_MEMO_EXACT_TRIES such lines of a collapsed template; after
 * that its templates rarely come back (numbers of any length), and its lines only run
 * its signals. */
#define LDXI_MEMO_EXACT_TRIES 8

/* A line names a rank only where its template does (digits read as 0 are a rank the
 * line's own may fail to be, never the other way round): the template is asked once,
 * for the first of its lines with a match, and lines of a template that names none are
 * not read for one. */
enum { LDXI_RANK_UNASKED = 0, LDXI_RANK_NONE, LDXI_RANK_SOME };

/* A slot of the table holds what a lookup compares, so that it reads no entry: the
 * hash, where the template's key is, and its length with the entry's index + 1 above
 * (0: a free slot). An entry and its key were two more dependent loads per line. The
 * hash's top bit is the entry's quiet: most lines of a log match nothing, and the loop
 * over a batch's lines need not visit them. */
typedef struct {
    uint64_t hash;
    uint32_t key;
    uint32_t xlen; /* (index + 1) << LDXI_MEMO_LEN_BITS | length */
} ldxi_memo_slot;
#define LDXI_MEMO_QUIET ((uint64_t)1 << 63)
#define LDXI_MEMO_LEN_BITS 17 /* a length up to LDXI_MEMO_LINE_MAX; 15 bits of index */

typedef struct {
    /* open addressing, nslot a power of two */
    ldxi_memo_slot *slot;
    uint32_t nslot;
    ldxi_memo_entry *ent;   /* in the order they came: an index stays valid as slots grow */
    size_t nent, entcap;
    char *keys;
    size_t nkeys, kcap;
    ldxi_memo_item *items;
    size_t nitems, icap;
    uint32_t *co;
    size_t nco, cocap;
} ldxi_memo;

/* Writes the template of src[0..n) to dst[0..n) and returns its hash. */
uint64_t ldxi_memo_template(const char *src, size_t n, char *dst);
/* What cutting a line found (ldxi_memo_line). */
typedef struct {
    const char *eol; /* its line end */
    uint64_t hash;   /* its template's hash, as ldxi_memo_template's; unset when same */
    bool esc;        /* it holds an ESC or E2 80 (a typographic quote's first bytes):
                      * ldxi_clean_line's to read */
    bool same;       /* its template is prev's: no hash made, no lookup needed */
} ldxi_cut;

/* Cuts the line at p (a line end lies ahead): its length to the line end, its template
 * written to dst, and what ldxi_cut says, in one pass, with the instructions isa allows
 * (0: none, 1: SSE2, 2: AVX2), at most ldxi_memo_isa(). Half the lines of a training
 * log have the template of the line before (a tqdm bar redrawn, step after step), so
 * the template is compared as it is made with prev[0..prevn) (NULL: none), which lies
 * in dst's buffer at or before dst (at dst: the line before's template, overwritten
 * block by block after it is read); when they are equal the hash is not made. Reads,
 * and writes to dst, up to LDXI_MEMO_SLACK bytes past the line end: both must have
 * room. */
#define LDXI_MEMO_SLACK 64
size_t ldxi_memo_line(const char *p, char *dst, const char *prev, size_t prevn, ldxi_cut *out, int isa);
/* ldxi_memo_line's way of cutting for isa, chosen once for a batch rather than on every
 * line; prev must be given: dst itself with prevn SIZE_MAX where there is none. */
typedef size_t (*ldxi_memo_cutter)(const char *p, char *dst, const char *prev, size_t prevn, ldxi_cut *out);
ldxi_memo_cutter ldxi_memo_cutter_for(int isa);
/* The most this build and CPU allow: asked once per batch, not once per line. */
int ldxi_memo_isa(void);

/* Whether the memo pays, judged batch by batch (ldxi_memo_judge_batch). */
#define LDXI_MEMO_TRY 4   /* batches the memo is judged on */
#define LDXI_MEMO_REST 16 /* batches without it after a try where it did not pay */
typedef struct {
    uint32_t rest;            /* batches to match without it */
    uint32_t fails;           /* tries in a row after which it knew too few lines */
    uint32_t slow;            /* tries in a row after which it was the slower */
    uint64_t try_lines, try_known, try_ns, try_bytes; /* its batches since it was judged */
    uint32_t try_batches;
    uint64_t plain_ns, plain_bytes; /* batches without it since its last rest began */
    uint32_t plain_batches;
} ldxi_memo_judge;
/* A batch was matched (with the memo, unless j->rest was set when it began) in ns: its
 * bytes and lines, how many the memo knew, and whether it failed (matched line by line).
 * Sets j->rest for the batches to come. Times decide only how batches are matched. */
void ldxi_memo_judge_batch(ldxi_memo_judge *j, bool failed, uint64_t lines, uint64_t known,
                           uint64_t bytes, uint64_t ns);

void ldxi_memo_free(ldxi_memo *m);
/* Before a batch: empties the memo if it is too full to take one more. */
void ldxi_memo_begin(ldxi_memo *m);
/* Forgets every template. */
void ldxi_memo_clear(ldxi_memo *m);
/* The index in ent[] of the template t[0..n) with hash h: found (*quiet: it is), else
 * a new PENDING entry (*fresh set); LDXI_MEMO_NONE when the memo has no room (or the
 * line is too long). */
uint32_t ldxi_memo_lookup(ldxi_memo *m, const char *t, size_t n, uint64_t h, bool *fresh, bool *quiet);
/* The index of the template t[0..n) with hash h, or LDXI_MEMO_NONE (nothing added);
 * *quiet as for ldxi_memo_lookup. */
uint32_t ldxi_memo_find(const ldxi_memo *m, const char *t, size_t n, uint64_t h, bool *quiet);
/* Entry x's first line is matched (its items and hints set): it is READY, and quiet
 * when its lines need nothing (no items, no hints), which lookups say from now on. */
void ldxi_memo_ready(ldxi_memo *m, uint32_t x);
/* Room for k more items and c more capture offsets; false when out of memory. */
bool ldxi_memo_reserve(ldxi_memo *m, size_t k, size_t c);

#endif
