/* The line reader: line ends, long lines, NULs, gzip, truncated gzip, hard-wrapped pastes,
 * indented pastes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "test_util.h"
#include "logdx/input.h"
#include "../../src/input/input_int.h"
#include "../../src/plumbing.h"

typedef struct {
    char *text[16];
    size_t len[16];
    uint64_t lineno[16];
    int n;
} lines;

static ldx_status read_all(ldx_reader *r, lines *out)
{
    ldx_line l;
    ldx_status st;
    out->n = 0;
    while ((st = ldx_reader_next(r, &l)) == LDX_OK) {
        if (out->n < 16) {
            out->text[out->n] = malloc(l.len + 1);
            memcpy(out->text[out->n], l.text, l.len);
            out->text[out->n][l.len] = 0;
            out->len[out->n] = l.len;
            out->lineno[out->n] = l.lineno;
        }
        out->n++;
    }
    return st;
}

static void free_lines(lines *ls)
{
    for (int i = 0; i < ls->n && i < 16; i++) free(ls->text[i]);
}

static void mem_lines(const char *data, size_t len, lines *out)
{
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, data, len, "mem"), LDX_OK);
    assert_int_equal(read_all(r, out), LDX_EOF);
    ldx_reader_destroy(r);
}

static void test_line_ends(void **state)
{
    (void)state;
    lines ls;
    const char d[] = "a\nb\r\nc\rd";
    mem_lines(d, sizeof d - 1, &ls);
    assert_int_equal(ls.n, 4);
    assert_string_equal(ls.text[0], "a");
    assert_string_equal(ls.text[1], "b");
    assert_string_equal(ls.text[2], "c");
    assert_string_equal(ls.text[3], "d");
    assert_int_equal(ls.lineno[3], 4);
    free_lines(&ls);
}

static void test_trailing_newline_and_empty(void **state)
{
    (void)state;
    lines ls;
    mem_lines("x\n\ny\n", 5, &ls);
    assert_int_equal(ls.n, 3);
    assert_string_equal(ls.text[1], "");
    free_lines(&ls);
    mem_lines("", 0, &ls);
    assert_int_equal(ls.n, 0);
}

static void test_tqdm_bar(void **state)
{
    (void)state;
    lines ls;
    const char d[] = " 10%|#  | 1/10\r 20%|## | 2/10\r\nloss 1.0\n";
    mem_lines(d, sizeof d - 1, &ls);
    assert_int_equal(ls.n, 3);
    assert_string_equal(ls.text[1], " 20%|## | 2/10");
    assert_string_equal(ls.text[2], "loss 1.0");
    free_lines(&ls);
}

static void test_nul_bytes(void **state)
{
    (void)state;
    lines ls;
    const char d[] = "a\0b\nc";
    mem_lines(d, sizeof d - 1, &ls);
    assert_int_equal(ls.n, 2);
    assert_int_equal(ls.len[0], 3);
    free_lines(&ls);
}

/* Writes data to a temporary file and returns its path (static buffer). */
static const char *tmpfile_with(const void *data, size_t len)
{
    static char path[64];
    strcpy(path, "/tmp/ldx-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
    return path;
}

static void test_long_line_and_crlf_across_blocks(void **state)
{
    (void)state;
    /* a 3 MiB line, then a CRLF that falls on the reader's block boundary */
    size_t big = 3u << 20;
    size_t total = big + 64;
    char *d = malloc(total);
    memset(d, 'x', big);
    size_t o = big;
    memcpy(d + o, "\nshort\r\nend\n", 12);
    o += 12;
    const char *path = tmpfile_with(d, o);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_path(&r, path), LDX_OK);
    ldx_line l;
    assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
    assert_true(l.truncated);
    assert_int_equal(l.len, LDX_LINE_MAX);
    assert_int_equal(l.full_len, big);
    assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
    assert_int_equal(l.len, 5);
    assert_memory_equal(l.text, "short", 5);
    assert_int_equal(l.lineno, 2);
    assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
    assert_memory_equal(l.text, "end", 3);
    assert_int_equal(ldx_reader_next(r, &l), LDX_EOF);
    ldx_reader_destroy(r);
    unlink(path);
    free(d);

    /* "\r" as the last byte of a block, "\n" as the first of the next */
    size_t n = 256u * 1024u;
    d = malloc(n + 8);
    memset(d, 'y', n - 1);
    d[n - 1] = '\r';
    memcpy(d + n, "\nz\n", 3);
    path = tmpfile_with(d, n + 3);
    assert_int_equal(ldx_reader_open_path(&r, path), LDX_OK);
    lines ls;
    assert_int_equal(read_all(r, &ls), LDX_EOF);
    assert_int_equal(ls.n, 2);
    assert_string_equal(ls.text[1], "z");
    free_lines(&ls);
    ldx_reader_destroy(r);
    unlink(path);
    free(d);
}

