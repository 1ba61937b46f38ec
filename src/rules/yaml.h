/* A small YAML document tree with positions, built from libyaml's events, so that rule
 * validation can name the line and column of every problem. Nodes live in an arena. */
#ifndef LDX_RULES_YAML_H
#define LDX_RULES_YAML_H

#include <stddef.h>

#include "logdx/core.h"
#include "../core/util.h"

typedef enum { LDXI_YSCALAR, LDXI_YSEQ, LDXI_YMAP } ldxi_ykind;

typedef struct ldxi_ynode {
    ldxi_ykind kind;
    unsigned line, col;  /* from 1 */
    const char *str;     /* scalar value */
    size_t len;
    int quoted;          /* 0 plain, 1 quoted, 2 block (literal/folded) */
    int comment_after;   /* a plain scalar followed by " #...": text lost to a comment? */
    struct ldxi_ynode **items; /* sequence items; maps alternate key, value */
    size_t n;
} ldxi_ynode;

/* Rule files are small; this keeps a hostile file from costing much. */
#define LDXI_YAML_MAX_BYTES ((size_t)1 << 20)
#define LDXI_YAML_MAX_NODES 100000

/* Parses exactly one document. Aliases are refused (rules never need them, and they
 * are the door to exponential expansion). Problems go to msgs with path:line:col. */
ldx_status ldxi_yaml_parse(const char *data, size_t len, const char *path, ldx_arena *a,
                           ldxi_ynode **root, ldx_msgs *msgs);

/* The tree in a binary form (ytree.c), for embedding parsed rules in the build. A
 * decoded tree's scalars point into data, which must outlive it. */
#define LDXI_YTREE_MAGIC "LDXT"
ldx_status ldxi_ytree_encode(const ldxi_ynode *root, ldx_buf *out);
ldx_status ldxi_ytree_decode(const void *data, size_t len, ldx_arena *a, ldxi_ynode **root);

/* For a map node: the value for key, or NULL. */
const ldxi_ynode *ldxi_ymap_get(const ldxi_ynode *map, const char *key);

#endif
