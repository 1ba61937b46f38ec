/* Software versions (core layer): the components logdx reads from log banners, comparing
 * dotted versions, and the `when:` ranges rules give their advice for. */
#include "version.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ldxi_components[LDXI_NCOMPONENTS] = {
    "torch", "cuda", "driver", "nccl", "deepspeed", "transformers",
    "accelerate", "lightning", "vllm", "jax", "megatron", "peft"};

int ldxi_component_find(const char *name, size_t len)
{
    for (int i = 0; i < LDXI_NCOMPONENTS; i++)
        if (strlen(ldxi_components[i]) == len && !strncmp(ldxi_components[i], name, len))
            return i;
    return -1;
}

int ldxi_version_cmp(const char *a, const char *b)
{
    for (int part = 0; part < 6; part++) {
        long x = 0, y = 0;
        if (isdigit((unsigned char)*a)) x = strtol(a, (char **)&a, 10);
        if (isdigit((unsigned char)*b)) y = strtol(b, (char **)&b, 10);
        if (x != y) return x < y ? -1 : 1;
        bool ma = *a == '.' && isdigit((unsigned char)a[1]);
        bool mb = *b == '.' && isdigit((unsigned char)b[1]);
        if (!ma && !mb) return 0;
        if (ma) a++;
        if (mb) b++;
        if (!ma) a = "";
        if (!mb) b = "";
    }
    return 0;
}

bool ldxi_when_parse(const char *s, ldxi_when *w, char *err, size_t errsize)
{
    memset(w, 0, sizeof(*w));
    while (isspace((unsigned char)*s)) s++;
    const char *n = s;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    w->component = ldxi_component_find(n, (size_t)(s - n));
    if (w->component < 0) {
        snprintf(err, errsize, "unknown component '%.*s' (known: torch, cuda, driver, nccl, "
                 "deepspeed, transformers, accelerate, lightning, vllm, jax, megatron, peft)",
                 (int)(s - n), n);
        return false;
    }
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return true;
    static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
    static const int codes[] = {2, 4, 5, 6, 1, 3};
    for (int i = 0; i < 6; i++) {
        size_t l = strlen(ops[i]);
        if (strncmp(s, ops[i], l)) continue;
        w->op = codes[i];
        s += l;
        while (isspace((unsigned char)*s)) s++;
        size_t vl = 0;
        while (s[vl] && !isspace((unsigned char)s[vl]) && vl < sizeof w->version - 1) vl++;
        memcpy(w->version, s, vl);
        w->version[vl] = '\0';
        const char *rest = s + vl;
        while (isspace((unsigned char)*rest)) rest++;
        if (!isdigit((unsigned char)w->version[0]) || *rest) {
            snprintf(err, errsize, "expected a version number after '%s'", ops[i]);
            return false;
        }
        return true;
    }
    snprintf(err, errsize, "expected <, <=, >, >=, == or != after the component");
    return false;
}

bool ldxi_when_holds(const ldxi_when *w, const char *found)
{
    if (!found) return false;
    if (w->op == 0) return true;
    int c = ldxi_version_cmp(found, w->version);
    switch (w->op) {
    case 1: return c < 0;
    case 2: return c <= 0;
    case 3: return c > 0;
    case 4: return c >= 0;
    case 5: return c == 0;
    case 6: return c != 0;
    }
    return false;
}
