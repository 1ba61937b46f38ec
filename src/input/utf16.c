/* UTF-16 logs read as UTF-8: Windows PowerShell 5.1 writes "python train.py > log.txt"
 * (and Out-File, Tee-Object) in UTF-16LE with a byte order mark, and every rule is
 * written for UTF-8 text. The byte order mark is dropped; a lone or reversed
 * surrogate becomes U+FFFD, as does an odd byte at the end. */
#include "input_int.h"
#include "../core/util.h"

/* The UTF-8 of one unit (and of a surrogate it ends or leaves alone) into u->out. */
static void take(ldxi_utf16 *u, uint16_t unit)
{
    bool first = !u->started;
    u->started = true;
    if (first && unit == 0xfeff) return; /* the byte order mark */
    if (u->hi) {
        if (unit >= 0xdc00 && unit <= 0xdfff) {
            u->nout += ldxi_utf8_put(u->out + u->nout,
                           0x10000 + ((uint32_t)(u->hi - 0xd800) << 10) + (uint32_t)(unit - 0xdc00));
            u->hi = 0;
            return;
        }
        u->nout += ldxi_utf8_put(u->out + u->nout, 0xfffd);
        u->hi = 0;
    }
    if (unit >= 0xd800 && unit <= 0xdbff) u->hi = unit;
    else if (unit >= 0xdc00 && unit <= 0xdfff) u->nout += ldxi_utf8_put(u->out + u->nout, 0xfffd);
    else u->nout += ldxi_utf8_put(u->out + u->nout, unit);
}

void ldxi_utf16_step(ldxi_utf16 *u, const unsigned char *in, size_t ilen, size_t *ipos,
                     unsigned char *out, size_t cap, size_t *opos, bool last)
{
    size_t i = *ipos, o = *opos;
    for (;;) {
        /* what the last unit made, as far as it fits: any room makes progress */
        while (u->sent < u->nout && o < cap) out[o++] = u->out[u->sent++];
        if (u->sent < u->nout || o == cap) break;
        u->sent = u->nout = 0;
        uint16_t unit;
        if (u->has_odd && i < ilen) {
            unit = u->big ? (uint16_t)(u->odd << 8 | in[i]) : (uint16_t)(in[i] << 8 | u->odd);
            u->has_odd = false;
            i++;
        } else if (!u->has_odd && ilen - i >= 2) {
            unit = u->big ? (uint16_t)(in[i] << 8 | in[i + 1]) : (uint16_t)(in[i + 1] << 8 | in[i]);
            i += 2;
        } else {
            if (!u->has_odd && i < ilen) {
                u->odd = in[i++];
                u->has_odd = true;
            }
            if (last && i >= ilen && (u->hi || u->has_odd)) { /* the input ends mid-character */
                u->nout = ldxi_utf8_put(u->out, 0xfffd);
                u->hi = 0;
                u->has_odd = false;
                continue;
            }
            break;
        }
        take(u, unit);
    }
    *ipos = i;
    *opos = o;
}
