/* Directory walking for batch scans: regular files in sorted order, so that output is
 * stable across runs and machines.
 *
 * Symbolic links to folders are followed, but only after everything reachable without
 * them, and every folder (by device and inode) is walked once: a "latest -> run42"
 * link beside run42/ does not scan it twice (the real path wins), and a link back up
 * the tree ends instead of looping. A link is followed only when its target stays under
 * the folder given (as rg does without -L), unless follow_links asks for every link;
 * never into /proc, /sys or /dev, whose "files" block, never end or are logdx itself
 * (/proc/self/exe). FIFOs, sockets and devices met in a folder are skipped with a note:
 * reading one could wait forever. --include/--exclude filters apply here. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "logdx/input.h"
#include "../core/util.h"

typedef struct {
    dev_t dev;
    ino_t ino;
} dir_id;

typedef struct {
    const ldx_walk_filter *filter;
    size_t rootlen;      /* strlen of the root and its "/": what to cut for relative paths */
    ldx_walk_fn fn;
    void *ctx;
    ldx_msgs *errs;
    dir_id *seen;        /* folders walked, sorted */
    size_t nseen, capseen;
    char **links;        /* symbolic links to folders, for the second pass */
    size_t nlinks, caplinks;
    char *root_real;     /* the folder given, resolved: links must stay under it */
    size_t root_real_len;
} walker;

/* Kernel file systems whose entries are not logs (statfs(2) f_type values). */
static bool special_fs(const char *path)
{
    struct statfs fs;
    if (statfs(path, &fs) != 0) return false;
    switch ((unsigned long)fs.f_type) {
    case 0x9fa0UL:     /* proc */
    case 0x62656572UL: /* sysfs */
    case 0x1373UL:     /* devfs */
    case 0x64626720UL: /* debugfs */
    case 0x74726163UL: /* tracefs */
    case 0x27e0ebUL:   /* cgroup */
    case 0x63677270UL: /* cgroup2 */
    case 0x1cd1UL:     /* devpts */
        return true;
    default:
        return false;
    }
}

static bool in_kernel_fs_path(const char *p)
{
    static const char *const roots[] = {"/proc", "/sys", "/dev"};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(roots[i]);
        if (!strncmp(p, roots[i], n) && (p[n] == '/' || p[n] == 0)) return true;
    }
    return false;
}

/* Whether a link may be followed: its target, resolved, stays under the folder given
 * (or follow_links is set), and is on no kernel file system. NULL reason: yes. */
static const char *link_refused(const walker *w, const char *full)
{
    /* the link's own text too: /proc/self/exe resolves to a file outside /proc */
    char target[4096];
    ssize_t tl = readlink(full, target, sizeof target - 1);
    if (tl > 0) target[tl] = 0;
    if (tl > 0 && (in_kernel_fs_path(target)))
        return "symbolic link into a kernel file system (/proc, /sys, /dev), not followed";
    char *real = realpath(full, NULL);
    if (!real) return NULL; /* dangling: stat says so next */
    const char *why = NULL;
    bool inside = w->root_real && !strncmp(real, w->root_real, w->root_real_len) &&
                  (real[w->root_real_len] == '/' || real[w->root_real_len] == 0 ||
                   w->root_real_len == 1);
    if (in_kernel_fs_path(real) || special_fs(real))
        why = "symbolic link into a kernel file system (/proc, /sys, /dev), not followed";
    else if (!inside && !(w->filter && w->filter->follow_links))
        why = "symbolic link to outside the folder, not followed (--follow-links follows it)";
    free(real);
    return why;
}

static int cmp_id(const dir_id *a, const dir_id *b)
{
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    if (a->ino != b->ino) return a->ino < b->ino ? -1 : 1;
    return 0;
}

