/* The line memo (memo.h): templates and their hash table. */
#include "memo.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../rules/ruleset_int.h"

/* Templates are written and hashed 32 bytes at a time with AVX2 where the CPU has it,
 * else with SSE2 (every x86-64), else a byte at a time; -DLDX_NO_SIMD builds the last
 * way anywhere (the tests run all three). */
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#define MEMO_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define MEMO_AVX2 1 /* chosen at run time, where the CPU has it */
#include <immintrin.h>
#endif
#endif

#define MEMO_SLOTS_MIN 1024u             /* the table doubles as entries come, up to */
#define MEMO_SLOTS_MAX 32768u            /* this many slots, half of them used at most
                                          * (an index + 1 fits LDXI_MEMO_LEN_BITS' rest) */
#define MEMO_KEEP (MEMO_SLOTS_MAX / 8 * 3) /* a batch starts with at most this many entries */
#define MEMO_KEY_BYTES ((size_t)2 << 20)  /* ... and at most this many template bytes */
#define MEMO_ITEMS ((size_t)1 << 18)      /* ... items and capture offsets: with the slots
                                           * and entries, 6 MiB a thread at most */

_Static_assert(LDXI_MEMO_LINE_MAX < (1u << LDXI_MEMO_LEN_BITS) &&
                   MEMO_SLOTS_MAX / 2 < (1u << (32 - LDXI_MEMO_LEN_BITS)),
               "a slot's xlen holds a length and an entry's index + 1");

/* The hash of a template of n bytes: its 32-byte blocks from the start, the last one
 * (0 to 31 bytes) padded with zeros, each of a block's four 64-bit words mixed into a
 * lane of its own (x = lane ^ word; lane = low32(x) * KA ^ high32(x) * KB: SSE2 and
 * AVX2 multiply 32-bit halves, two and four lanes at a time), then the lanes and n
 * folded and mixed. The same however it is computed: alone (ldxi_memo_template) or
 * while the line is being cut (ldxi_memo_line), with AVX2, SSE2 or neither. A lookup
 * compares the whole template, so the hash only has to spread templates well; a chain
 * of 64-bit multiplies per 16 bytes was a fifth of a scan. */
#define KA 0x9e3779b1u
#define KB 0x85ebca77u
static const uint64_t LANE0[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull,
                                  0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};

static inline uint64_t lane_mix(uint64_t h, uint64_t w)
{
    uint64_t x = h ^ w;
    return (uint64_t)(uint32_t)x * KA ^ (x >> 32) * KB;
}

static inline uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

static uint64_t finish(const uint64_t l[4], size_t n)
{
    uint64_t h = l[0] ^ rotl(l[1], 17) ^ rotl(l[2], 31) ^ rotl(l[3], 47) ^ (uint64_t)n;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

uint64_t ldxi_memo_template(const char *src, size_t n, char *dst)
{
    ldxi_digits_template(src, n, dst);
    uint64_t l[4] = {LANE0[0], LANE0[1], LANE0[2], LANE0[3]}, w;
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            memcpy(&w, dst + i + 8 * k, 8);
            l[k] = lane_mix(l[k], w);
        }
    char last[32] = {0};
    memcpy(last, dst + i, n - i);
    for (int k = 0; k < 4; k++) {
        memcpy(&w, last + 8 * k, 8);
        l[k] = lane_mix(l[k], w);
    }
    return finish(l, n);
}

#ifdef MEMO_SSE2
/* The template of the 16 bytes v, stored at dst and returned. */
static inline __m128i template16(__m128i v, char *dst)
{
    const __m128i below = _mm_set1_epi8('0' - 1), above = _mm_set1_epi8('9' + 1),
                  zero = _mm_set1_epi8('0');
    /* signed compares: bytes from 0x80 up are negative, never digits */
    __m128i d = _mm_and_si128(_mm_cmpgt_epi8(v, below), _mm_cmplt_epi8(v, above));
    v = _mm_or_si128(_mm_andnot_si128(d, v), _mm_and_si128(d, zero));
    _mm_storeu_si128((__m128i *)(void *)dst, v);
    return v;
}

/* Two lanes, lane_mix'd with the two words of v. */
static inline __m128i mix2(__m128i lanes, __m128i v)
{
    const __m128i ka = _mm_set1_epi64x(KA), kb = _mm_set1_epi64x(KB);
    __m128i x = _mm_xor_si128(lanes, v);
    return _mm_xor_si128(_mm_mul_epu32(x, ka), _mm_mul_epu32(_mm_srli_epi64(x, 32), kb));
}

/* v with its bytes from k on zeroed (k may be below 0 or above 15). */
static inline __m128i keep_below(__m128i v, int k)
{
    const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    k = k < 0 ? 0 : k > 16 ? 16 : k;
    return _mm_and_si128(v, _mm_cmplt_epi8(idx, _mm_set1_epi8((char)k)));
}

static uint64_t finish2(__m128i a, __m128i b, size_t n)
{
    uint64_t l[4] = {(uint64_t)_mm_cvtsi128_si64(a), (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(a, a)),
                     (uint64_t)_mm_cvtsi128_si64(b), (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(b, b))};
    return finish(l, n);
}

static size_t line_sse2(const char *p, char *dst, const char *prev, size_t prevn, ldxi_cut *out)
{
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), es = _mm_set1_epi8(0x1b),
                  e2 = _mm_set1_epi8((char)0xe2), x80 = _mm_set1_epi8((char)0x80);
    __m128i a = _mm_set_epi64x((long long)LANE0[1], (long long)LANE0[0]),
            b = _mm_set_epi64x((long long)LANE0[3], (long long)LANE0[2]), seen = _mm_setzero_si128(),
            diff = _mm_setzero_si128();
    for (size_t i = 0;; i += 32) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(const void *)(p + i)),
                v1 = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 16)),
                /* read before dst is written: it may be the same place */
                w0 = _mm_loadu_si128((const __m128i *)(const void *)(prev + i)),
                w1 = _mm_loadu_si128((const __m128i *)(const void *)(prev + i + 16));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v0, nl), _mm_cmpeq_epi8(v0, cr))) |
                     (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v1, nl), _mm_cmpeq_epi8(v1, cr))) << 16;
        if (m) {
            int k = __builtin_ctz(m);
            v0 = keep_below(v0, k);
            v1 = keep_below(v1, k - 16);
            w0 = keep_below(w0, k);
            w1 = keep_below(w1, k - 16);
        }
        seen = _mm_or_si128(seen, _mm_or_si128(_mm_cmpeq_epi8(v0, es), _mm_cmpeq_epi8(v1, es)));
        /* E2 80, a typographic quote's first bytes (v is cut at the line end, so an E2 there
         * has its next byte in the line) */
        __m128i n0 = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 1)),
                n1 = _mm_loadu_si128((const __m128i *)(const void *)(p + i + 17));
        seen = _mm_or_si128(seen, _mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(v0, e2), _mm_cmpeq_epi8(n0, x80)),
                                               _mm_and_si128(_mm_cmpeq_epi8(v1, e2), _mm_cmpeq_epi8(n1, x80))));
        v0 = template16(v0, dst + i);
        v1 = template16(v1, dst + i + 16);
        diff = _mm_or_si128(diff, _mm_or_si128(_mm_xor_si128(v0, w0), _mm_xor_si128(v1, w1)));
        a = mix2(a, v0);
        b = mix2(b, v1);
        if (m) {
            size_t n = i + (size_t)__builtin_ctz(m);
            out->eol = p + n;
            out->esc = _mm_movemask_epi8(seen) != 0;
            out->same = n == prevn && _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) == 0xffff;
            if (!out->same) out->hash = finish2(a, b, n);
            return n;
        }
    }
}
#endif

