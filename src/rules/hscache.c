/* A cache of the prefilter databases compiled at run time (user rules), by content:
 * compiling a few hundred patterns takes about a second, loading them back a few
 * milliseconds. The file name is a hash of what the database depends on (logdx's and
 * Vectorscan's versions, every pattern and its flags, whether the structure patterns
 * are in it); a file that does not load (damaged, another CPU) is compiled over.
 * Written to a temporary name and renamed, so that runs side by side never see half
 * a file. Where: $LOGDX_CACHE_DIR, else $XDG_CACHE_HOME/logdx, else ~/.cache/logdx;
 * LOGDX_NO_CACHE=1 turns it off. It keeps the CACHE_FILES most recently written. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hsdb.h"

#define CACHE_MAX ((size_t)256 << 20)
#define CACHE_FILES 32

/* mkdir -p for a cache folder of our own. */
static bool make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

bool ldxi_hscache_file(uint64_t key, char *out, size_t n)
{
    const char *off = getenv("LOGDX_NO_CACHE");
    if (off && *off && strcmp(off, "0") != 0) return false;
    char dir[4096];
    const char *d = getenv("LOGDX_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    int w;
    if (d && *d) w = snprintf(dir, sizeof dir, "%s", d);
    else if (x && *x == '/') w = snprintf(dir, sizeof dir, "%s/logdx", x);
    else if (h && *h == '/') w = snprintf(dir, sizeof dir, "%s/.cache/logdx", h);
    else return false;
    if (w <= 0 || (size_t)w >= sizeof dir || !make_dirs(dir)) return false;
    w = snprintf(out, n, "%s/hsdb-%016llx.bin", dir, (unsigned long long)key);
    return w > 0 && (size_t)w < n;
}

unsigned char *ldxi_hscache_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (size_t)st.st_size <= CACHE_MAX && (buf = malloc((size_t)st.st_size))) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
        }
        *len = got;
    }
    close(fd);
    return buf;
}

typedef struct {
    char name[64];
    time_t mtime;
} cached;

/* Removes the oldest databases of dir beyond CACHE_FILES (every edit of a rule set
 * makes a new one). */
static void trim(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    cached files[CACHE_FILES + 1];
    size_t n = 0;
    struct dirent *e;
    char p[4300];
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "hsdb-", 5) != 0 || len < 9 || len >= sizeof files[0].name ||
            strcmp(e->d_name + len - 4, ".bin") != 0)
            continue;
        struct stat st;
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p || stat(p, &st) != 0)
            continue;
        /* keep the newest CACHE_FILES seen so far; the one pushed out goes */
        size_t i = n < CACHE_FILES + 1 ? n++ : CACHE_FILES;
        snprintf(files[i].name, sizeof files[i].name, "%s", e->d_name);
        files[i].mtime = st.st_mtime;
        while (i > 0 && files[i - 1].mtime < files[i].mtime) {
            cached t = files[i - 1];
            files[i - 1] = files[i];
            files[i] = t;
            i--;
        }
        if (n == CACHE_FILES + 1) {
            if (snprintf(p, sizeof p, "%s/%s", dir, files[CACHE_FILES].name) < (int)sizeof p)
                unlink(p);
            n = CACHE_FILES;
        }
    }
    closedir(d);
}

void ldxi_hscache_write(const char *path, const char *data, size_t len)
{
    /* the host too: a home directory may be shared by nodes whose pids coincide */
    char host[64] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    host[sizeof host - 1] = '\0';
    char tmp[4300];
    if (snprintf(tmp, sizeof tmp, "%s.%s.%ld.tmp", path, host, (long)getpid()) >= (int)sizeof tmp)
        return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    if (close(fd) != 0 || done != len || rename(tmp, path) != 0) {
        unlink(tmp);
        return;
    }
    char dir[4300];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        trim(dir);
    }
}
