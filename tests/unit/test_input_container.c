/* ldx_input: plain, compressed and archived logs, from files and pipes; logs cut short
 * give what was read and then an error. Archives are made with libarchive's writer. */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "test_util.h"
#include "logdx/input.h"

#define LOG "step 1 loss 2.0\nstep 2 loss 1.9\nCUDA out of memory\n"

static char dir[] = "/tmp/ldx-input-XXXXXX";

static char *path_in(const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* Writes an archive (format, filter) of the given members to name. */
static char *make_archive(const char *name, int fmt, int filter, const char *const *members,
                          size_t n)
{
    char *p = path_in(name);
    struct archive *a = archive_write_new();
    archive_write_set_format(a, fmt);
    if (filter != ARCHIVE_FILTER_NONE) archive_write_add_filter(a, filter);
    assert_int_equal(archive_write_open_filename(a, p), ARCHIVE_OK);
    for (size_t i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, members[i]);
        bool isdir = members[i][strlen(members[i]) - 1] == '/';
        archive_entry_set_filetype(e, isdir ? AE_IFDIR : AE_IFREG);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_size(e, isdir ? 0 : (la_int64_t)strlen(LOG));
        archive_write_header(a, e);
        if (!isdir) archive_write_data(a, LOG, strlen(LOG));
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    return p;
}

/* Reads every log of an input: their names joined by '|', lines counted, last status. */
static ldx_status read_input(ldx_input *in, char *names, size_t cap, int *lines, bool *read_err)
{
    ldx_reader *r;
    ldx_status st;
    names[0] = 0;
    *lines = 0;
    *read_err = false;
    while ((st = ldx_input_next(in, &r)) != LDX_EOF) {
        if (st != LDX_OK) return st;
        if (names[0]) strncat(names, "|", cap - strlen(names) - 1);
        strncat(names, ldx_reader_name(r), cap - strlen(names) - 1);
        ldx_line l;
        ldx_status rs;
        while ((rs = ldx_reader_next(r, &l)) == LDX_OK) (*lines)++;
        if (rs == LDX_EIO) *read_err = true;
    }
    return st;
}

static void test_tar_gz_members(void **state)
{
    (void)state;
    const char *m[] = {"./logs/", "./logs/rank0.log", "logs/rank3.log"};
    char *p = make_archive("run42.tar.gz", ARCHIVE_FORMAT_TAR_PAX_RESTRICTED,
                           ARCHIVE_FILTER_GZIP, m, 3);
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    char names[1024], want[1024];
    int lines;
    bool err;
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    snprintf(want, sizeof want, "%s:logs/rank0.log|%s:logs/rank3.log", p, p);
    assert_string_equal(names, want);
    assert_int_equal(lines, 6);
    assert_false(err);
    ldx_input_destroy(in);
    free(p);
}

static void test_zip_and_xz_tar(void **state)
{
    (void)state;
    const char *m[] = {"job/a.log", "job/b.log"};
    char *p = make_archive("job.zip", ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE, m, 2);
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    assert_int_equal(ldx_input_kind_of(in), LDX_KIND_ZIP);
    char names[1024];
    int lines;
    bool err;
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    assert_int_equal(lines, 6);
    assert_non_null(strstr(names, "job.zip:job/b.log"));
    ldx_input_destroy(in);
    free(p);
    p = make_archive("t.tar.xz", ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_XZ, m, 1);
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    assert_int_equal(lines, 3);
    assert_non_null(strstr(names, "t.tar.xz:job/a.log"));
    ldx_input_destroy(in);
    free(p);
}

static char *write_gz(const char *name, const char *text, size_t copies)
{
    char *p = path_in(name);
    gzFile g = gzopen(p, "wb");
    for (size_t i = 0; i < copies; i++) gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    return p;
}

static void test_single_gz_named_as_file(void **state)
{
    (void)state;
    char *p = write_gz("train.log", LOG, 1); /* a name that does not say gzip */
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    assert_int_equal(ldx_input_kind_of(in), LDX_KIND_GZIP);
    char names[1024];
    int lines;
    bool err;
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    assert_string_equal(names, p); /* one log: its own name, no member */
    assert_int_equal(lines, 3);
    ldx_input_destroy(in);
    free(p);
}

/* A gzip cut short: every line before the cut is read, then the reader fails. */
static void test_truncated_gz_keeps_what_was_read(void **state)
{
    (void)state;
    char *p = write_gz("cut.gz", "a line of a training log that repeats\n", 20000);
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_int_equal(truncate(p, size * 3 / 4), 0);
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    char names[1024];
    int lines;
    bool err;
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    assert_true(err);
    assert_true(lines > 20000 * 3 / 4 - 2000); /* all but the very end */
    assert_true(lines < 20000);
    ldx_input_destroy(in);
    /* through ldx_reader_open_path too */
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_path(&r, p), LDX_OK);
    ldx_line l;
    while (ldx_reader_next(r, &l) == LDX_OK) {}
    assert_int_equal(ldx_reader_next(r, &l), LDX_EIO);
    assert_non_null(strstr(ldx_reader_error(r), "truncated"));
    ldx_reader_destroy(r);
    free(p);
}

static void test_pipe(void **state)
{
    (void)state;
    const char *m[] = {"x.log"};
    char *p = make_archive("p.tar.gz", ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_GZIP, m, 1);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    FILE *f = fopen(p, "rb");
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n < 60000);
    assert_int_equal(write(fds[1], buf, n), (ssize_t)n);
    close(fds[1]);
    ldx_input *in;
    assert_int_equal(ldx_input_open_fd(&in, fds[0], "-"), LDX_OK);
    char names[1024];
    int lines;
    bool err;
    assert_int_equal(read_input(in, names, sizeof names, &lines, &err), LDX_EOF);
    assert_string_equal(names, "-:x.log");
    assert_int_equal(lines, 3);
    ldx_input_destroy(in);
    free(p);
}

static void test_damaged_archive(void **state)
{
    (void)state;
    char *p = path_in("bad.zip");
    FILE *f = fopen(p, "wb");
    fputs("PK\3\4 this is not really a zip archive, just its magic\n", f);
    fclose(f);
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    ldx_reader *r;
    assert_int_equal(ldx_input_next(in, &r), LDX_EIO);
    assert_non_null(ldx_input_error(in));
    assert_int_equal(ldx_input_next(in, &r), LDX_EOF);
    ldx_input_destroy(in);
    free(p);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tar_gz_members),
        cmocka_unit_test(test_zip_and_xz_tar),
        cmocka_unit_test(test_single_gz_named_as_file),
        cmocka_unit_test(test_truncated_gz_keeps_what_was_read),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_damaged_archive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
