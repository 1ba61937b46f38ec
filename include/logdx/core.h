/* logdx core: status codes, severities, positioned messages.
 *
 * Ownership: an ldx_msgs list owns copies of every string added to it; strings
 * returned by accessors live until ldx_msgs_destroy(). */
#ifndef LOGDX_CORE_H
#define LOGDX_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define LDX_VERSION "0.1.0"

typedef enum {
    LDX_OK = 0,
    LDX_EOF,      /* no more input: not an error */
    LDX_ENOMEM,
    LDX_EIO,      /* an input or output could not be read or written */
    LDX_EPARSE,   /* malformed text (YAML, expression) */
    LDX_ERULE,    /* a rule is invalid */
    LDX_EINVAL,   /* bad argument or option */
    LDX_ENOTFOUND,
    LDX_ELIMIT    /* a size or resource limit was hit */
} ldx_status;

#define LDX_TRY(expr)                                                                    \
    do {                                                                                 \
        ldx_status ldx_try_s_ = (expr);                                                  \
        if (ldx_try_s_ != LDX_OK) return ldx_try_s_;                                     \
    } while (0)

const char *ldx_status_str(ldx_status s);

typedef enum {
    LDX_SEV_INFO = 0,
    LDX_SEV_LOW,
    LDX_SEV_MEDIUM,
    LDX_SEV_HIGH,
    LDX_SEV_CRITICAL
} ldx_severity;

const char *ldx_severity_name(ldx_severity s);
/* Parses "critical".."info"; returns -1 for anything else. */
int ldx_severity_parse(const char *s);

/* Parses a size of at least one byte: "4096", "500M", "200 GiB", "2TB" (K, M, G, T with
 * or without B or iB, any case, are powers of 1024). Returns 0 on success, -1 for
 * anything else (a negative, a unit that is no size, a size past 2^64). */
int ldx_parse_size(const char *s, uint64_t *out);

typedef enum { LDX_MSG_ERROR = 0, LDX_MSG_WARNING, LDX_MSG_NOTE } ldx_msg_level;
/* A level as reports write it ("error", "warning", "note"), and back: a name that is
 * neither "error" nor "warning" reads as a note. */
const char *ldx_msg_level_name(ldx_msg_level l);
ldx_msg_level ldx_msg_level_parse(const char *name);

typedef struct {
    ldx_msg_level level;
    const char *path; /* may be NULL: a problem outside any file */
    unsigned line;    /* 0 when unknown */
    unsigned col;     /* 0 when unknown */
    const char *text;
} ldx_msg;

typedef struct ldx_msgs ldx_msgs;

ldx_status ldx_msgs_create(ldx_msgs **out);
void ldx_msgs_destroy(ldx_msgs *m);
/* Adds a message; on allocation failure the message is dropped (and counted). */
void ldx_msgs_add(ldx_msgs *m, ldx_msg_level level, const char *path, unsigned line,
                  unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
void ldx_msgs_vadd(ldx_msgs *m, ldx_msg_level level, const char *path, unsigned line,
                   unsigned col, const char *fmt, va_list ap);
size_t ldx_msgs_count(const ldx_msgs *m);
size_t ldx_msgs_errors(const ldx_msgs *m);
const ldx_msg *ldx_msgs_get(const ldx_msgs *m, size_t i);
/* Moves every message of src to the end of dst. */
void ldx_msgs_append(ldx_msgs *dst, const ldx_msgs *src);
/* Orders messages by path, line and column (stable), so a file's problems read top
 * to bottom. */
void ldx_msgs_sort(ldx_msgs *m);
/* Formats one message as "path:line:col: error: text" into buf. */
void ldx_msg_format(const ldx_msg *msg, char *buf, size_t size);

#endif