#ifdef MEMO_AVX2
__attribute__((target("avx2"))) static size_t line_avx2(const char *p, char *dst, const char *prev,
                                                       size_t prevn, ldxi_cut *out)
{
    const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r'), es = _mm256_set1_epi8(0x1b),
                  below = _mm256_set1_epi8('0' - 1), above = _mm256_set1_epi8('9' + 1),
                  zero = _mm256_set1_epi8('0'), ka = _mm256_set1_epi64x(KA), kb = _mm256_set1_epi64x(KB),
                  idx = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                                         18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    __m256i lanes = _mm256_setr_epi64x((long long)LANE0[0], (long long)LANE0[1], (long long)LANE0[2],
                                       (long long)LANE0[3]),
            seen = _mm256_setzero_si256(), diff = _mm256_setzero_si256();
    for (size_t i = 0;; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i)),
                w = _mm256_loadu_si256((const __m256i *)(const void *)(prev + i)); /* before dst's store */
        unsigned m = (unsigned)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(v, nl), _mm256_cmpeq_epi8(v, cr)));
        if (m) {
            __m256i keep = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)__builtin_ctz(m)), idx);
            v = _mm256_and_si256(v, keep);
            w = _mm256_and_si256(w, keep);
        }
        seen = _mm256_or_si256(seen, _mm256_cmpeq_epi8(v, es));
        __m256i nx = _mm256_loadu_si256((const __m256i *)(const void *)(p + i + 1)); /* E2 80, as above */
        seen = _mm256_or_si256(seen, _mm256_and_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0xe2)),
                                                      _mm256_cmpeq_epi8(nx, _mm256_set1_epi8((char)0x80))));
        /* signed compares: bytes from 0x80 up are negative, never digits */
        __m256i d = _mm256_and_si256(_mm256_cmpgt_epi8(v, below), _mm256_cmpgt_epi8(above, v));
        v = _mm256_or_si256(_mm256_andnot_si256(d, v), _mm256_and_si256(d, zero));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), v);
        diff = _mm256_or_si256(diff, _mm256_xor_si256(v, w));
        __m256i x = _mm256_xor_si256(lanes, v);
        lanes = _mm256_xor_si256(_mm256_mul_epu32(x, ka), _mm256_mul_epu32(_mm256_srli_epi64(x, 32), kb));
        if (m) {
            size_t n = i + (size_t)__builtin_ctz(m);
            out->eol = p + n;
            out->esc = _mm256_movemask_epi8(seen) != 0;
            out->same = n == prevn && _mm256_testz_si256(diff, diff);
            if (!out->same) {
                uint64_t l[4];
                _mm256_storeu_si256((__m256i *)(void *)l, lanes);
                out->hash = finish(l, n);
            }
            return n;
        }
    }
}
#endif

