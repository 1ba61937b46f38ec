/* Software versions from banner lines (torch, CUDA, driver, NCCL, DeepSpeed, ...), so
 * that a rule's advice can depend on them ("your DeepSpeed 0.12.6 predates the fix").
 * The first version seen of each component wins: banners come first, and a later
 * "pip install x==y" line in the same log should not override what actually ran. */
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "scan_int.h"

/* A version read as "NAME==1.2.3", "NAME version: 1.2.3", "NAME: 1.2.3", "NAME 1.2.3". */
#define TAIL "(?:`)?(?:\\s*==\\s*|\\s+version\\s*[:=]?\\s*|\\s*:\\s*|\\s+v?)(\\d+\\.\\d+(?:\\.\\d+)?)(?![\\d.]*\\s*(?:GiB|GB|MiB|MB|s\\b|%))"

static const struct {
    int component;
    const char *keyword; /* cheap test before the pattern */
    const char *pattern; /* group 1 is the version */
} sources[] = {
    {0, "orch", "(?i)\\b(?:py)?torch" TAIL},
    {1, "CUDA", "(?i)\\bCUDA(?:\\s+runtime)?\\s+version\\s*[:=]?\\s*(\\d+\\.\\d+)"},
    {1, "release", "Cuda compilation tools, release (\\d+\\.\\d+)"},
    {2, "Driver", "Driver Version:?\\s*(\\d+\\.\\d+(?:\\.\\d+)?)"},
    {3, "NCCL version", "NCCL version (\\d+\\.\\d+\\.\\d+)"},
    {4, "version=", "DeepSpeed info: version=(\\d+\\.\\d+\\.\\d+)"},
    {4, "eep", "(?i)\\bdeepspeed" TAIL},
    {5, "ransformers", "(?i)\\btransformers" TAIL},
    {6, "ccelerate", "(?i)\\baccelerate" TAIL},
    {7, "ightning", "(?i)\\b(?:pytorch[-_])?lightning" TAIL},
    {8, "LLM", "(?i)\\bvllm" TAIL},
    {8, "engine (v", "LLM engine \\(v(\\d+\\.\\d+(?:\\.\\d+)?)"},
    {9, "jax", "\\bjax(?:lib)?" TAIL},
    {10, "egatron", "(?i)\\bmegatron[-_]core" TAIL},
    {11, "peft", "(?i)\\bpeft" TAIL},
};
#define NSOURCES (sizeof sources / sizeof sources[0])

static pcre2_code *codes[NSOURCES];
static size_t keylens[NSOURCES];
static bool blind[NSOURCES]; /* the pattern cannot tell one digit from another */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void compile(void)
{
    for (size_t i = 0; i < NSOURCES; i++) {
        int err;
        PCRE2_SIZE off;
        codes[i] = pcre2_compile((PCRE2_SPTR)sources[i].pattern, PCRE2_ZERO_TERMINATED, 0,
                                 &err, &off, NULL);
        if (codes[i]) pcre2_jit_compile(codes[i], PCRE2_JIT_COMPLETE);
        keylens[i] = strlen(sources[i].keyword);
        blind[i] = ldxi_re_digit_blind(sources[i].pattern);
    }
}

/* Whether "digit.digit" is in the line: a version needs one. */
static bool has_number(const char *text, size_t len)
{
    for (const char *d = memchr(text, '.', len); d; d = memchr(d + 1, '.', len - (size_t)(d + 1 - text)))
        if (d > text && d + 1 < text + len && d[-1] >= '0' && d[-1] <= '9' && d[1] >= '0' && d[1] <= '9')
            return true;
    return false;
}

bool ldxi_versions_possible(const char *text, size_t len, pcre2_match_data *md)
{
    if (len > 4096 || !has_number(text, len)) return false;
    pthread_once(&once, compile);
    for (size_t i = 0; i < NSOURCES; i++) {
        if (!codes[i] || !blind[i]) return true; /* cannot vouch for the other lines */
        if (ldxi_memmem(text, len, sources[i].keyword, keylens[i]) &&
            pcre2_match(codes[i], (PCRE2_SPTR)text, len, 0, 0, md, NULL) >= 0)
            return true;
    }
    return false;
}


void ldxi_versions_feed(ldx_scanner *s, const char *text, size_t len)
{
    /* a version needs "digit.digit": most lines that name a component have none */
    if (len > 4096 || !has_number(text, len)) return;
    pthread_once(&once, compile);
    for (size_t i = 0; i < NSOURCES; i++) {
        int c = sources[i].component;
        if (s->versions[c][0] || !codes[i] || !ldxi_memmem(text, len, sources[i].keyword, keylens[i])) continue;
        if (pcre2_match(codes[i], (PCRE2_SPTR)text, len, 0, 0, s->md, NULL) < 2) continue;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
        size_t n = ov[3] - ov[2];
        if (n >= sizeof s->versions[c]) n = sizeof s->versions[c] - 1;
        memcpy(s->versions[c], text + ov[2], n);
        s->versions[c][n] = '\0';
    }
}

const char *ldxi_scanner_version_at(const ldx_scanner *s, int c)
{
    return c >= 0 && s->versions[c][0] ? s->versions[c] : NULL;
}

const char *ldx_scanner_version(const ldx_scanner *s, const char *component)
{
    return ldxi_scanner_version_at(s, ldxi_component_find(component, strlen(component)));
}
