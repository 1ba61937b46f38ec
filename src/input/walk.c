/* Directory walking for batch scans: regular files in sorted order, so that output is
 * stable across runs and machines. Symbolic links to directories are not followed,
 * which also rules out loops. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "logdx/input.h"
#include "../core/util.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static ldx_status walk_dir(const char *path, ldx_walk_fn fn, void *ctx, ldx_msgs *errs,
                           int depth)
{
    if (depth > 64) {
        ldx_msgs_add(errs, LDX_MSG_ERROR, path, 0, 0, "directory nesting too deep");
        return LDX_ELIMIT;
    }
    DIR *d = opendir(path);
    if (!d) {
        ldx_msgs_add(errs, LDX_MSG_ERROR, path, 0, 0, "cannot open directory: %s",
                     strerror(errno));
        return LDX_EIO;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    ldx_status st = LDX_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char *full = ldxi_asprintf("%s%s%s", path,
                                   path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
        if (!full || LDXI_PUSH(names, n, cap, full) != LDX_OK) {
            free(full);
            st = LDX_ENOMEM;
            break;
        }
    }
    closedir(d);
    if (n) qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n && st == LDX_OK; i++) {
        struct stat sb;
        if (lstat(names[i], &sb) != 0) {
            ldx_msgs_add(errs, LDX_MSG_ERROR, names[i], 0, 0, "cannot stat: %s",
                         strerror(errno));
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            ldx_status s2 = walk_dir(names[i], fn, ctx, errs, depth + 1);
            if (s2 == LDX_ENOMEM) st = s2;
        } else if (S_ISREG(sb.st_mode)) {
            st = fn(names[i], ctx);
        } else if (S_ISLNK(sb.st_mode)) {
            struct stat tb;
            if (stat(names[i], &tb) == 0 && S_ISREG(tb.st_mode)) st = fn(names[i], ctx);
        }
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return st;
}

ldx_status ldx_walk(const char *path, ldx_walk_fn fn, void *ctx, ldx_msgs *errs)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        ldx_msgs_add(errs, LDX_MSG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
        return errno == ENOENT ? LDX_ENOTFOUND : LDX_EIO;
    }
    if (S_ISDIR(sb.st_mode)) return walk_dir(path, fn, ctx, errs, 0);
    return fn(path, ctx);
}
