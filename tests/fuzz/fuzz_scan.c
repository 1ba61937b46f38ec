/* Fuzz target: a whole diagnosis over arbitrary bytes (reader -> scanner with the
 * built-in rules -> diagnose -> every report format), the way the tool runs on a file.
 *
 * The input is read from memory, and then from a descriptor: as it is, where zlib
 * inflates it if it starts with the gzip magic bytes (so the seeds' .gz files mutate
 * into broken gzip streams), or gzip-compressed. Plain bytes must diagnose the same
 * however they arrive. */
#include <string.h>

#include "fuzz.h"
#include "logdx/logdx.h"

static ldx_ruleset *builtin;
static ldx_scanner *scanner;

static void setup(void)
{
    if (scanner) return;
    ldx_msgs *msgs;
    ldx_compiler *c;
    FUZZ_CHECK(ldx_msgs_create(&msgs) == LDX_OK);
    FUZZ_CHECK(ldx_compiler_create(&c, msgs) == LDX_OK);
    FUZZ_CHECK(ldx_compiler_add_builtin(c) == LDX_OK);
    FUZZ_CHECK(ldx_compiler_finish(c, &builtin) == LDX_OK);
    ldx_compiler_destroy(c);
    ldx_msgs_destroy(msgs);
    FUZZ_CHECK(ldx_scanner_create(&scanner, builtin) == LDX_OK);
    /* one scanner for the whole run, on purpose: reset must really reset */
}

static ldx_file_report *analyze(ldx_reader *r, ldx_status *st)
{
    ldx_file_report *fr = NULL;
    *st = ldx_analyze(scanner, r, &fr);
    FUZZ_CHECK(*st == LDX_OK || *st == LDX_EIO);
    FUZZ_CHECK(fr != NULL);
    FUZZ_CHECK(*st == LDX_OK || ldx_msgs_errors(fr->errors) > 0);
    for (size_t i = 0; i < fr->n; i++) {
        const ldx_diagnosis *d = &fr->diagnoses[i];
        FUZZ_CHECK(d->rule && d->rule->id);
        FUZZ_CHECK(d->confidence >= 0.0 && d->confidence <= 1.0);
        FUZZ_CHECK(d->line >= 1 && d->line <= fr->lines);
        FUZZ_CHECK(d->nevidence >= 1 && d->evidence);
        FUZZ_CHECK(d->role != LDX_ROLE_COLLATERAL || d->cause != NULL);
        for (size_t k = 0; k < d->nevidence; k++) {
            FUZZ_CHECK(d->evidence[k].text != NULL);
            FUZZ_CHECK(d->evidence[k].line >= 1 && d->evidence[k].line <= fr->lines);
        }
        if (i > 0) FUZZ_CHECK(fr->diagnoses[i - 1].score >= d->score); /* ranked */
    }
    return fr;
}

static void same(const ldx_file_report *a, const ldx_file_report *b)
{
    FUZZ_CHECK(a->lines == b->lines);
    FUZZ_CHECK(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        const ldx_diagnosis *x = &a->diagnoses[i], *y = &b->diagnoses[i];
        FUZZ_CHECK(x->rule == y->rule);
        FUZZ_CHECK(x->line == y->line && x->rank == y->rank && x->hits == y->hits);
        FUZZ_CHECK(x->role == y->role && x->confidence == y->confidence);
        FUZZ_CHECK(x->nevidence == y->nevidence);
        for (size_t k = 0; k < x->nevidence; k++)
            FUZZ_CHECK(strcmp(x->evidence[k].text, y->evidence[k].text) == 0);
    }
}

static ldx_file_report *via_fd(const void *data, size_t len, ldx_status *st)
{
    int fd = fuzz_memfd(data, len);
    if (fd < 0) return NULL;
    ldx_reader *r;
    if (ldx_reader_open_fd(&r, fd, "fd.log") != LDX_OK) return NULL;
    ldx_file_report *fr = analyze(r, st);
    ldx_reader_destroy(r);
    return fr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    ldx_reader *r;
    ldx_status st;
    FUZZ_CHECK(ldx_reader_open_mem(&r, (const char *)data, size, "mem.log") == LDX_OK);
    ldx_file_report *mem = analyze(r, &st);
    FUZZ_CHECK(st == LDX_OK);
    ldx_reader_destroy(r);
    fuzz_render(mem);

    /* The descriptor paths cost most; each input takes one of them (the variant is
     * chosen from its content, so a saved input replays the same way). */
    /* anything the reader decodes (gzip, zstd, xz, bzip2, zip, tar: its own detection
     * says) cannot diagnose like its raw bytes read from memory */
    int gzip = ldx_input_detect(data, size) != LDX_KIND_PLAIN;
    uint64_t h = fuzz_hash(data, size);
    if (gzip || h % 4 == 0) {
        ldx_file_report *fd = via_fd(data, size, &st);
        if (fd && gzip)
            fuzz_render(fd); /* whatever it inflated to, or the error it hit */
        else if (fd)
            same(mem, fd);
        ldx_file_report_destroy(fd);
    } else if (h % 4 == 1) {
        size_t zlen;
        unsigned char *z = fuzz_gzip(data, size, &zlen);
        ldx_file_report *gz = z ? via_fd(z, zlen, &st) : NULL;
        if (gz) {
            FUZZ_CHECK(st == LDX_OK);
            same(mem, gz);
            ldx_file_report_destroy(gz);
        }
        free(z);
    }
    ldx_file_report_destroy(mem);
    return 0;
}