int ldxi_memo_isa(void)
{
#ifdef MEMO_AVX2
    if (__builtin_cpu_supports("avx2")) return 2;
#endif
#ifdef MEMO_SSE2
    return 1;
#else
    return 0;
#endif
}

static size_t line_bytes(const char *p, char *dst, const char *prev, size_t prevn, ldxi_cut *out)
{
    size_t n = 0;
    while (p[n] != '\n' && p[n] != '\r') n++;
    out->eol = p + n;
    out->esc = memchr(p, 0x1b, n) != NULL;
    for (const char *q = p; !out->esc && (q = memchr(q, 0xe2, (size_t)(p + n - q))); q++)
        out->esc = (unsigned char)q[1] == 0x80; /* q[1] is in the line or its end */
    /* compared before dst, which may be prev, is written */
    out->same = n == prevn;
    for (size_t i = 0; i < n && out->same; i++)
        out->same = (p[i] >= '0' && p[i] <= '9' ? '0' : p[i]) == prev[i];
    if (out->same) ldxi_digits_template(p, n, dst);
    else out->hash = ldxi_memo_template(p, n, dst);
    return n;
}

ldxi_memo_cutter ldxi_memo_cutter_for(int isa)
{
#ifdef MEMO_AVX2
    if (isa >= 2) return line_avx2;
#endif
#ifdef MEMO_SSE2
    if (isa >= 1) return line_sse2;
#endif
    (void)isa;
    return line_bytes;
}

size_t ldxi_memo_line(const char *p, char *dst, const char *prev, size_t prevn, ldxi_cut *out, int isa)
{
    if (!prev) { /* compared with dst itself, read before it is written, and never equal */
        prev = dst;
        prevn = SIZE_MAX;
    }
    return ldxi_memo_cutter_for(isa)(p, dst, prev, prevn, out);
}

/* Whether a[0..n) and b[0..n) are equal: a template against a key, mostly 50 to 200
 * bytes, where a call of memcmp cost as much as the comparison. */
static inline bool same(const char *a, const char *b, size_t n)
{
#ifdef MEMO_SSE2
    if (n >= 16) {
        __m128i diff = _mm_setzero_si128();
        for (size_t i = 0;; i += 16) {
            bool last = i + 16 >= n;
            if (last) i = n - 16;
            diff = _mm_or_si128(diff, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
                                                    _mm_loadu_si128((const __m128i *)(const void *)(b + i))));
            if (last) break;
        }
        return _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) == 0xffff;
    }
#endif
    return memcmp(a, b, n) == 0;
}

void ldxi_memo_free(ldxi_memo *m)
{
    free(m->slot);
    free(m->ent);
    free(m->keys);
    free(m->items);
    free(m->co);
    memset(m, 0, sizeof *m);
}