/* Marks a folder as seen; false if it already was. */
static ldx_status mark_seen(walker *w, const struct stat *sb, bool *fresh)
{
    dir_id id = {sb->st_dev, sb->st_ino};
    size_t lo = 0, hi = w->nseen;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = cmp_id(&w->seen[mid], &id);
        if (c == 0) {
            *fresh = false;
            return LDX_OK;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    LDX_TRY(ldxi_grow((void **)&w->seen, &w->capseen, w->nseen + 1, sizeof(*w->seen)));
    memmove(w->seen + lo + 1, w->seen + lo, (w->nseen - lo) * sizeof(*w->seen));
    w->seen[lo] = id;
    w->nseen++;
    *fresh = true;
    return LDX_OK;
}

/* Whether a path matches one of pats: a pattern with a '/' against the path below the
 * root, any other against the base name. */
static bool matches(const walker *w, const char *const *pats, size_t n, const char *full,
                    const char *base)
{
    const char *rel = strlen(full) > w->rootlen ? full + w->rootlen : base;
    for (size_t i = 0; i < n; i++) {
        const char *subject = strchr(pats[i], '/') ? rel : base;
        if (fnmatch(pats[i], subject, 0) == 0) return true;
    }
    return false;
}

static bool excluded(const walker *w, const char *full, const char *base)
{
    const ldx_walk_filter *f = w->filter;
    return f && f->nexclude && matches(w, f->exclude, f->nexclude, full, base);
}

static bool included(const walker *w, const char *full, const char *base)
{
    const ldx_walk_filter *f = w->filter;
    return !f || !f->ninclude || matches(w, f->include, f->ninclude, full, base);
}

static ldx_status walk_dir(walker *w, const char *path, int depth);

/* A folder's entry, with its type where the folder says (DT_UNKNOWN: it does not). */
typedef struct {
    char *full;
    unsigned char type;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->full, ((const entry *)b)->full);
}

static ldx_status walk_entry(walker *w, const char *full, const char *base, unsigned char type,
                             int depth)
{
    /* a regular file, as the folder says: no stat (a folder of hundreds of rule files or
     * archived logs paid one for each) */
    if (type == DT_REG) {
        if (excluded(w, full, base) || !included(w, full, base)) return LDX_OK;
        return w->fn(full, w->ctx);
    }
    struct stat sb;
    if (lstat(full, &sb) != 0) {
        ldx_msgs_add(w->errs, LDX_MSG_ERROR, full, 0, 0, "cannot stat: %s", strerror(errno));
        return LDX_OK;
    }
    if (excluded(w, full, base)) return LDX_OK;
    bool link = S_ISLNK(sb.st_mode);
    if (link) {
        const char *why = link_refused(w, full);
        if (why) {
            ldx_msgs_add(w->errs, LDX_MSG_NOTE, full, 0, 0, "%s", why);
            return LDX_OK;
        }
    }
    if (link && stat(full, &sb) != 0) return LDX_OK; /* a dangling link: nothing to read */
    if (S_ISDIR(sb.st_mode)) {
        if (link) {
            char *copy = ldxi_strdup(full);
            if (!copy || LDXI_PUSH(w->links, w->nlinks, w->caplinks, copy) != LDX_OK) {
                free(copy);
                return LDX_ENOMEM;
            }
            return LDX_OK;
        }
        bool fresh;
        LDX_TRY(mark_seen(w, &sb, &fresh));
        return fresh ? walk_dir(w, full, depth + 1) : LDX_OK;
    }
    if (S_ISREG(sb.st_mode)) return included(w, full, base) ? w->fn(full, w->ctx) : LDX_OK;
    if (included(w, full, base))
        ldx_msgs_add(w->errs, LDX_MSG_NOTE, full, 0, 0, "not a regular file (%s), skipped",
                     S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISSOCK(sb.st_mode) ? "a socket"
                                                                           : "a device");
    return LDX_OK;
}