static void test_gzip_and_truncated_gzip(void **state)
{
    (void)state;
    const char text[] = "line one\nline two\nCUDA out of memory\n";
    char gzpath[] = "/tmp/ldx-test-gz-XXXXXX";
    int fd = mkstemp(gzpath);
    gzFile g = gzdopen(fd, "wb");
    gzwrite(g, text, sizeof text - 1);
    gzclose(g);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_path(&r, gzpath), LDX_OK);
    lines ls;
    assert_int_equal(read_all(r, &ls), LDX_EOF);
    assert_int_equal(ls.n, 3);
    assert_string_equal(ls.text[2], "CUDA out of memory");
    free_lines(&ls);
    ldx_reader_destroy(r);

    /* cut the compressed file in half: the reader reports an error, never crashes */
    FILE *f = fopen(gzpath, "rb");
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *cut = tmpfile_with(buf, n / 2 + 5);
    assert_int_equal(ldx_reader_open_path(&r, cut), LDX_OK);
    assert_int_equal(read_all(r, &ls), LDX_EIO);
    assert_non_null(ldx_reader_error(r));
    free_lines(&ls);
    ldx_reader_destroy(r);
    unlink(cut);
    unlink(gzpath);
}

/* The contract's line ends, the slow way: "\n", "\r" or "\r\n" each end one line; a
 * last line without an end is a line. Each line's length goes to lens (up to cap);
 * returns how many lines there are. */
static size_t reference_lines(const char *d, size_t n, size_t *lens, size_t cap)
{
    size_t k = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] != '\n' && d[i] != '\r') continue;
        if (k < cap) lens[k] = i - start;
        k++;
        if (d[i] == '\r' && i + 1 < n && d[i + 1] == '\n') i++;
        start = i + 1;
    }
    if (start < n) {
        if (k < cap) lens[k] = n - start;
        k++;
    }
    return k;
}

/* Random mixes of short lines, "\r", "\n" and "\r\n", long runs without an end and
 * ends on both sides of the 64-byte and 256 KiB boundaries where the reader looks for
 * them: the reader cuts the lines the reference does, from memory and from a file, and
 * its chunks of whole lines (ldxi_reader_chunk) hold and number the same lines. */
