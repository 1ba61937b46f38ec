/* Helpers every layer shares (core layer): strings, the arena, growable arrays, sizes
 * and quantities read from text, memmem. See util.h. */
#include "util.h"

#include <ctype.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *ldxi_strdup(const char *s)
{
    return s ? ldxi_strndup(s, strlen(s)) : NULL;
}

char *ldxi_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ldxi_vasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return NULL;
    char *p = malloc((size_t)n + 1);
    if (!p) return NULL;
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *ldxi_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = ldxi_vasprintf(fmt, ap);
    va_end(ap);
    return p;
}

/* ---- arena ---- */

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
} chunk;

struct ldx_arena {
    chunk *head;
};

ldx_status ldxi_arena_create(ldx_arena **out)
{
    *out = calloc(1, sizeof(ldx_arena));
    return *out ? LDX_OK : LDX_ENOMEM;
}

void ldxi_arena_destroy(ldx_arena *a)
{
    if (!a) return;
    for (chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

void ldxi_arena_reset(ldx_arena *a)
{
    if (!a->head) return;
    for (chunk *c = a->head->next, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    a->head->next = NULL;
    a->head->used = 0;
}

void *ldxi_arena_alloc(ldx_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->size - a->head->used < n) {
        size_t size = n > 65536 ? n : 65536;
        chunk *c = malloc(sizeof(chunk) + size);
        if (!c) return NULL;
        c->next = a->head;
        c->used = 0;
        c->size = size;
        a->head = c;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    return p;
}

char *ldxi_arena_strndup(ldx_arena *a, const char *s, size_t n)
{
    char *p = ldxi_arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ldxi_arena_strdup(ldx_arena *a, const char *s)
{
    return s ? ldxi_arena_strndup(a, s, strlen(s)) : NULL;
}

ldx_status ldxi_grow_slow(void **v, size_t *cap, size_t need, size_t elem)
{
    size_t nc = *cap ? *cap : 4;
    while (nc < need) nc *= 2;
    void *p = realloc(*v, nc * elem);
    if (!p) return LDX_ENOMEM;
    *v = p;
    *cap = nc;
    return LDX_OK;
}

/* ---- buffer ---- */

void ldxi_buf_init(ldx_buf *b, size_t max)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->max = max;
}

void ldxi_buf_free(ldx_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

ldx_status ldxi_buf_append(ldx_buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->max) return LDX_ELIMIT;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1) nc *= 2;
        if (nc > b->max) nc = b->max;
        char *d = realloc(b->data, nc);
        if (!d) return LDX_ENOMEM;
        b->data = d;
        b->cap = nc;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return LDX_OK;
}

ldx_status ldxi_buf_printf(ldx_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ldxi_vasprintf(fmt, ap);
    va_end(ap);
    if (!s) return LDX_ENOMEM;
    ldx_status st = ldxi_buf_append(b, s, strlen(s));
    free(s);
    return st;
}

/* ---- quantities ---- */

static const struct {
    const char *name;
    double mul;
} units[] = {
    {"b", 1},           {"byte", 1},          {"bytes", 1},         {"kb", 1024.0},
    {"mb", 1048576.0},  {"gb", 1073741824.0}, {"tb", 1099511627776.0}, {"kib", 1024.0},
    {"mib", 1048576.0}, {"gib", 1073741824.0}, {"tib", 1099511627776.0},
    {"k", 1024.0},      {"m", 1048576.0},     {"g", 1073741824.0},  {"t", 1099511627776.0},
};

/* A plain decimal ("-12.5", "3e-4") of at most 15 significant digits and a power of ten
 * within 10^+-22: the mantissa and the power are exact doubles, so one multiplication or
 * division rounds correctly, to the double strtod gives (Clinger's fast path), at a
 * tenth of its cost; loss values on every line made strtod a few percent of a scan.
 * Reads p[0..end) up to the first byte that is not part of it and returns where it
 * stopped; NULL for anything else, which strtod then reads. */
static const char *fast_decimal(const char *p, const char *end, double *out)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (p == end) return NULL;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    /* the digits before the point, then after it; leading zeros count for nothing but
     * the scale. m may wrap past 19 digits: such a number is refused below */
    const char *start = p;
    while (p < end && *p == '0') p++;
    const char *sig = p;
    uint64_t m = 0;
    while (p < end && (unsigned)(*p - '0') < 10) m = m * 10 + (unsigned)(*p++ - '0');
    int digits = (int)(p - sig), frac = 0;
    bool any = p > start;
    if (p < end && *p == '.') {
        const char *f = ++p;
        if (!digits)
            while (p < end && *p == '0') p++;
        sig = p;
        while (p < end && (unsigned)(*p - '0') < 10) m = m * 10 + (unsigned)(*p++ - '0');
        digits += (int)(p - sig);
        frac = (int)(p - f);
        any = any || frac > 0;
    }
    if (!any || digits > 15) return NULL;
    int e = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        bool eneg = p < end && *p == '-';
        if (p < end && (*p == '-' || *p == '+')) p++;
        if (p == end || *p < '0' || *p > '9') return NULL;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if ((e = e * 10 + (*p - '0')) > 1000) return NULL;
        if (eneg) e = -e;
    }
    int scale = e - frac;
    if (scale < -22 || scale > 22) return NULL;
    double v = (double)m;
    v = scale < 0 ? v / p10[-scale] : v * p10[scale];
    *out = neg ? -v : v;
    return p;
}

