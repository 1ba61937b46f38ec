/* Software versions read from log banners, and how rules compare them. */
#ifndef LDX_CORE_VERSION_H
#define LDX_CORE_VERSION_H

#include <stdbool.h>
#include <stddef.h>

/* The components logdx reads versions of, in a fixed order (an index is a component). */
#define LDXI_NCOMPONENTS 12
extern const char *const ldxi_components[LDXI_NCOMPONENTS];
int ldxi_component_find(const char *name, size_t len);

/* Compares dotted versions numerically ("0.12.6" < "0.13"); missing parts count as 0,
 * anything after the numbers ("+cu121", "rc1", ".post1") is ignored. */
int ldxi_version_cmp(const char *a, const char *b);

/* A rule's advice condition: "deepspeed < 0.13.0", "torch >= 2.2", "nccl" (known). */
typedef struct {
    int component;
    int op;            /* 0 known, 1 <, 2 <=, 3 >, 4 >=, 5 ==, 6 != */
    char version[32];
} ldxi_when;

/* Parses a when string; false with a message in err. */
bool ldxi_when_parse(const char *s, ldxi_when *w, char *err, size_t errsize);
/* Is it true of the version found (NULL: the component's version is not known)? */
bool ldxi_when_holds(const ldxi_when *w, const char *found);

#endif
