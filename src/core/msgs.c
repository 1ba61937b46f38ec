/* A growable list of positioned messages: the one way every layer reports problems,
 * so that the CLI can print them all (not just the first) and JSON can carry them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logdx/core.h"
#include "util.h"

struct ldx_msgs {
    ldx_msg *v;
    size_t n, cap;
    size_t nerrors;
    size_t dropped;
};

ldx_status ldx_msgs_create(ldx_msgs **out)
{
    *out = calloc(1, sizeof(ldx_msgs));
    return *out ? LDX_OK : LDX_ENOMEM;
}

void ldx_msgs_destroy(ldx_msgs *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->n; i++) {
        free((char *)m->v[i].path);
        free((char *)m->v[i].text);
    }
    free(m->v);
    free(m);
}

/* Keeps a hostile input from turning its error list into unbounded memory. */
#define LDX_MSGS_MAX 10000

static void push(ldx_msgs *m, ldx_msg_level level, const char *path, unsigned line,
                 unsigned col, char *text)
{
    if (m->n >= LDX_MSGS_MAX) {
        m->dropped++;
        free(text);
        return;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        ldx_msg *v = realloc(m->v, cap * sizeof(*v));
        if (!v) {
            m->dropped++;
            free(text);
            return;
        }
        m->v = v;
        m->cap = cap;
    }
    ldx_msg *msg = &m->v[m->n++];
    msg->level = level;
    msg->path = path ? ldxi_display_name(path) : NULL; /* a name may hold any bytes */
    msg->line = line;
    msg->col = col;
    msg->text = text;
    if (level == LDX_MSG_ERROR) m->nerrors++;
}

void ldx_msgs_vadd(ldx_msgs *m, ldx_msg_level level, const char *path, unsigned line,
                   unsigned col, const char *fmt, va_list ap)
{
    if (!m) return;
    char *text = ldxi_vasprintf(fmt, ap);
    if (!text) {
        m->dropped++;
        return;
    }
    push(m, level, path, line, col, text);
}

void ldx_msgs_add(ldx_msgs *m, ldx_msg_level level, const char *path, unsigned line,
                  unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ldx_msgs_vadd(m, level, path, line, col, fmt, ap);
    va_end(ap);
}

size_t ldx_msgs_count(const ldx_msgs *m) { return m ? m->n : 0; }
size_t ldx_msgs_errors(const ldx_msgs *m) { return m ? m->nerrors : 0; }

const ldx_msg *ldx_msgs_get(const ldx_msgs *m, size_t i)
{
    return (m && i < m->n) ? &m->v[i] : NULL;
}

void ldx_msgs_append(ldx_msgs *dst, const ldx_msgs *src)
{
    if (!dst || !src) return;
    for (size_t i = 0; i < src->n; i++) {
        const ldx_msg *s = &src->v[i];
        char *t = ldxi_strdup(s->text);
        if (t) push(dst, s->level, s->path, s->line, s->col, t);
    }
}

const char *ldx_msg_level_name(ldx_msg_level l)
{
    return l == LDX_MSG_ERROR ? "error" : l == LDX_MSG_WARNING ? "warning" : "note";
}

ldx_msg_level ldx_msg_level_parse(const char *name)
{
    return !strcmp(name, "error") ? LDX_MSG_ERROR : !strcmp(name, "warning") ? LDX_MSG_WARNING : LDX_MSG_NOTE;
}

void ldx_msg_format(const ldx_msg *msg, char *buf, size_t size)
{
    if (msg->path && msg->line && msg->col)
        snprintf(buf, size, "%s:%u:%u: %s: %s", msg->path, msg->line, msg->col,
                 ldx_msg_level_name(msg->level), msg->text);
    else if (msg->path && msg->line)
        snprintf(buf, size, "%s:%u: %s: %s", msg->path, msg->line, ldx_msg_level_name(msg->level),
                 msg->text);
    else if (msg->path)
        snprintf(buf, size, "%s: %s: %s", msg->path, ldx_msg_level_name(msg->level), msg->text);
    else
        snprintf(buf, size, "%s: %s", ldx_msg_level_name(msg->level), msg->text);
}

static int msg_cmp(const ldx_msg *a, const ldx_msg *b)
{
    int c = strcmp(a->path ? a->path : "", b->path ? b->path : "");
    if (c) return c;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    return 0;
}

void ldx_msgs_sort(ldx_msgs *m)
{
    /* insertion sort: stable, and message lists are short */
    for (size_t i = 1; m && i < m->n; i++) {
        ldx_msg x = m->v[i];
        size_t j = i;
        while (j > 0 && msg_cmp(&m->v[j - 1], &x) > 0) {
            m->v[j] = m->v[j - 1];
            j--;
        }
        m->v[j] = x;
    }
}