static void test_line_ends_random(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252ull;
    size_t nplaced = 0; /* chunks read in place, over all rounds */
    for (int round = 0; round < 24; round++) {
        size_t n = round < 12 ? 3000 + (size_t)round * 977 : (600u << 10) + (size_t)round * 4099;
        char *d = malloc(n);
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            unsigned v = (unsigned)(x % 1000);
            /* ends dense in some rounds, sparse (lines over 64 bytes) in others */
            unsigned dense = round % 3 == 0 ? 300 : round % 3 == 1 ? 40 : 4;
            d[i] = v < dense / 2 ? '\n' : v < dense ? '\r' : (char)('a' + v % 26);
        }
        size_t cap = n + 1, *want = malloc(cap * sizeof(size_t));
        size_t nwant = reference_lines(d, n, want, cap);
        const char *path = tmpfile_with(d, n);
        /* from memory, from a file, and from a file in chunks of whole lines taken in
         * turn with single lines (as the scanner's batches take them), and the same with
         * chunks read in place into rooms of any size (ldxi_reader_chunk_into: a room
         * smaller than a line, a read that cuts a "\r\n") */
        size_t *got = malloc(cap * sizeof(size_t));
        char *room = malloc(LDXI_CHUNK_MAX);
        for (int src = 0; src < 4; src++) {
            ldx_reader *r;
            if (src == 0) assert_int_equal(ldx_reader_open_mem(&r, d, n, "mem"), LDX_OK);
            else assert_int_equal(ldx_reader_open_path(&r, path), LDX_OK);
            ldx_line l;
            ldxi_chunk c;
            size_t k = 0;
            for (;;) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                bool placed = src == 3 && x % 4 &&
                              ldxi_reader_chunk_into(r, room, 2 + (size_t)(x >> 8) % (LDXI_CHUNK_MAX - 1), &c);
                if (placed) {
                    assert_ptr_equal(c.text, room);
                    nplaced++;
                }
                if (placed || (src >= 2 && x % 3 && ldxi_reader_chunk(r, 1 + (size_t)(x >> 8) % 300000, &c))) {
                    assert_true(c.len > 0 && (c.text[c.len - 1] == '\n' || c.text[c.len - 1] == '\r'));
                    size_t m = reference_lines(c.text, c.len, got, cap);
                    if (c.first_line != k + 1 || c.lines != m)
                        fail_msg("round %d: chunk from line %llu of %llu lines, want line %zu, %zu lines",
                                 round, (unsigned long long)c.first_line, (unsigned long long)c.lines, k + 1, m);
                    for (size_t j = 0; j < m; j++, k++)
                        if (k >= nwant || got[j] != want[k])
                            fail_msg("round %d, chunks: line %zu has %zu bytes, want %zu", round, k + 1,
                                     got[j], k < nwant ? want[k] : 0);
                    continue;
                }
                if (ldx_reader_next(r, &l) != LDX_OK) break;
                if (k >= nwant || l.len != want[k] || l.lineno != k + 1)
                    fail_msg("round %d, %s: line %zu has %zu bytes, want %zu of %zu lines", round,
                             src == 3 ? "chunks in place" : src == 2 ? "chunks" : src ? "file" : "memory", k + 1, l.len,
                             k < nwant ? want[k] : 0, nwant);
                k++;
            }
            assert_int_equal(k, nwant);
            ldx_reader_destroy(r);
        }
        free(got);
        free(room);
        unlink(path);
        free(want);
        free(d);
    }
    assert_true(nplaced > 24);
}

/* Reads in place that cut a line, and one that cuts a "\r\n" between its two bytes. */
static void test_chunk_into_cuts(void **state)
{
    (void)state;
    const char *path = tmpfile_with("ab\ncdef\ngh\r\nij\n", 15);
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_path(&r, path), LDX_OK);
    ldx_reader_keep_wraps(r); /* else the first read is the reader's, to look for a cut paste */
    char room[64];
    ldxi_chunk c;
    ldx_line l;
    /* "ab\nc": one line; "c" stays with the reader and starts the next read */
    assert_true(ldxi_reader_chunk_into(r, room, 4, &c));
    assert_true(c.len == 3 && c.lines == 1 && c.first_line == 1);
    /* "cdef\ngh\r": two lines, the read ends between "\r" and "\n" */
    assert_true(ldxi_reader_chunk_into(r, room, 8, &c));
    assert_true(c.len == 8 && c.lines == 2 && c.first_line == 2 && !memcmp(c.text, "cdef\ngh\r", 8));
    /* the "\n" that follows is that line's, not a line of its own */
    size_t k = 4;
    while (ldxi_reader_chunk_into(r, room, sizeof room, &c) || ldxi_reader_chunk(r, 64, &c)) {
        assert_int_equal(c.first_line, k);
        k += c.lines;
    }
    while (ldx_reader_next(r, &l) == LDX_OK) {
        assert_int_equal(l.lineno, k);
        k++;
    }
    assert_int_equal(k, 5); /* ab, cdef, gh, ij */
    ldx_reader_destroy(r);
    unlink(path);
}

/* Hard-wrapped pastes (unwrap.c): text whose long lines were cut into rows of one width
 * is read with the rows joined, each joined line numbered by its first row. */
static const char *const wrapped_src[] = {
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.10 GiB of which 1.2",
    "step 120",
    "NCCL WARN Net : Connection closed by remote peer node-17.cluster<41236> after the watchdog timed out on rank 5 of 16",
    "",
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    "Killed",
};

