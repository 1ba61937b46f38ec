/* Named pattern fragments: rules/fragments/<name>.yaml, a piece of regular expression
 * that several rules share (a training step line, the processes that are the run's),
 * written once and called from a signal's pattern as (?&name). */
#ifndef LDX_RULES_FRAGMENT_H
#define LDX_RULES_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "logdx/core.h"
#include "yaml.h"

typedef struct {
    const char *name;
    const char *pattern;
    const char *path; /* the file that defined it, for messages */
    bool builtin;
} ldxi_fragment;

typedef struct {
    ldxi_fragment *v;
    size_t n, cap;
} ldxi_fragments;

/* Whether a YAML file is a fragment (it has a top-level 'fragment' key). */
bool ldxi_is_fragment(const ldxi_ynode *root);
/* Validates one fragment file (its pattern compiles alone, holds no capturing group,
 * matches its match examples and none of its no_match ones; its name is not another
 * user fragment's) and adds it to set; one of a built-in fragment's name replaces it for
 * the rules that come after, as a user's table replaces a built-in table. Strings go to arena (or stay the tree's with keep_strings). False when it
 * has errors (all reported at their nodes). */
bool ldxi_fragment_load(const ldxi_ynode *root, const char *path, bool builtin, bool keep_strings,
                        ldx_arena *arena, ldxi_fragments *set, ldx_msgs *msgs);
void ldxi_fragments_free(ldxi_fragments *set);
const ldxi_fragment *ldxi_fragment_find(const ldxi_fragments *set, const char *name, size_t len);

/* The pattern with each (?&name) that names a fragment (and not a group of the pattern
 * itself) written out as (?:fragment). Returns pattern itself when it calls none, a
 * string in arena when it does, NULL on an unknown name (*bad_at: its offset in the
 * pattern, *bad_len: the name's length) or when out of memory (*bad_len 0). */
const char *ldxi_fragment_expand(const char *pattern, const ldxi_fragments *set,
                                 ldx_arena *arena, size_t *bad_at, size_t *bad_len);

#endif
