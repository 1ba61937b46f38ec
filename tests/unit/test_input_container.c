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
#include "../../src/input/input_int.h"

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

/* buf[0..n) written to a pipe and read as standard input, to its end. */
static void read_pipe(const void *buf, size_t n, char *names, size_t cap, int *lines, bool *err)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], buf, n), (ssize_t)n);
    close(fds[1]);
    ldx_input *in;
    assert_int_equal(ldx_input_open_fd(&in, fds[0], "-"), LDX_OK);
    assert_int_equal(read_input(in, names, cap, lines, err), LDX_EOF);
    ldx_input_destroy(in);
}

static void test_pipe(void **state)
{
    (void)state;
    const char *m[] = {"x.log"};
    char *p = make_archive("p.tar.gz", ARCHIVE_FORMAT_TAR_USTAR, ARCHIVE_FILTER_GZIP, m, 1);
    FILE *f = fopen(p, "rb");
    char buf[65536];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n < 60000);
    char names[1024];
    int lines;
    bool err;
    read_pipe(buf, n, names, sizeof names, &lines, &err);
    assert_string_equal(names, "-:x.log");
    assert_int_equal(lines, 3);
    free(p);
}

/* The UTF-16 bytes of ASCII and BMP text and one astral character, in either order. */
static size_t utf16(unsigned char *out, bool big, bool bom)
{
    static const uint16_t units[] = {'o', 'k', 0x8bad, 0x7ec3, ' ', 0xd83d, 0xde80, '\r', '\n',
                                     'R', 'u', 'n', 't', 'i', 'm', 'e', 'E', 'r', 'r', 'o', 'r', '\n'};
    size_t n = 0;
    if (bom) {
        out[n++] = big ? 0xfe : 0xff;
        out[n++] = big ? 0xff : 0xfe;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        out[n++] = (unsigned char)(big ? units[i] >> 8 : units[i] & 0xff);
        out[n++] = (unsigned char)(big ? units[i] & 0xff : units[i] >> 8);
    }
    return n;
}

/* The one log of in holds utf16()'s two lines, as UTF-8. */
static void expect_utf16_lines(ldx_input *in)
{
    const char *want[] = {"ok\xe8\xae\xad\xe7\xbb\x83 \xf0\x9f\x9a\x80", "RuntimeError"};
    ldx_reader *r;
    assert_int_equal(ldx_input_next(in, &r), LDX_OK);
    ldx_line l;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
        assert_int_equal(l.len, strlen(want[i]));
        assert_memory_equal(l.text, want[i], l.len);
    }
    assert_int_equal(ldx_reader_next(r, &l), LDX_EOF);
}

/* Windows PowerShell's "> log" is UTF-16: read as UTF-8, from a file and from a pipe. */
static void test_utf16(void **state)
{
    (void)state;
    for (int big = 0; big < 2; big++) {
        unsigned char b[128];
        size_t n = utf16(b, big, true);
        char *p = path_in(big ? "be.log" : "le.log");
        FILE *f = fopen(p, "wb");
        fwrite(b, 1, n, f);
        fclose(f);
        ldx_input *in;
        assert_int_equal(ldx_input_open(&in, p), LDX_OK);
        assert_int_equal(ldx_input_kind_of(in), big ? LDX_KIND_UTF16BE : LDX_KIND_UTF16LE);
        expect_utf16_lines(in);
        ldx_input_destroy(in);
        free(p);
    }
    /* without its mark (mostly ASCII, as logs are), through a pipe */
    unsigned char b[256];
    const char *head = "Epoch 1/10: loss 2.31, lr 0.0003, grad_norm 1.02\r\n";
    size_t n = 0;
    for (const char *c = head; *c; c++) {
        b[n++] = (unsigned char)*c;
        b[n++] = 0;
    }
    n += utf16(b + n, false, false);
    char names[1024];
    int lines;
    bool err;
    read_pipe(b, n, names, sizeof names, &lines, &err);
    assert_false(err);
    assert_int_equal(lines, 3);
}

/* The same log compressed afterwards: gzip's bytes decoded, then the UTF-16 text in them. */
static void test_utf16_in_gzip(void **state)
{
    (void)state;
    unsigned char b[128];
    size_t n = utf16(b, false, true);
    char *p = path_in("win.log.gz");
    gzFile g = gzopen(p, "wb");
    gzwrite(g, b, (unsigned)n);
    gzclose(g);
    ldx_input *in;
    assert_int_equal(ldx_input_open(&in, p), LDX_OK);
    assert_int_equal(ldx_input_kind_of(in), LDX_KIND_GZIP);
    expect_utf16_lines(in);
    ldx_input_destroy(in);
    /* and through a pipe */
    FILE *f = fopen(p, "rb");
    unsigned char z[512];
    size_t zn = fread(z, 1, sizeof z, f);
    fclose(f);
    char names[1024];
    int lines;
    bool err;
    read_pipe(z, zn, names, sizeof names, &lines, &err);
    assert_false(err);
    assert_int_equal(lines, 2);
    free(p);
}

/* The converter hands over what fits, one byte at a time if it must, and ends a cut
 * character with U+FFFD. */
static void test_utf16_small_steps(void **state)
{
    (void)state;
    unsigned char b[128];
    size_t n = utf16(b, false, true);
    ldxi_utf16 u = {0};
    unsigned char out[256];
    size_t o = 0;
    for (size_t i = 0; i < n;) { /* one input byte and one output byte at a time */
        size_t ip = 0, cap = o + 1;
        ldxi_utf16_step(&u, b + i, 1, &ip, out, cap, &o, false);
        i += ip;
        if (!ip) assert_true(o == cap); /* no input taken: the output was full */
    }
    size_t ip = 0;
    ldxi_utf16_step(&u, b, 0, &ip, out, sizeof out, &o, true);
    const char *want = "ok\xe8\xae\xad\xe7\xbb\x83 \xf0\x9f\x9a\x80\r\nRuntimeError\n";
    assert_int_equal(o, strlen(want));
    assert_memory_equal(out, want, o);
    /* a lone high surrogate, then an odd byte at the end */
    ldxi_utf16 v = {0};
    const unsigned char cut[] = {0x3d, 0xd8, 'a', 0, 'b'};
    o = 0;
    ip = 0;
    ldxi_utf16_step(&v, cut, sizeof cut, &ip, out, sizeof out, &o, true);
    assert_int_equal(o, 7);
    assert_memory_equal(out, "\xef\xbf\xbd" "a" "\xef\xbf\xbd", 7);
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
        cmocka_unit_test(test_utf16),
        cmocka_unit_test(test_utf16_in_gzip),
        cmocka_unit_test(test_utf16_small_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
