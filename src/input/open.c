/* Opening one log as a reader (input layer, its top): a path or a descriptor goes
 * through the container (container.c), so that a compressed file or an archive reads
 * as its first log, and the reader (reader.c) owns the input it reads from. */
#include <errno.h>
#include <fcntl.h>

#include "logdx/input.h"
#include "input_int.h"

static ssize_t failed_read(void *ctx, void *buf, size_t cap, const char **err)
{
    (void)buf;
    (void)cap;
    *err = ldx_input_error(ctx);
    return -1;
}

static ssize_t empty_read(void *ctx, void *buf, size_t cap, const char **err)
{
    (void)ctx;
    (void)buf;
    (void)cap;
    (void)err;
    return 0;
}

static void release_input(void *in) { ldx_input_destroy(in); }

ldx_status ldx_reader_open_fd(ldx_reader **out, int fd, const char *name)
{
    *out = NULL;
    ldx_input *in;
    LDX_TRY(ldx_input_open_fd(&in, fd, name));
    ldx_reader *r = NULL;
    ldx_status st = ldx_input_next(in, &r);
    if (st == LDX_OK) {
        ldxi_input_give_up_reader(in); /* the reader owns the input now, not the other way round */
    } else if (st != LDX_ENOMEM) {
        /* A damaged container or an archive without a log: a reader that says so (or
         * has no lines), like a file that fails or is empty. */
        st = ldxi_reader_open_fn(&r, st == LDX_EIO ? failed_read : empty_read, in, name);
    }
    if (st != LDX_OK) {
        ldx_input_destroy(in);
        return st;
    }
    ldxi_reader_own(r, in, release_input);
    *out = r;
    return LDX_OK;
}

ldx_status ldx_reader_open_path(ldx_reader **out, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? LDX_ENOTFOUND : LDX_EIO;
    return ldx_reader_open_fd(out, fd, path);
}