void ldxi_memo_begin(ldxi_memo *m)
{
    if (!m->slot) {
        m->slot = calloc(MEMO_SLOTS_MIN, sizeof *m->slot);
        m->nslot = m->slot ? MEMO_SLOTS_MIN : 0;
        return;
    }
    /* full: start over (the templates of a log come back within a few batches) */
    if (m->nent > MEMO_KEEP || m->nkeys > MEMO_KEY_BYTES || m->nitems > MEMO_ITEMS ||
        m->nco > MEMO_ITEMS)
        ldxi_memo_clear(m);
}

void ldxi_memo_clear(ldxi_memo *m)
{
    if (m->slot) memset(m->slot, 0, m->nslot * sizeof *m->slot);
    m->nent = m->nkeys = m->nitems = m->nco = 0;
}

static bool quiet(const ldxi_memo_entry *e)
{
    return e->state == LDXI_MEMO_READY && !e->nitems && !e->hints;
}

/* Twice the slots, the entries placed again. */
static bool grow(ldxi_memo *m)
{
    uint32_t n = m->nslot * 2, mask = n - 1;
    ldxi_memo_slot *slot = calloc(n, sizeof *slot);
    if (!slot) return false;
    for (size_t x = 0; x < m->nent; x++) {
        const ldxi_memo_entry *e = &m->ent[x];
        uint32_t i = (uint32_t)e->hash & mask;
        while (slot[i].xlen) i = (i + 1) & mask;
        slot[i] = (ldxi_memo_slot){e->hash | (quiet(e) ? LDXI_MEMO_QUIET : 0), e->key,
                                   (uint32_t)(x + 1) << LDXI_MEMO_LEN_BITS | e->len};
    }
    free(m->slot);
    m->slot = slot;
    m->nslot = n;
    return true;
}

uint32_t ldxi_memo_find(const ldxi_memo *m, const char *t, size_t n, uint64_t h, bool *quiet)
{
    *quiet = false;
    if (!m->nslot || n > LDXI_MEMO_LINE_MAX) return LDXI_MEMO_NONE;
    const uint32_t lmask = (1u << LDXI_MEMO_LEN_BITS) - 1;
    h &= ~LDXI_MEMO_QUIET;
    uint32_t mask = m->nslot - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        const ldxi_memo_slot *sl = &m->slot[i];
        if (!sl->xlen) return LDXI_MEMO_NONE;
        if ((sl->hash & ~LDXI_MEMO_QUIET) == h && (sl->xlen & lmask) == n && same(m->keys + sl->key, t, n)) {
            *quiet = sl->hash >> 63;
            return (sl->xlen >> LDXI_MEMO_LEN_BITS) - 1;
        }
    }
}

uint32_t ldxi_memo_lookup(ldxi_memo *m, const char *t, size_t n, uint64_t h, bool *fresh, bool *quiet)
{
    *fresh = *quiet = false;
    if (!m->nslot || n > LDXI_MEMO_LINE_MAX) return LDXI_MEMO_NONE;
    const uint32_t lmask = (1u << LDXI_MEMO_LEN_BITS) - 1;
    h &= ~LDXI_MEMO_QUIET;
    uint32_t mask = m->nslot - 1, i = (uint32_t)h & mask;
    for (;; i = (i + 1) & mask) {
        const ldxi_memo_slot *sl = &m->slot[i];
        if (!sl->xlen) break;
        if ((sl->hash & ~LDXI_MEMO_QUIET) == h && (sl->xlen & lmask) == n && same(m->keys + sl->key, t, n)) {
            *quiet = sl->hash >> 63;
            return (sl->xlen >> LDXI_MEMO_LEN_BITS) - 1;
        }
    }
    if ((m->nent + 1) * 2 > m->nslot) {
        if (m->nslot >= MEMO_SLOTS_MAX || !grow(m)) return LDXI_MEMO_NONE;
        mask = m->nslot - 1;
        for (i = (uint32_t)h & mask; m->slot[i].xlen; i = (i + 1) & mask) {}
    }
    if (ldxi_grow((void **)&m->keys, &m->kcap, m->nkeys + n + 1, 1) != LDX_OK ||
        ldxi_grow((void **)&m->ent, &m->entcap, m->nent + 1, sizeof *m->ent) != LDX_OK)
        return LDXI_MEMO_NONE;
    memcpy(m->keys + m->nkeys, t, n);
    uint32_t x = (uint32_t)m->nent++;
    m->ent[x] = (ldxi_memo_entry){h, (uint32_t)m->nkeys, (uint32_t)n, 0, 0, 0, LDXI_MEMO_PENDING,
                                  LDXI_RANK_UNASKED, 0, 0};
    m->slot[i] = (ldxi_memo_slot){h, m->ent[x].key, (x + 1) << LDXI_MEMO_LEN_BITS | (uint32_t)n};
    m->nkeys += n;
    *fresh = true;
    return x;
}

