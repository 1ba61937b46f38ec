/* Internal helpers shared by every layer: strings, an arena, growable arrays,
 * number parsing with units. Never installed. */
#ifndef LDX_CORE_UTIL_H
#define LDX_CORE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logdx/core.h"

char *ldxi_strdup(const char *s);
/* Levenshtein distance of two short names (keys, classes, rule ids; 99 past 64 bytes),
 * for "did you mean" suggestions. */
size_t ldxi_edit_distance(const char *a, const char *b);
/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if it is invalid:
 * overlong forms, surrogates and code points past U+10FFFF are invalid too. */
size_t ldxi_utf8_seq(const unsigned char *s, size_t n);
/* Drops, in place, the bytes of characters cut short (a lead byte of a multi-byte
 * character followed by fewer continuation bytes than it needs), which "%.60s" leaves
 * when it cuts inside a character; other bytes stay as they are. The new length. */
size_t ldxi_utf8_clip(char *s);
/* Writes code point c (at most U+10FFFF, no surrogate) as UTF-8 at o: the bytes written, 1 to 4. */
size_t ldxi_utf8_put(unsigned char *o, uint32_t c);
/* A name (a file's, an archive member's) as it may be printed anywhere: control bytes
 * (C0, DEL, C1) and bytes that are not UTF-8 become \xHH, so that a name cannot clear a
 * screen, set a title or forge lines, and is valid UTF-8. NULL when out of memory. */
char *ldxi_display_name(const char *raw);
char *ldxi_strndup(const char *s, size_t n);
/* The length of s[0, n) without its trailing blanks (spaces, tabs, a '\r'). */
static inline size_t ldxi_trimmed_len(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) n--;
    return n;
}
/* The first k (of kl bytes) in s[0, n), which need not be NUL-terminated; NULL: none. */
const char *ldxi_memmem(const char *s, size_t n, const char *k, size_t kl);
/* The same with ASCII letters matched in either case. */
const char *ldxi_memcasemem(const char *s, size_t n, const char *k, size_t kl);
/* The line at p in NUL-terminated text (a rule's example): its length, and in *next
 * where the next one starts, past "\n", "\r" or "\r\n" as the reader cuts lines. */
size_t ldxi_text_line(const char *p, const char **next);
char *ldxi_vasprintf(const char *fmt, va_list ap);
char *ldxi_asprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Bump allocator: many small strings that die together (a ruleset's text). */
typedef struct ldx_arena ldx_arena;
ldx_status ldxi_arena_create(ldx_arena **out);
void ldxi_arena_destroy(ldx_arena *a);
/* Frees everything allocated so far, keeping the newest chunk for what comes next. */
void ldxi_arena_reset(ldx_arena *a);
void *ldxi_arena_alloc(ldx_arena *a, size_t n);
char *ldxi_arena_strdup(ldx_arena *a, const char *s);
char *ldxi_arena_strndup(ldx_arena *a, const char *s, size_t n);

/* Grows *v (of *cap elements of size elem) so that it holds at least need elements.
 * Inline for the common case, room already there: the scan asks once per hit. */
ldx_status ldxi_grow_slow(void **v, size_t *cap, size_t need, size_t elem);
static inline ldx_status ldxi_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    return need <= *cap ? LDX_OK : ldxi_grow_slow(v, cap, need, elem);
}
/* Sorts v[0..*n) ascending and drops repeats (*n: how many are left). */
void ldxi_sort_unique_u32(uint32_t *v, size_t *n);
#define LDXI_PUSH(vec, n, cap, val)                                                      \
    (ldxi_grow((void **)&(vec), &(cap), (n) + 1, sizeof(*(vec))) == LDX_OK               \
         ? ((vec)[(n)++] = (val), LDX_OK)                                                \
         : LDX_ENOMEM)

/* Growable byte buffer with a hard cap: appends past the cap fail with LDX_ELIMIT. */
typedef struct {
    char *data;
    size_t len, cap, max;
} ldx_buf;
void ldxi_buf_init(ldx_buf *b, size_t max);
void ldxi_buf_free(ldx_buf *b);
ldx_status ldxi_buf_append(ldx_buf *b, const void *p, size_t n);
ldx_status ldxi_buf_printf(ldx_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reads a number with an optional unit from s[0..n): "12", "11.2 GiB", "1.2e10",
 * "1,024 MB", "812MiB". Byte units become bytes, in powers of 1024 whether written KB,
 * KiB or K: ML tools print "GB" for memory divided by 2**30. Leading and
 * trailing blanks are allowed; any other trailing text makes it not a number. */
bool ldxi_parse_quantity(const char *s, size_t n, double *out);

/* Whether s, a number ldxi_parse_quantity reads, carries its byte unit ("812MiB", "1.2 GB"). */
bool ldxi_has_byte_unit(const char *s);

#endif
