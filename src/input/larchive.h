/* libarchive, loaded on first use. Plain and single-stream compressed files (the common
 * case) never need it, and mapping it with the eight libraries it pulls in (ICU, libxml2,
 * nettle ...) was three milliseconds of every run, a sixth of `logdx small.log`. */
#ifndef LDX_INPUT_LARCHIVE_H
#define LDX_INPUT_LARCHIVE_H

#include <archive.h>
#include <archive_entry.h>

typedef struct {
    struct archive *(*read_new)(void);
    int (*read_free)(struct archive *);
    int (*read_support_filter_bzip2)(struct archive *);
    int (*read_support_format_tar)(struct archive *);
    int (*read_support_format_gnutar)(struct archive *);
    int (*read_support_format_zip)(struct archive *);
    int (*read_support_format_raw)(struct archive *);
    int (*read_open_fd)(struct archive *, int, size_t);
    int (*read_open)(struct archive *, void *, archive_open_callback *, archive_read_callback *,
                     archive_close_callback *);
    int (*read_next_header)(struct archive *, struct archive_entry **);
    la_ssize_t (*read_data)(struct archive *, void *, size_t);
    const char *(*error_string)(struct archive *);
    void (*set_error)(struct archive *, int, const char *, ...);
    int (*format)(struct archive *);
    const char *(*format_name)(struct archive *);
    int (*filter_code)(struct archive *, int);
    const char *(*entry_pathname)(struct archive_entry *);
    const char *(*entry_pathname_utf8)(struct archive_entry *);
    __LA_MODE_T (*entry_filetype)(struct archive_entry *);
} ldxi_archive_api;

/* The functions, or NULL when libarchive cannot be loaded (*why says why). */
const ldxi_archive_api *ldxi_archive(const char **why);

#endif