bool ldxi_has_byte_unit(const char *s)
{
    if (!s) return false;
    size_t n = strlen(s);
    double v;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    /* a number's exponent ends in a digit; a unit ldxi_parse_quantity accepts, in a letter */
    return n && isalpha((unsigned char)s[n - 1]) && ldxi_parse_quantity(s, n, &v);
}

bool ldxi_parse_quantity(const char *s, size_t n, double *out)
{
    /* the common case first: a counter or a loss value ("3.118420E+00") and nothing
     * else, read where it stands */
    double q;
    if (fast_decimal(s, s + n, &q) == s + n) {
        *out = q;
        return true;
    }
    char num[64];
    size_t i = 0, k = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    if (i < n && (s[i] == '+' || s[i] == '-')) num[k++] = s[i++];
    bool digits = false;
    while (i < n && k < sizeof(num) - 1) {
        unsigned char c = (unsigned char)s[i];
        if (isdigit(c)) {
            digits = true;
            num[k++] = (char)c;
        } else if (c == ',' && digits && i + 3 < n && isdigit((unsigned char)s[i + 1]) &&
                   isdigit((unsigned char)s[i + 2]) && isdigit((unsigned char)s[i + 3]) &&
                   (i + 4 == n || !isdigit((unsigned char)s[i + 4]))) {
            /* a thousands separator ("1,024"): skip it, the digits follow */
        } else if (c == '.') {
            num[k++] = (char)c;
        } else if ((c == 'e' || c == 'E') && digits && i + 1 < n && k + 2 < sizeof(num) &&
                   (isdigit((unsigned char)s[i + 1]) ||
                    ((s[i + 1] == '-' || s[i + 1] == '+') && i + 2 < n &&
                     isdigit((unsigned char)s[i + 2])))) {
            num[k++] = (char)c;
            num[k++] = s[++i];
        } else {
            break;
        }
        i++;
    }
    if (!digits) return false;
    num[k] = '\0';
    double v;
    if (fast_decimal(num, num + k, &v) != num + k) {
        char *end;
        v = strtod(num, &end);
        if (*end) return false;
    }
    while (i < n && isspace((unsigned char)s[i])) i++;
    size_t ustart = i;
    while (i < n && isalpha((unsigned char)s[i])) i++;
    size_t ulen = i - ustart;
    while (i < n && isspace((unsigned char)s[i])) i++;
    if (i != n) return false;
    if (ulen) {
        bool found = false;
        for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
            if (strlen(units[u].name) == ulen &&
                strncasecmp(units[u].name, s + ustart, ulen) == 0) {
                v *= units[u].mul;
                found = true;
                break;
            }
        }
        if (!found) return false;
    }
    if (!isfinite(v)) return false;
    *out = v;
    return true;
}

size_t ldxi_text_line(const char *p, const char **next)
{
    size_t len = strcspn(p, "\r\n");
    const char *q = p + len;
    if (*q == '\r' && q[1] == '\n') q++;
    *next = *q ? q + 1 : q;
    return len;
}

/* the plain search: memchr for the first byte, then the rest compared */
static const char *memmem_plain(const char *s, size_t n, const char *k, size_t kl)
{
    const char *end = s + n;
    while ((size_t)(end - s) >= kl) {
        const char *q = memchr(s, k[0], (size_t)(end - s) - kl + 1);
        if (!q) return NULL;
        if (!memcmp(q, k, kl)) return q;
        s = q + 1;
    }
    return NULL;
}

#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
#include <emmintrin.h>
#endif

/* The first occurrence of k[0..kl) in s[0..n). With SSE2, 16 candidate places at a time:
 * a place is compared only where both the needle's first and last bytes stand where they
 * must (the structure readers' needles start with common letters, on which a memchr for
 * the first byte alone stopped every few bytes); -DLDX_NO_SIMD builds the plain loop. */
const char *ldxi_memmem(const char *s, size_t n, const char *k, size_t kl)
{
    if (!kl) return s;
    if (kl > n) return NULL;
    size_t i = 0;
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
    if (kl > 1) {
        const __m128i f = _mm_set1_epi8(k[0]), l = _mm_set1_epi8(k[kl - 1]);
        for (; i + 16 <= n - kl + 1; i += 16) { /* n - kl: the last place a match can start */
            __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + kl - 1));
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));
            for (; m; m &= m - 1) {
                unsigned j = (unsigned)__builtin_ctz(m);
                if (!memcmp(s + i + j + 1, k + 1, kl - 2)) return s + i + j;
            }
        }
    }