static ldx_status walk_dir(walker *w, const char *path, int depth)
{
    if (depth > 64) {
        ldx_msgs_add(w->errs, LDX_MSG_ERROR, path, 0, 0, "directory nesting too deep");
        return LDX_OK;
    }
    DIR *d = opendir(path);
    if (!d) {
        ldx_msgs_add(w->errs, LDX_MSG_ERROR, path, 0, 0, "cannot open directory: %s",
                     strerror(errno));
        return LDX_OK;
    }
    entry *names = NULL;
    size_t n = 0, cap = 0;
    ldx_status st = LDX_OK;
    struct dirent *e;
    size_t plen = strlen(path);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        entry en = {ldxi_asprintf("%s%s%s", path, plen && path[plen - 1] == '/' ? "" : "/", e->d_name),
                    e->d_type};
        if (!en.full || LDXI_PUSH(names, n, cap, en) != LDX_OK) {
            free(en.full);
            st = LDX_ENOMEM;
            break;
        }
    }
    closedir(d);
    if (n) qsort(names, n, sizeof(*names), cmp_entry);
    for (size_t i = 0; i < n && st == LDX_OK; i++) {
        const char *base = strrchr(names[i].full, '/') + 1;
        st = walk_entry(w, names[i].full, base, names[i].type, depth);
    }
    for (size_t i = 0; i < n; i++) free(names[i].full);
    free(names);
    return st;
}

/* The links to folders found so far, in the order found, each walked unless its target
 * was walked already; links found inside them join the queue. */
static ldx_status follow_links(walker *w)
{
    ldx_status st = LDX_OK;
    for (size_t i = 0; i < w->nlinks && st == LDX_OK; i++) {
        const char *link = w->links[i];
        struct stat sb;
        if (stat(link, &sb) != 0) continue;
        bool fresh;
        st = mark_seen(w, &sb, &fresh);
        if (st != LDX_OK) break;
        if (!fresh) {
            /* Pointing at a folder it is inside: a loop. Elsewhere: a second name for a
             * folder already scanned, which is normal ("latest -> run42"). */
            char *real_link = realpath(link, NULL), *parent = ldxi_strdup(link);
            char *slash = parent ? strrchr(parent, '/') : NULL;
            if (slash) *slash = 0;
            char *real_parent = slash ? realpath(parent, NULL) : NULL;
            size_t rl = real_link ? strlen(real_link) : 0;
            if (real_link && real_parent && !strncmp(real_parent, real_link, rl) &&
                (real_parent[rl] == '/' || real_parent[rl] == 0))
                ldx_msgs_add(w->errs, LDX_MSG_WARNING, link, 0, 0,
                             "symbolic link loop (points to a folder it is inside), not followed");
            free(real_link);
            free(real_parent);
            free(parent);
            continue;
        }
        st = walk_dir(w, link, 1);
    }
    return st;
}

ldx_status ldx_walk_filtered(const char *path, const ldx_walk_filter *filter, ldx_walk_fn fn,
                             void *ctx, ldx_msgs *errs)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        int e = errno;
        ldx_msgs_add(errs, LDX_MSG_ERROR, path, 0, 0, "cannot open: %s", strerror(e));
        return e == ENOENT ? LDX_ENOTFOUND : LDX_EIO;
    }
    if (!S_ISDIR(sb.st_mode)) return fn(path, ctx);
    size_t plen = strlen(path);
    walker w = {.filter = filter, .fn = fn, .ctx = ctx, .errs = errs,
                .rootlen = plen + (plen && path[plen - 1] == '/' ? 0 : 1)};
    w.root_real = realpath(path, NULL);
    w.root_real_len = w.root_real ? strlen(w.root_real) : 0;
    bool fresh;
    ldx_status st = mark_seen(&w, &sb, &fresh);
    if (st == LDX_OK) st = walk_dir(&w, path, 0);
    if (st == LDX_OK) st = follow_links(&w);
    for (size_t i = 0; i < w.nlinks; i++) free(w.links[i]);
    free(w.links);
    free(w.seen);
    free(w.root_real);
    return st;
}

ldx_status ldx_walk(const char *path, ldx_walk_fn fn, void *ctx, ldx_msgs *errs)
{
    return ldx_walk_filtered(path, NULL, fn, ctx, errs);
}
