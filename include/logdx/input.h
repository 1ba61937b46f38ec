/* logdx input: turns a file, a descriptor or a memory buffer (plain or gzip, told
 * apart by content) into numbered lines.
 *
 * Line ends are "\n", "\r\n" and a lone "\r" (progress bars redraw with it). A line
 * longer than LDX_LINE_MAX keeps its first LDX_LINE_MAX bytes and is flagged
 * truncated; the rest is skipped, so memory does not grow with line length.
 *
 * Ownership: the reader owns its buffers; a line's text is valid until the next call
 * to ldx_reader_next() or ldx_reader_destroy(). */
#ifndef LOGDX_INPUT_H
#define LOGDX_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "logdx/core.h"

#define LDX_LINE_MAX ((size_t)1 << 20)

typedef struct ldx_reader ldx_reader;

typedef struct {
    const char *text;
    size_t len;
    uint64_t lineno;  /* from 1 */
    bool truncated;   /* the line was longer than LDX_LINE_MAX */
    size_t full_len;  /* its real length, when truncated */
} ldx_line;

ldx_status ldx_reader_open_path(ldx_reader **out, const char *path);
/* Takes ownership of fd. */
ldx_status ldx_reader_open_fd(ldx_reader **out, int fd, const char *name);
/* Reads data[0..len) without copying it; data must outlive the reader. */
ldx_status ldx_reader_open_mem(ldx_reader **out, const char *data, size_t len,
                               const char *name);
void ldx_reader_destroy(ldx_reader *r);

/* LDX_OK with a line, LDX_EOF at the end, LDX_EIO when reading failed (the lines
 * before it were still returned; ldx_reader_error() says what happened). */
ldx_status ldx_reader_next(ldx_reader *r, ldx_line *line);
const char *ldx_reader_error(const ldx_reader *r);
const char *ldx_reader_name(const ldx_reader *r);
uint64_t ldx_reader_bytes(const ldx_reader *r);

/* Calls fn for every regular file under path (itself, if a file), in sorted order,
 * without following symbolic links to directories. Problems go to errs. */
typedef ldx_status (*ldx_walk_fn)(const char *path, void *ctx);
ldx_status ldx_walk(const char *path, ldx_walk_fn fn, void *ctx, ldx_msgs *errs);

#endif
