/* See larchive.h. The library's file name (its soname) is found at build time. */
#include "larchive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#ifndef LDX_LIBARCHIVE_SONAME
#define LDX_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

static ldxi_archive_api api;
static const ldxi_archive_api *loaded;
static char why_not[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen(LDX_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why_not, sizeof why_not, "libarchive is not available (%s)", dlerror());
        return;
    }
    /* dlsym returns void *; POSIX guarantees it converts to a function pointer */
#define SYM(field, name)                                                                      \
    if (!(*(void **)&api.field = dlsym(h, name))) {                                           \
        snprintf(why_not, sizeof why_not, "libarchive (%s) has no %s", LDX_LIBARCHIVE_SONAME,  \
                 name);                                                                       \
        return;                                                                               \
    }
    SYM(read_new, "archive_read_new")
    SYM(read_free, "archive_read_free")
    SYM(read_support_filter_bzip2, "archive_read_support_filter_bzip2")
    SYM(read_support_format_tar, "archive_read_support_format_tar")
    SYM(read_support_format_gnutar, "archive_read_support_format_gnutar")
    SYM(read_support_format_zip, "archive_read_support_format_zip")
    SYM(read_support_format_raw, "archive_read_support_format_raw")
    SYM(read_open_fd, "archive_read_open_fd")
    SYM(read_open, "archive_read_open")
    SYM(read_next_header, "archive_read_next_header")
    SYM(read_data, "archive_read_data")
    SYM(error_string, "archive_error_string")
    SYM(set_error, "archive_set_error")
    SYM(format, "archive_format")
    SYM(format_name, "archive_format_name")
    SYM(filter_code, "archive_filter_code")
    SYM(entry_pathname, "archive_entry_pathname")
    SYM(entry_pathname_utf8, "archive_entry_pathname_utf8")
    SYM(entry_filetype, "archive_entry_filetype")
#undef SYM
    loaded = &api; /* the handle stays open for the life of the process */
}

const ldxi_archive_api *ldxi_archive(const char **why)
{
    pthread_once(&once, load);
    if (!loaded && why) *why = why_not;
    return loaded;
}