/* wrapped_src cut at width w into buf (rows end in "\n"); the count of rows */
static size_t cut_rows(char *buf, size_t cap, size_t w, uint64_t *first_row)
{
    size_t o = 0, rows = 0;
    for (size_t i = 0; i < sizeof wrapped_src / sizeof *wrapped_src; i++) {
        const char *p = wrapped_src[i];
        size_t n = strlen(p);
        first_row[i] = rows + 1;
        do {
            size_t k = n > w ? w : n;
            assert_true(o + k + 1 < cap);
            memcpy(buf + o, p, k);
            o += k;
            buf[o++] = '\n';
            rows++;
            p += k;
            n -= k;
        } while (n);
    }
    buf[o] = 0;
    return rows;
}

/* data[0..n) read from memory (rows as they are when keep): its lines in *ls, and the
 * width the reader joined rows at (0: none) */
static size_t unwrapped_lines(const char *data, size_t n, bool keep, lines *ls)
{
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, data, n, "mem"), LDX_OK);
    if (keep) ldx_reader_keep_wraps(r);
    assert_int_equal(read_all(r, ls), LDX_EOF);
    size_t width = ldx_reader_unwrapped(r, NULL);
    ldx_reader_destroy(r);
    return width;
}

/* text read from memory (way 0) or from a file (way 1, its path in *path to unlink): a file's
 * first read is the reader's, and when it finds a paste to mend (a cut, an indent) the chunk
 * paths step aside, so no chunks are given */
static ldx_reader *open_paste(int way, const char *text, const char **path)
{
    ldx_reader *r;
    *path = NULL;
    if (way == 0) {
        assert_int_equal(ldx_reader_open_mem(&r, text, strlen(text), "mem"), LDX_OK);
        return r;
    }
    *path = tmpfile_with(text, strlen(text));
    assert_int_equal(ldx_reader_open_path(&r, *path), LDX_OK);
    char room[4096];
    ldxi_chunk c;
    assert_false(ldxi_reader_chunk_into(r, room, sizeof room, &c));
    assert_false(ldxi_reader_chunk_into(r, room, sizeof room, &c));
    assert_false(ldxi_reader_chunk(r, 4096, &c));
    return r;
}

static void test_unwrap_paste(void **state)
{
    (void)state;
    char buf[2048];
    uint64_t first[8];
    cut_rows(buf, sizeof buf, 60, first);
    for (int way = 0; way < 2; way++) {
        /* from memory, and from a file where the chunk paths must step aside */
        const char *path;
        ldx_reader *r = open_paste(way, buf, &path);
        lines ls;
        assert_int_equal(read_all(r, &ls), LDX_EOF);
        assert_int_equal(ls.n, 6);
        for (int i = 0; i < 6; i++) {
            assert_string_equal(ls.text[i], wrapped_src[i]);
            assert_int_equal(ls.lineno[i], first[i]);
        }
        uint64_t joins;
        assert_int_equal(ldx_reader_unwrapped(r, &joins), 60);
        assert_int_equal(joins, 2 + 1 + 1); /* rows of 133, 116 and 108 bytes */
        free_lines(&ls);
        ldx_reader_destroy(r);
        if (path) unlink(path);
    }
    /* asked to keep rows as they are */
    lines ls;
    assert_int_equal(unwrapped_lines(buf, strlen(buf), true, &ls), 0);
    assert_int_equal(ls.n, 10);
    free_lines(&ls);
}

/* text read as it is: no width to join rows at, one line per line end */
static void expect_rows_kept(const char *text)
{
    size_t n = strlen(text);
    lines ls;
    assert_int_equal(unwrapped_lines(text, n, false, &ls), 0);
    assert_int_equal((uint64_t)ls.n, ldxi_eol_count(text, n));
    free_lines(&ls);
}

/* Eight replicas print one long error and a terminal cuts each at the same place: the rows
 * at the width are all of one template, but each ends inside a word its next row goes on. */
