/* Shared by the fuzz targets: the libFuzzer entry point, a check that crashes loudly
 * (so libFuzzer, and the replay driver under ctest, both see a broken invariant as a
 * crash), and an in-memory file for the paths that need a descriptor. */
#ifndef LDX_FUZZ_H
#define LDX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "logdx/diagnose.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* A descriptor positioned at the start of data[0..len), for ldx_reader_open_fd (which
 * takes ownership of it). An anonymous memory file, so fuzzing does not touch the disk
 * and leaves nothing behind; -1 if it could not be made. */
int fuzz_memfd(const void *data, size_t len);

/* data gzip-compressed into a malloc'd buffer (*outlen bytes), or NULL. */
unsigned char *fuzz_gzip(const void *data, size_t len, size_t *outlen);

/* What gzip data[0..len) decodes to as far as it goes (a stream cut short decodes to a
 * prefix of its text), malloc'd (*outlen bytes), or NULL. */
unsigned char *fuzz_gunzip_prefix(const void *data, size_t len, size_t *outlen);

/* Prints the report in every format into memory, each twice (plain and coloured, full
 * and quiet), and checks what can be checked without a schema: the JSON and SARIF
 * documents parse, the JUnit XML holds no control bytes, no output holds a NUL. */
void fuzz_render(const ldx_file_report *fr);

/* FNV-1a: picks variants deterministically from the input, so a saved input replays
 * the same way. */
static inline uint64_t fuzz_hash(const uint8_t *data, size_t size)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

#endif
