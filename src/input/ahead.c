/* Read-ahead: a read function run on a thread of its own, a few blocks ahead of the
 * reader. Decoding gzip costs about as much as scanning what it yields, so with a
 * spare core the two overlap instead of taking turns. The blocks come out exactly as
 * the function returned them, errors and the end included. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_int.h"

#define AHEAD_BLOCK ((size_t)256 << 10)
#define AHEAD_BLOCKS 4

typedef struct {
    unsigned char *data;
    ssize_t n;        /* what the function returned: bytes, 0 at the end, -1 */
    char err[256];    /* its message when n < 0 */
    size_t pos;       /* how much of it the reader has taken */
} block;

struct ldxi_ahead {
    ldxi_read_fn fn;
    void *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    block b[AHEAD_BLOCKS];
    uint64_t made, taken; /* blocks filled by the thread, emptied by the reader */
    bool quit, over;      /* the reader is gone; the function said end or error */
};

static void *producer(void *arg)
{
    ldxi_ahead *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->quit && !a->over) {
        if (a->made - a->taken == AHEAD_BLOCKS) {
            pthread_cond_wait(&a->cv, &a->mu);
            continue;
        }
        block *b = &a->b[a->made % AHEAD_BLOCKS];
        pthread_mutex_unlock(&a->mu);
        const char *err = NULL;
        b->n = a->fn(a->ctx, b->data, AHEAD_BLOCK, &err);
        if (b->n < 0) snprintf(b->err, sizeof b->err, "%s", err ? err : "read error");
        b->pos = 0;
        pthread_mutex_lock(&a->mu);
        a->over = b->n <= 0;
        a->made++;
        pthread_cond_broadcast(&a->cv);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

ldx_status ldxi_ahead_create(ldxi_ahead **out, ldxi_read_fn fn, void *ctx)
{
    *out = NULL;
    ldxi_ahead *a = calloc(1, sizeof(*a));
    if (!a) return LDX_ENOMEM;
    a->fn = fn;
    a->ctx = ctx;
    for (int i = 0; i < AHEAD_BLOCKS; i++) {
        a->b[i].data = malloc(AHEAD_BLOCK);
        if (!a->b[i].data) {
            for (int k = 0; k <= i; k++) free(a->b[k].data);
            free(a);
            return LDX_ENOMEM;
        }
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->cv, NULL);
    if (pthread_create(&a->thread, NULL, producer, a) != 0) {
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->cv);
        for (int i = 0; i < AHEAD_BLOCKS; i++) free(a->b[i].data);
        free(a);
        return LDX_ENOMEM;
    }
    *out = a;
    return LDX_OK;
}

ssize_t ldxi_ahead_read(void *ctx, void *buf, size_t cap, const char **err)
{
    ldxi_ahead *a = ctx;
    pthread_mutex_lock(&a->mu);
    while (a->made == a->taken) pthread_cond_wait(&a->cv, &a->mu);
    block *b = &a->b[a->taken % AHEAD_BLOCKS];
    pthread_mutex_unlock(&a->mu);
    if (b->n <= 0) {
        /* the end or an error: said again to every later call, as the function would */
        if (b->n < 0) *err = b->err;
        return b->n;
    }
    size_t n = (size_t)b->n - b->pos;
    if (n > cap) n = cap;
    memcpy(buf, b->data + b->pos, n);
    b->pos += n;
    if (b->pos == (size_t)b->n) {
        pthread_mutex_lock(&a->mu);
        a->taken++;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    return (ssize_t)n;
}

void ldxi_ahead_destroy(ldxi_ahead *a)
{
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->quit = true;
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->thread, NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    for (int i = 0; i < AHEAD_BLOCKS; i++) free(a->b[i].data);
    free(a);
}
