/* logdx input: turns a file, a descriptor or a memory buffer into numbered lines.
 * Files and descriptors may be compressed (gzip, zstd, xz, bzip2) or archives of logs
 * (tar, compressed or not, zip), told apart by content; ldx_input yields every log of
 * an archive, ldx_reader_open_path/fd the first.
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
    bool no_esc;      /* the reader saw no ESC in it (false: there may be ANSI escapes) */
} ldx_line;

ldx_status ldx_reader_open_path(ldx_reader **out, const char *path);
/* Takes ownership of fd. Of an archive, reads the first log; a damaged container reads
 * as a reader whose first ldx_reader_next() fails. */
ldx_status ldx_reader_open_fd(ldx_reader **out, int fd, const char *name);
/* Reads data[0..len) without copying it; data must outlive the reader. */
ldx_status ldx_reader_open_mem(ldx_reader **out, const char *data, size_t len,
                               const char *name);
void ldx_reader_destroy(ldx_reader *r);

/* LDX_OK with a line, LDX_EOF at the end, LDX_EIO when reading failed (the lines
 * before it were still returned; ldx_reader_error() says what happened). */
ldx_status ldx_reader_next(ldx_reader *r, ldx_line *line);
/* A hard-wrapped paste (a terminal's scroll-back, a mailed log: no line wider than one
 * width, many exactly that wide) is read with each row of that width joined to the row
 * after it, so that a message cut in two is one line again; a joined line has the
 * number of its first row. ldx_reader_keep_wraps (before the first read) turns that
 * off. ldx_reader_unwrapped: the width rows were joined at (0: none were) and, in
 * *joins when not NULL, how many rows were joined to the one before. */
void ldx_reader_keep_wraps(ldx_reader *r);
size_t ldx_reader_unwrapped(const ldx_reader *r, uint64_t *joins);
const char *ldx_reader_error(const ldx_reader *r);
const char *ldx_reader_name(const ldx_reader *r);
uint64_t ldx_reader_bytes(const ldx_reader *r);

/* What the first bytes of an input say it is. Compression and archives are recognised
 * by content, never by file name; anything else is a plain log. */
typedef enum {
    LDX_KIND_PLAIN = 0,
    LDX_KIND_GZIP,   /* 1f 8b */
    LDX_KIND_ZSTD,   /* 28 b5 2f fd */
    LDX_KIND_XZ,     /* fd 37 7a 58 5a 00 */
    LDX_KIND_BZIP2,  /* "BZh" and a block size digit */
    LDX_KIND_ZIP,    /* "PK\3\4" (or an empty archive's "PK\5\6") */
    LDX_KIND_TAR,    /* "ustar" at offset 257 */
    LDX_KIND_UTF16LE, /* ff fe, or text with every second byte NUL (Windows PowerShell's "> log") */
    LDX_KIND_UTF16BE  /* fe ff, or text with every first byte NUL */
} ldx_input_kind;

/* How many leading bytes ldx_input_detect() wants to see (fewer is fine). */
#define LDX_DETECT_BYTES 512
ldx_input_kind ldx_input_detect(const void *head, size_t n);
const char *ldx_input_kind_name(ldx_input_kind k);

/* Whether a file's first bytes (LDX_BINARY_BYTES of them, or fewer) are a binary's (a
 * checkpoint, an image, a core dump, an executable) rather than a log's: over 30% are
 * bytes no text has (NUL and other controls but tab, line ends and ESC, and bytes that
 * start no UTF-8 sequence), and they are no compressed log or archive. A log with some
 * NUL padding (a file cut short by a crash) is still a log. */
#define LDX_BINARY_BYTES 8192
bool ldx_input_looks_binary(const void *head, size_t n);

/* The name of an archive member in reports: "run42.tar.gz:logs/rank3.log" (a leading
 * "./" or "/" of the member is dropped). Malloc'd; NULL when out of memory. */
char *ldx_input_member_name(const char *container, const char *member);

