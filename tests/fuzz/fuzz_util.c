/* Helpers for the fuzz targets (see fuzz.h). */
#define _GNU_SOURCE
#include "fuzz.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "logdx/report.h"

int fuzz_memfd(const void *data, size_t len)
{
    int fd = memfd_create("logdx-fuzz", MFD_CLOEXEC);
    if (fd < 0) return -1;
    const char *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

unsigned char *fuzz_gzip(const void *data, size_t len, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* 15 + 16: a gzip header and trailer, as gzip(1) writes them */
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    uLong cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap ? cap : 1);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    *outlen = z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

unsigned char *fuzz_gunzip_prefix(const void *data, size_t len, size_t *outlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    *outlen = 0;
    if (inflateInit2(&z, 15 + 16) != Z_OK) return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *out = malloc(cap);
    if (!out) {
        inflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    for (;;) {
        if (n == cap) {
            unsigned char *grown = realloc(out, cap * 2);
            if (!grown) break;
            out = grown;
            cap *= 2;
        }
        z.next_out = out + n;
        z.avail_out = (uInt)(cap - n);
        int rc = inflate(&z, Z_SYNC_FLUSH);
        n = cap - z.avail_out;
        if (rc != Z_OK || (z.avail_in == 0 && z.avail_out > 0)) break;
    }
    inflateEnd(&z);
    *outlen = n;
    return out;
}

void fuzz_render(const ldx_file_report *fr)
{
    ldx_msgs *none;
    FUZZ_CHECK(ldx_msgs_create(&none) == LDX_OK);
    for (const char *const *f = ldx_report_formats(); *f; f++) {
        for (int variant = 0; variant < 2; variant++) {
            char *out = NULL;
            size_t len = 0;
            FILE *fp = open_memstream(&out, &len);
            FUZZ_CHECK(fp != NULL);
            ldx_report_opts o = {.color = variant, .quiet = variant, .fail_on = LDX_SEV_LOW,
                                 .width = variant ? 40 : 0};
            ldx_report *r;
            FUZZ_CHECK(ldx_report_create(&r, *f, &o, fp) == LDX_OK);
            FUZZ_CHECK(ldx_report_file(r, fr) == LDX_OK);
            FUZZ_CHECK(ldx_report_finish(r, none) == LDX_OK);
            ldx_report_destroy(r);
            FUZZ_CHECK(fclose(fp) == 0);
            FUZZ_CHECK(strlen(out) == len); /* no NUL byte gets into a report */
            if (strcmp(*f, "json") == 0 || strcmp(*f, "sarif") == 0) {
                cJSON *doc = cJSON_ParseWithLength(out, len);
                if (!doc) fprintf(stderr, "invalid JSON report:\n%s\n", out);
                FUZZ_CHECK(doc != NULL);
                cJSON_Delete(doc);
            }
            if (strcmp(*f, "junit") == 0) /* XML 1.0 allows no other control bytes */
                for (size_t i = 0; i < len; i++)
                    FUZZ_CHECK((unsigned char)out[i] >= 0x20 || out[i] == '\t' ||
                               out[i] == '\n' || out[i] == '\r');
            free(out);
        }
    }
    ldx_msgs_destroy(none);
}