static void test_unwrap_one_template(void **state)
{
    (void)state;
    char buf[4096];
    size_t o = 0;
    for (int d = 0; d < 4; d++)
        o += (size_t)snprintf(buf + o, sizeof buf - o,
                              "2023-04-06 07:42:51.27825%d: E pjrt_client.cc:2153] Execution of "
                              "replica 0 failed: RE\n"
                              "SOURCE_EXHAUSTED: Failed to allocate 625.00MiB on device ordinal %d\n",
                              d, d);
    lines ls;
    size_t w = unwrapped_lines(buf, o, false, &ls);
    assert_int_equal(w, strcspn(buf, "\n"));
    assert_int_equal(ls.n, 4);
    assert_non_null(strstr(ls.text[2], "failed: RESOURCE_EXHAUSTED: Failed"));
    free_lines(&ls);
    /* the same records whole, each followed by a line of its own that starts as a record
     * does, or with a blank: read as they are */
    const char *const whole[] = {
        "2023-04-06 07:42:51.278251: E pjrt_client.cc:2153] Execution of replica 0 failed\n"
        "2023-04-06 07:42:51.278252: I pjrt_client.cc:2160] Retrying with smaller batch\n"
        "2023-04-06 07:42:51.278253: E pjrt_client.cc:2153] Execution of replica 1 failed\n"
        "2023-04-06 07:42:51.278254: I pjrt_client.cc:2160] Retrying with smaller batch\n"
        "2023-04-06 07:42:51.278255: E pjrt_client.cc:2153] Execution of replica 2 failed\n"
        "2023-04-06 07:42:51.278256: I pjrt_client.cc:2160] Retrying with smaller batch\n",
        "[rank0]: RuntimeError: NCCL communicator was aborted on rank 0 by the watchdog\n"
        "  frame #0: c10::Error::Error\n"
        "[rank1]: RuntimeError: NCCL communicator was aborted on rank 1 by the watchdog\n"
        "  frame #0: c10::Error::Error\n"
        "[rank2]: RuntimeError: NCCL communicator was aborted on rank 2 by the watchdog\n"
        "  frame #0: c10::Error::Error\n",
    };
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) expect_rows_kept(whole[i]);
}

/* Logs that merely have a widest line are read as they are: rows of one template at the
 * widest (numbers right-aligned), progress bars padded to the terminal and redrawn with
 * "\r", tables (padded with blanks, drawn with borders, aligned columns), fewer than
 * three rows at the widest. */