void ldxi_memo_ready(ldxi_memo *m, uint32_t x)
{
    ldxi_memo_entry *e = &m->ent[x];
    e->state = LDXI_MEMO_READY;
    if (!quiet(e)) return;
    uint32_t mask = m->nslot - 1, i = (uint32_t)e->hash & mask;
    for (; m->slot[i].xlen; i = (i + 1) & mask)
        if ((m->slot[i].xlen >> LDXI_MEMO_LEN_BITS) == x + 1) {
            m->slot[i].hash |= LDXI_MEMO_QUIET;
            return;
        }
}

bool ldxi_memo_reserve(ldxi_memo *m, size_t k, size_t c)
{
    return ldxi_grow((void **)&m->items, &m->icap, m->nitems + k, sizeof *m->items) == LDX_OK &&
           ldxi_grow((void **)&m->co, &m->cocap, m->nco + c, sizeof *m->co) == LDX_OK;
}

/* ---- whether the memo pays ---- */

static void rest(ldxi_memo_judge *j, uint32_t batches)
{
    j->rest = batches;
    j->plain_ns = j->plain_bytes = 0;
    j->plain_batches = 0;
}

/* A log whose lines do not repeat (an id on every one) pays for remembering them and gets
 * nothing back (half the speed without the memo, measured): where the memo knew fewer than
 * a quarter of the lines of its try (a log of thousands of templates takes a few batches
 * to learn them), it rests for LDXI_MEMO_REST batches, twice as many after each failed try
 * (up to 16 times), and tries again with what it knew (a log's first lines are its least
 * repetitive, and a log may change its ways).
 *
 * Between a quarter and three quarters, knowing is not enough to say: numbers whose length
 * varies multiply templates, and the memo may know a third of the lines while each of the
 * others costs a second scan (of its template), the widened patterns and the bookkeeping
 * (numbers of random length in real lines: 1.43x the time of matching without it). There
 * the time per byte of the try is compared with that of batches matched without it: the
 * last rest's, or a probe of LDXI_MEMO_TRY batches taken for the purpose; where the memo
 * was the slower it rests as above, on a count of its own (a log that only turned mixed
 * rests 16 batches, not the 256 its unrepeating start earned). Matching the same lines
 * either way finds the same, so which way a batch is matched changes its time, never its
 * results. */
void ldxi_memo_judge_batch(ldxi_memo_judge *j, bool failed, uint64_t lines, uint64_t known,
                           uint64_t bytes, uint64_t ns)
{
    if (j->rest) {
        j->rest--;
        j->plain_ns += ns;
        j->plain_bytes += bytes;
        j->plain_batches++;
        return;
    }
    if (failed) return;
    j->try_lines += lines;
    j->try_known += known;
    j->try_ns += ns;
    j->try_bytes += bytes;
    if (++j->try_batches < LDXI_MEMO_TRY) return;
    bool judged = j->try_lines >= 4096;
    bool few = judged && j->try_known * 4 < j->try_lines;
    bool mixed = judged && !few && j->try_known * 4 < j->try_lines * 3;
    bool measured = j->plain_batches >= LDXI_MEMO_TRY && j->plain_bytes && j->try_bytes;
    if (few) {
        rest(j, LDXI_MEMO_REST << (j->fails < 4 ? j->fails : 4)); /* 16 to 256 */
        j->fails++;
    } else if (mixed && !measured) {
        rest(j, LDXI_MEMO_TRY); /* a probe: what the same kind of lines cost without it */
    } else if (mixed && (double)j->try_ns / (double)j->try_bytes >
                            (double)j->plain_ns / (double)j->plain_bytes) {
        rest(j, LDXI_MEMO_REST << (j->slow < 4 ? j->slow : 4));
        j->slow++;
    } else {
        j->fails = j->slow = 0;
    }
    j->try_lines = j->try_known = j->try_ns = j->try_bytes = 0;
    j->try_batches = 0;
}
