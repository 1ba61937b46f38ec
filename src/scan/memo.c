/* The line memo (memo.h): templates and their hash table. */
#include "memo.h"

#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../rules/ruleset_int.h"

/* Templates are written and hashed 16 bytes at a time with SSE2 (every x86-64), else a
 * byte at a time; -DLDX_NO_SIMD builds the second way anywhere (the tests run both). */
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#define MEMO_SSE2 1
#include <emmintrin.h>
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

static const uint64_t K1 = 0x9e3779b97f4a7c15ull, K2 = 0xc2b2ae3d27d4eb4full;

static uint64_t mix(uint64_t h, uint64_t w, uint64_t k)
{
    h = (h ^ w) * k;
    return h ^ (h >> 29);
}

/* The hash of a template of n bytes: its 16-byte blocks from the start, the last one
 * (0 to 15 bytes) padded with zeros, each half mixed into a chain of its own. The
 * same whether the template was made alone (ldxi_memo_template) or while its line was
 * being cut (ldxi_memo_line). */
static uint64_t finish(uint64_t h1, uint64_t h2, size_t n)
{
    uint64_t h = h1 ^ (h2 * K1) ^ n;
    h ^= h >> 32;
    return h * K2;
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

static inline void mix16(uint64_t *h1, uint64_t *h2, __m128i v)
{
    *h1 = mix(*h1, (uint64_t)_mm_cvtsi128_si64(v), K1);
    *h2 = mix(*h2, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)), K2);
}

/* v with its bytes from k on zeroed. */
static inline __m128i keep_below(__m128i v, unsigned k)
{
    const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_and_si128(v, _mm_cmplt_epi8(idx, _mm_set1_epi8((char)k)));
}
#endif

uint64_t ldxi_memo_template(const char *src, size_t n, char *dst)
{
    ldxi_digits_template(src, n, dst);
    uint64_t h1 = K2, h2 = K1, lo, hi;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        memcpy(&lo, dst + i, 8);
        memcpy(&hi, dst + i + 8, 8);
        h1 = mix(h1, lo, K1);
        h2 = mix(h2, hi, K2);
    }
    char last[16] = {0};
    memcpy(last, dst + i, n - i);
    memcpy(&lo, last, 8);
    memcpy(&hi, last + 8, 8);
    h1 = mix(h1, lo, K1);
    h2 = mix(h2, hi, K2);
    return finish(h1, h2, n);
}

size_t ldxi_memo_line(const char *p, const char **eol, char *dst, uint64_t *hash, bool *esc)
{
    uint64_t h1 = K2, h2 = K1;
    size_t i = 0;
#ifdef MEMO_SSE2
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), es = _mm_set1_epi8(0x1b);
    __m128i seen_esc = _mm_setzero_si128();
    for (;; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
        if (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            v = keep_below(v, k);
            seen_esc = _mm_or_si128(seen_esc, _mm_cmpeq_epi8(v, es));
            mix16(&h1, &h2, template16(v, dst + i));
            *eol = p + i + k;
            *esc = _mm_movemask_epi8(seen_esc) != 0;
            *hash = finish(h1, h2, i + k);
            return i + k;
        }
        seen_esc = _mm_or_si128(seen_esc, _mm_cmpeq_epi8(v, es));
        mix16(&h1, &h2, template16(v, dst + i));
    }
#else
    size_t n = 0;
    while (p[n] != '\n' && p[n] != '\r') n++;
    *eol = p + n;
    *esc = memchr(p, 0x1b, n) != NULL;
    *hash = ldxi_memo_template(p, n, dst);
    (void)h1;
    (void)h2;
    (void)i;
    return n;
#endif
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
        slot[i] = (ldxi_memo_slot){e->hash, e->key, (uint32_t)(x + 1) << LDXI_MEMO_LEN_BITS | e->len};
    }
    free(m->slot);
    m->slot = slot;
    m->nslot = n;
    return true;
}

uint32_t ldxi_memo_lookup(ldxi_memo *m, const char *t, size_t n, uint64_t h, bool *fresh)
{
    *fresh = false;
    if (!m->nslot || n > LDXI_MEMO_LINE_MAX) return LDXI_MEMO_NONE;
    const uint32_t lmask = (1u << LDXI_MEMO_LEN_BITS) - 1;
    uint32_t mask = m->nslot - 1, i = (uint32_t)h & mask;
    for (;; i = (i + 1) & mask) {
        const ldxi_memo_slot *sl = &m->slot[i];
        if (!sl->xlen) break;
        if (sl->hash == h && (sl->xlen & lmask) == n && same(m->keys + sl->key, t, n))
            return (sl->xlen >> LDXI_MEMO_LEN_BITS) - 1;
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
    m->ent[x] = (ldxi_memo_entry){h, (uint32_t)m->nkeys, (uint32_t)n, 0, 0, 0, LDXI_MEMO_PENDING};
    m->slot[i] = (ldxi_memo_slot){h, m->ent[x].key, (x + 1) << LDXI_MEMO_LEN_BITS | (uint32_t)n};
    m->nkeys += n;
    *fresh = true;
    return x;
}

bool ldxi_memo_reserve(ldxi_memo *m, size_t k, size_t c)
{
    return ldxi_grow((void **)&m->items, &m->icap, m->nitems + k, sizeof *m->items) == LDX_OK &&
           ldxi_grow((void **)&m->co, &m->cocap, m->nco + c, sizeof *m->co) == LDX_OK;
}