static void test_unwrap_not_fooled(void **state)
{
    (void)state;
    const char *const cases[] = {
        "Train: 0 [   0/2502 (  0%)]  Loss: 6.91 (6.91)  Time: 0.415s  LR: 1.000e-03\n"
        "Train: 0 [  50/2502 (  2%)]  Loss: 6.91 (6.91)  Time: 0.415s  LR: 1.000e-03\n"
        "Train: 0 [ 100/2502 (  4%)]  Loss: 6.91 (6.91)  Time: 0.415s  LR: 1.000e-03\n"
        "Train: 0 [ 150/2502 (  6%)]  Loss: 6.91 (6.91)  Time: 0.415s  LR: 1.000e-03\n",
        "epoch 1 loss 0.52\n"
        "Epoch 1: 100%|##########| 45/45 [00:10<00:00, 4.41it/s, loss=0.52, v_num=3]\r"
        "Epoch 2:  10%|#         | 5/45 [00:01<00:09, 4.40it/s, loss=0.50, v_num=3]\r"
        "Epoch 2:  20%|##        | 9/45 [00:02<00:08, 4.40it/s, loss=0.49, v_num=3]\n"
        "Epoch 2: 100%|##########| 45/45 [00:10<00:00, 4.41it/s, loss=0.47, v_num=3]\n"
        "epoch 2 loss 0.47\n",
        "Layer (type)                    Output Shape              Param #          \n"
        "conv2d_1 (Conv2D)               (None, 62, 62, 32)        896              \n"
        "max_pooling2d_1 (MaxPooling2D)  (None, 31, 31, 32)        0                \n"
        "flatten_1 (Flatten)             (None, 30752)             0                \n",
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 387.26                 Driver Version: 387.26                    |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|===============================+======================+======================|\n",
        "***** train metrics *****\n"
        "(worker1, rank=1, pid=15406, ip=10.164.0.57)   epoch                    =         2.5\n"
        "(worker1, rank=1, pid=15406, ip=10.164.0.57)   total_flos               = 219870840GF\n"
        "(worker1, rank=1, pid=15406, ip=10.164.0.57)   train_loss               =     10.1527\n"
        "(worker1, rank=1, pid=15406, ip=10.164.0.57)   train_runtime            =  0:11:15.08\n",
        "RuntimeError: CUDA error: an illegal memory access was encountered at step 10\n"
        "next line\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions, and more\n"
        "last line\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) expect_rows_kept(cases[i]);
}

/* A line wider than the cut after it says the text is not cut there: no more joins. */
static void test_unwrap_stops_at_wider_line(void **state)
{
    (void)state;
    char buf[4096];
    uint64_t first[8];
    size_t rows = cut_rows(buf, sizeof buf, 60, first);
    size_t o = strlen(buf);
    const char *tail = "a line much wider than the cut the first rows were made at, so the text is not cut at sixty\n"
                       "012345678901234567890123456789012345678901234567890123456789\n"
                       "not joined\n";
    memcpy(buf + o, tail, strlen(tail) + 1);
    /* the probe sees the wider line too: the paste is not read as cut at all */
    lines ls;
    assert_int_equal(unwrapped_lines(buf, strlen(buf), false, &ls), 0);
    assert_int_equal((uint64_t)ls.n, rows + 3);
    free_lines(&ls);
}

/* Indented pastes (dedent.c): a notebook's output exported four spaces in, a log indented
 * as a markdown code block, read with the indent off each line and the line numbers kept;
 * from a file the chunk paths step aside, as for a cut paste. */
static void test_dedent_paste(void **state)
{
    (void)state;
    static const char nbconvert[] =
        "    ---------------------------------------------------------------------------\n"
        "\n"
        "    KeyboardInterrupt                         Traceback (most recent call last)\n"
        "      File ~/lib/python3.10/selectors.py:416, in _PollLikeSelector.select(self)\n"
        "    --> 416     fd_event_list = self._selector.poll(timeout)\n"
        "    KeyboardInterrupt: ";
    for (int way = 0; way < 2; way++) {
        const char *path;
        ldx_reader *r = open_paste(way, nbconvert, &path);
        lines ls;
        assert_int_equal(read_all(r, &ls), LDX_EOF);
        assert_int_equal(ls.n, 6);
        assert_string_equal(ls.text[1], "");
        assert_string_equal(ls.text[2], "KeyboardInterrupt                         Traceback (most recent call last)");
        assert_string_equal(ls.text[3], "  File ~/lib/python3.10/selectors.py:416, in _PollLikeSelector.select(self)");
        assert_string_equal(ls.text[5], "KeyboardInterrupt: ");
        assert_int_equal(ls.lineno[5], 6);
        free_lines(&ls);
        ldx_reader_destroy(r);
        if (path) unlink(path);
    }
    lines ls;
    static const char markdown[] = "  [rank3]: Traceback (most recent call last):\n\n"
                                   "  [rank3]:   File \"train.py\", line 9, in <module>\n"
                                   "  [rank3]: RuntimeError: boom\n";
    mem_lines(markdown, strlen(markdown), &ls);
    assert_int_equal(ls.n, 4);
    assert_string_equal(ls.text[0], "[rank3]: Traceback (most recent call last):");
    assert_string_equal(ls.text[1], "");
    assert_string_equal(ls.text[3], "[rank3]: RuntimeError: boom");
    free_lines(&ls);
    /* asked to keep rows as they are */
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, markdown, strlen(markdown), "mem"), LDX_OK);
    ldx_reader_keep_wraps(r);
    assert_int_equal(read_all(r, &ls), LDX_EOF);
    assert_string_equal(ls.text[3], "  [rank3]: RuntimeError: boom");
    free_lines(&ls);
    ldx_reader_destroy(r);
}

/* Text whose lines merely start alike is read as it is: a traceback with its header at the
 * margin, fewer than three lines, one line at the margin among indented ones, tab
 * indentation, a redrawn bar; and a line without the whole indent stays whole. */
static void test_dedent_not_fooled(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\n"
        "RuntimeError: x\n",
        "  10%|#         | 1/10\r  20%|##        | 2/10\r\n  step 1\n  step 2\n",
        "    step 1 loss 2.0\n    step 2 loss 1.9\n",
        "    step 1 loss 2.0\n    step 2 loss 1.9\nstep 3 loss 1.8\n    step 4 loss 1.7\n",
        "\tstep 1\n\tstep 2\n\tstep 3\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        lines ls;
        mem_lines(cases[i], strlen(cases[i]), &ls);
        size_t first = strcspn(cases[i], "\r\n");
        assert_int_equal(ls.len[0], first);
        free_lines(&ls);
    }
    assert_int_equal(ldxi_paste_indent("  a\n    b\n   c\n", 15), 2);
    assert_int_equal(ldxi_paste_indent("    a\n\n    b\n    c", 18), 4); /* the last line cut */
    assert_int_equal(ldxi_indent_strip(4, "  x", 3), 0);
    assert_int_equal(ldxi_indent_strip(4, "      x", 7), 4);
}

