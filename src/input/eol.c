/* Counting line ends: each "\r", and each "\n" but the one of a "\r\n" (the contract's
 * lines). The reader counts every chunk it hands on (ldxi_reader_chunk), which is a
 * pass over every byte of the input on the reading thread: 64 bytes a step where the
 * CPU has AVX-512BW, 32 with AVX2, 16 with SSE2 (every x86-64), else one. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input_int.h"

#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#define EOL_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__)
#define EOL_AVX2 1
#include <immintrin.h>
#endif
#endif

#ifdef EOL_AVX2
/* As count_avx2, 64 bytes a step: a compare yields its bit mask at once (a fifth of a
 * scan's instructions were counting). */
__attribute__((target("avx512f,avx512bw,popcnt"))) static size_t count_avx512(const char *p, size_t n,
                                                                             uint64_t *count)
{
    const __m512i nl = _mm512_set1_epi8('\n'), cr = _mm512_set1_epi8('\r');
    uint64_t c = 0, carry = 0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i v = _mm512_loadu_si512((const void *)(p + i));
        uint64_t bn = _mm512_cmpeq_epi8_mask(v, nl), bc = _mm512_cmpeq_epi8_mask(v, cr);
        c += (uint64_t)__builtin_popcountll(bc) + (uint64_t)__builtin_popcountll(bn & ~((bc << 1) | carry));
        carry = bc >> 63;
    }
    *count = c;
    return i;
}

/* The "\r" bits plus the "\n" bits without a "\r" bit before them, 32 at a time. */
__attribute__((target("avx2,popcnt"))) static size_t count_avx2(const char *p, size_t n,
                                                                uint64_t *count)
{
    const __m256i nl = _mm256_set1_epi8('\n'), cr = _mm256_set1_epi8('\r');
    uint64_t c = 0;
    uint32_t carry = 0; /* the last byte of the step before was a "\r" */
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        uint32_t bn = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl));
        uint32_t bc = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, cr));
        c += (uint64_t)__builtin_popcount(bc) + (uint64_t)__builtin_popcount(bn & ~((bc << 1) | carry));
        carry = bc >> 31;
    }
    *count = c;
    return i;
}
#endif

#ifdef EOL_SSE2
/* A byte counts 1 when it is a "\r", or a "\n" without a "\r" before it (in the group,
 * or the last byte of the one before): summed 16 at a time. */
static size_t count_sse2(const char *p, size_t n, uint64_t *count)
{
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'), one = _mm_set1_epi8(1),
                  zero = _mm_setzero_si128();
    __m128i carry = zero, sum = zero;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i mn = _mm_cmpeq_epi8(v, nl), mc = _mm_cmpeq_epi8(v, cr);
        __m128i after_cr = _mm_or_si128(_mm_slli_si128(mc, 1), carry);
        carry = _mm_srli_si128(mc, 15);
        __m128i ends = _mm_and_si128(_mm_or_si128(_mm_andnot_si128(after_cr, mn), mc), one);
        sum = _mm_add_epi64(sum, _mm_sad_epu8(ends, zero));
    }
    *count = (uint64_t)_mm_cvtsi128_si64(sum) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum));
    return i;
}
#endif

uint64_t ldxi_eol_count_isa(const char *p, size_t n, int isa)
{
    uint64_t count = 0;
    size_t i = 0;
#ifdef EOL_AVX2
    if (isa >= 3 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("popcnt"))
        i = count_avx512(p, n, &count);
    else if (isa >= 2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
        i = count_avx2(p, n, &count);
    else
#endif
#ifdef EOL_SSE2
    if (isa >= 1)
        i = count_sse2(p, n, &count);
#endif
    bool cr_before = i > 0 && p[i - 1] == '\r';
    for (; i < n; i++) {
        if (p[i] == '\r') count++;
        else if (p[i] == '\n' && !cr_before) count++;
        cr_before = p[i] == '\r';
    }
    (void)isa;
    return count;
}

uint64_t ldxi_eol_count(const char *p, size_t n) { return ldxi_eol_count_isa(p, n, 3); }