#endif
    return memmem_plain(s + i, n - i, k, kl); /* the places the blocks left, or all */
}

static inline unsigned char fold_ascii(unsigned char c) { return c >= 'A' && c <= 'Z' ? c | 0x20 : c; }

static bool same_ci(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fold_ascii((unsigned char)a[i]) != fold_ascii((unsigned char)b[i])) return false;
    return true;
}

/* The same search with ASCII letters folded. The SIMD blocks compare every byte with 0x20
 * set, which folds letters and lets a few other bytes through (a place is then compared
 * whole, letters folded and nothing else). */
const char *ldxi_memcasemem(const char *s, size_t n, const char *k, size_t kl)
{
    if (!kl) return s;
    if (kl > n) return NULL;
    size_t i = 0;
#if defined(__SSE2__) && !defined(LDX_NO_SIMD)
    if (kl > 1) {
        const __m128i up = _mm_set1_epi8(0x20);
        const __m128i f = _mm_set1_epi8((char)(k[0] | 0x20)), l = _mm_set1_epi8((char)(k[kl - 1] | 0x20));
        for (; i + 16 <= n - kl + 1; i += 16) {
            __m128i a = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), up);
            __m128i b = _mm_or_si128(_mm_loadu_si128((const __m128i *)(const void *)(s + i + kl - 1)), up);
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));
            for (; m; m &= m - 1) {
                unsigned j = (unsigned)__builtin_ctz(m);
                if (same_ci(s + i + j, k, kl)) return s + i + j;
            }
        }
    }
#endif
    unsigned char c0 = fold_ascii((unsigned char)k[0]);
    for (; i + kl <= n; i++)
        if (fold_ascii((unsigned char)s[i]) == c0 && same_ci(s + i, k, kl)) return s + i;
    return NULL;
}

size_t ldxi_utf8_put(unsigned char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (unsigned char)(0xc0 | c >> 6);
        o[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (unsigned char)(0xe0 | c >> 12);
        o[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | c >> 18);
    o[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
    o[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
    o[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}

size_t ldxi_utf8_seq(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80) return 1;
    size_t k;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) k = 2, cp = s[0] & 0x1f;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) k = 3, cp = s[0] & 0x0f;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4) k = 4, cp = s[0] & 0x07;
    else return 0;
    if (n < k) return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
    if (cp >= 0xd800 && cp <= 0xdfff) return 0;
    return k;
}

/* The lead byte's sequence length for a lead of a multi-byte character, else 0. */
static size_t utf8_lead_len(unsigned char c)
{
    return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

size_t ldxi_utf8_clip(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t o = 0, i = 0;
    while (p[i]) {
        size_t need = utf8_lead_len(p[i]), k = 1;
        while (need && k < need && (p[i + k] & 0xc0) == 0x80) k++;
        if (need && k < need) { /* a character cut short: its bytes go */
            i += k;
            continue;
        }
        memmove(p + o, p + i, k);
        o += k;
        i += k;
    }
    p[o] = 0;
    return o;
}

int ldx_parse_size(const char *s, uint64_t *out)
{
    double v;
    if (!ldxi_parse_quantity(s, strlen(s), &v) || !(v >= 1) || v >= 18446744073709551616.0)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

char *ldxi_display_name(const char *raw)
{
    size_t n = strlen(raw);
    char *out = malloc(n * 4 + 1); /* each byte at most \xHH */
    if (!out) return NULL;
    const unsigned char *p = (const unsigned char *)raw;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = ldxi_utf8_seq(p + i, n - i);
        /* C1 controls are U+0080..U+009F: c2 80..c2 9f */
        bool control = k == 1 ? (p[i] < 0x20 || p[i] == 0x7f) : k == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;
        if (k == 0 || control) {
            size_t m = k ? k : 1;
            for (size_t j = 0; j < m; j++) o += (size_t)sprintf(out + o, "\\x%02x", p[i + j]);
            i += m;
        } else {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        }
    }
    out[o] = '\0';
    return out;
}

size_t ldxi_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++) d[i][0] = i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1,
                   z = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            d[i][j] = x < y ? (x < z ? x : z) : (y < z ? y : z);
        }
    return d[la][lb];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void ldxi_sort_unique_u32(uint32_t *v, size_t *n)
{
    if (*n < 2) return;
    qsort(v, *n, sizeof(uint32_t), cmp_u32);
    size_t w = 1;
    for (size_t r = 1; r < *n; r++)
        if (v[r] != v[w - 1]) v[w++] = v[r];
    *n = w;
}