/* The detector's own cases: width counted in code points, a redrawn bar, a row's length. */
static void test_wrap_width(void **state)
{
    (void)state;
    assert_int_equal(ldxi_text_width("caf\xc3\xa9 \xe2\x96\x88", 7 + 3 - 2), 6);
    assert_false(ldxi_wrap_row("a\tb", 3));
    assert_false(ldxi_wrap_row(" 45%|####5     | 450/1000", 25));
    assert_true(ldxi_wrap_row("CUDA out of memory. Tried to ", 29));
    char buf[2048];
    uint64_t first[8];
    cut_rows(buf, sizeof buf, 55, first);
    assert_int_equal(ldxi_wrap_width(buf, strlen(buf)), 55);
    /* a lone "\r" anywhere: a terminal's redraw, not a paste */
    size_t n = strlen(buf);
    strstr(buf, "step 120\n")[8] = '\r';
    assert_int_equal(ldxi_wrap_width(buf, n), 0);
}

/* The line ends a chunk counts: each way of counting (a byte at a time, SSE2, AVX2 and
 * AVX-512BW where the CPU has them) gives the byte-at-a-time count, on text dense in "\r", "\n"
 * and "\r\n" at every alignment and across the steps' boundaries. */
static void test_eol_counts(void **state)
{
    (void)state;
    static char text[4096];
    unsigned seed = 7;
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(round * 37 % 4000) + 1;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) % 8;
            text[i] = r == 0 ? '\r' : r == 1 ? '\n' : (char)('a' + r);
        }
        for (size_t off = 0; off < 3 && off < n; off++) {
            uint64_t want = 0;
            for (size_t i = off; i < n; i++)
                want += text[i] == '\r' || (text[i] == '\n' && (i == off || text[i - 1] != '\r'));
            for (int isa = 0; isa <= 3; isa++)
                if (ldxi_eol_count_isa(text + off, n - off, isa) != want)
                    fail_msg("round %d offset %zu isa %d: %llu, want %llu", round, off, isa,
                             (unsigned long long)ldxi_eol_count_isa(text + off, n - off, isa),
                             (unsigned long long)want);
        }
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_path(&r, "/nonexistent/x.log"), LDX_ENOTFOUND);
}

/* Lines say when they surely hold no ESC, so that the scanner skips looking. */
static void test_no_esc(void **state)
{
    (void)state;
    const char *text = "plain\n\x1b[31mred\x1b[0m\rafter\nlast";
    ldx_reader *r;
    assert_int_equal(ldx_reader_open_mem(&r, text, strlen(text), "t"), LDX_OK);
    ldx_line l;
    bool want[] = {true, false, true};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
        assert_int_equal(l.no_esc, want[i]);
    }
    /* the last line, without a line end, is pieced together: not looked at */
    assert_int_equal(ldx_reader_next(r, &l), LDX_OK);
    assert_false(l.no_esc);
    assert_int_equal(ldx_reader_next(r, &l), LDX_EOF);
    ldx_reader_destroy(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_esc),
        cmocka_unit_test(test_line_ends),
        cmocka_unit_test(test_trailing_newline_and_empty),
        cmocka_unit_test(test_tqdm_bar),
        cmocka_unit_test(test_nul_bytes),
        cmocka_unit_test(test_long_line_and_crlf_across_blocks),
        cmocka_unit_test(test_line_ends_random),
        cmocka_unit_test(test_gzip_and_truncated_gzip),
        cmocka_unit_test(test_eol_counts),
        cmocka_unit_test(test_chunk_into_cuts),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_unwrap_paste),
        cmocka_unit_test(test_unwrap_not_fooled),
        cmocka_unit_test(test_unwrap_stops_at_wider_line),
        cmocka_unit_test(test_wrap_width),
        cmocka_unit_test(test_unwrap_one_template),
        cmocka_unit_test(test_dedent_paste),
        cmocka_unit_test(test_dedent_not_fooled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