/* An input: one file or descriptor that holds one log (plain or compressed) or an
 * archive of many (tar, possibly compressed, or zip). It yields one reader per log. A
 * member that is itself compressed (gzip, xz, zstd: a rank3.log.gz in a tar) is decoded
 * too, by content; an archive inside an archive is read as one member, not opened.
 *
 * Ownership: the input owns the descriptor and the readers it yields; a reader is valid
 * until the next ldx_input_next() or ldx_input_destroy(). */
typedef struct ldx_input ldx_input;

/* LDX_ENOTFOUND / LDX_EIO (errno set) when path cannot be opened. */
ldx_status ldx_input_open(ldx_input **out, const char *path);
/* Takes ownership of fd (a pipe is fine: the first bytes are kept, not sought back). */
ldx_status ldx_input_open_fd(ldx_input **out, int fd, const char *name);
/* The next log: LDX_OK with *r set; LDX_EOF after the last; LDX_EIO when the container
 * itself is damaged (ldx_input_error() says why; a member whose data was cut short
 * reports that through its reader instead, and is not reported again here). Regular
 * archive members only: folders, links and devices are skipped. */
ldx_status ldx_input_next(ldx_input *in, ldx_reader **r);
/* Decode compressed logs on a thread of their own, ahead of the reader (for callers
 * with a core to spare); set before the first ldx_input_next(). */
void ldx_input_set_readahead(ldx_input *in, bool on);
/* Bounds on what one input may hold: members of an archive, and bytes decoded from it
 * (all its members together, or its one compressed log); past either the input ends with
 * LDX_EIO and ldx_input_error() says which limit. 0 leaves a bound at its default
 * (LDX_INPUT_MAX_MEMBERS, LDX_INPUT_MAX_DECODED). Set before the first ldx_input_next(). */
#define LDX_INPUT_MAX_MEMBERS 1000000ull
#define LDX_INPUT_MAX_DECODED (1ull << 40) /* 1 TiB */
void ldx_input_set_limits(ldx_input *in, uint64_t max_members, uint64_t max_decoded);
ldx_input_kind ldx_input_kind_of(const ldx_input *in);
/* An archive of logs (tar, compressed or not, or zip), not one compressed log. */
bool ldx_input_is_archive(const ldx_input *in);
const char *ldx_input_error(const ldx_input *in);
/* How far reading has got in the input as stored (compressed or archive bytes, not
 * decoded ones), for a progress line: its file offset, or the bytes taken from a pipe.
 * May be called from another thread while the input is being read. */
uint64_t ldx_input_position(const ldx_input *in);
void ldx_input_destroy(ldx_input *in);

/* Calls fn for every regular file under path (itself, if a file), in sorted order.
 * Symbolic links to files are followed; links to folders too, after the real folders,
 * and each folder (by device and inode) is walked once, so loops end; a link back to
 * a folder it is inside is reported as a warning. Problems go to errs. */
typedef ldx_status (*ldx_walk_fn)(const char *path, void *ctx);
ldx_status ldx_walk(const char *path, ldx_walk_fn fn, void *ctx, ldx_msgs *errs);

/* Which files of folders to take. A pattern is an fnmatch(3) glob matched against a
 * file's name, or, when it contains a "/", against its path below the folder given.
 * include: when any are given, only files matching one of them; exclude: never files
 * or folders (their whole subtree) matching one. A path named to ldx_walk_filtered
 * itself is always taken. Inside a folder, a symbolic link is followed only when its
 * target stays under the folder given (follow_links: wherever it points), never into
 * /proc, /sys or /dev; FIFOs, sockets and devices are skipped with a note. */
typedef struct {
    const char *const *include;
    size_t ninclude;
    const char *const *exclude;
    size_t nexclude;
    bool follow_links; /* follow links whose target is outside the folder given, too */
} ldx_walk_filter;

ldx_status ldx_walk_filtered(const char *path, const ldx_walk_filter *filter, ldx_walk_fn fn,
                             void *ctx, ldx_msgs *errs);

#endif
