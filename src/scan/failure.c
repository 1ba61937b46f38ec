/* Reads the blocks a dying process prints:
 *
 *   [rank3]: Traceback (most recent call last):
 *   [rank3]:   File "/work/train.py", line 88, in <module>
 *   [rank3]:     main()
 *   [rank3]:   File "/usr/lib/python3.10/site-packages/torch/nn/modules/module.py", ...
 *   [rank3]: KeyError: 'labels'
 *
 *   terminate called after throwing an instance of 'c10::Error'
 *     what():  CUDA error: an illegal memory access was encountered
 *
 *   Fatal Python error: Segmentation fault
 *   Current thread 0x00007f... (most recent call first):
 *     File "/work/model.py", line 12 in forward
 *
 * A block's lines carry what its first line carries before the keyword (a rank's tag,
 * a host, nothing), so lines with that prefix continue it and other ranks' lines, which
 * interleave, do not. The exception line is the first line after the frames that names
 * an exception type; its innermost frame outside libraries is where the user's code
 * was. The layout follows CPython's traceback.py (print_exception: "Traceback (most
 * recent call last):", '  File "%s", line %d, in %s', then "Type: message"; chained
 * exceptions between "During handling of the above exception, another exception
 * occurred:" or "The above exception was the direct cause of the following
 * exception:"), Python/faulthandler.c ('  File "%s", line %d in %s', most recent call
 * first) and libstdc++'s verbose terminate handler (vterminate.cc: "terminate called
 * after throwing an instance of '%s'", "  what():  %s"). */
#include "failure.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "logdx/scan.h"
#include "../core/util.h"

/* MODE_MESSAGE: a traceback's exception line whose message starts or goes on on the next
 * line ("RuntimeError: " then "    Failed to run stage backward:"), waiting for that line */
enum { MODE_TRACEBACK = 1, MODE_WHAT, MODE_FAULT, MODE_MESSAGE };

#define TB "Traceback (most recent call last):"
/* Lines that announce the traceback after them as no failure: CPython's "Exception ignored
 * in" (an exception in __del__ or a callback, printed and dropped), and a library logging,
 * at warning level, one it caught and goes on without: xformers (xformers/__init__.py) logs
 * "A matching Triton is not available, some optimizations will not be enabled" with the
 * ImportError's traceback on machines without Triton (every Windows install), a healthy
 * run's most common traceback. A web server beside the training (TensorBoard, a Gradio or
 * Flask UI, an OpenAI-style API) logs the exception of one request and serves the next:
 * werkzeug's serving.py "Error on request:" (TensorBoard, Flask), uvicorn's "Exception in
 * ASGI application" (FastAPI, Gradio, vLLM's and SGLang's servers). TorchDynamo, told to
 * suppress its errors, logs the frame it gives up on and runs it eagerly
 * (torch/_dynamo/exc.py format_error_msg: "WON'T CONVERT {name} {file} line {n} \ndue to:
 * \n{traceback}", verbose: "... line {n}\n===== TorchDynamo Stack Trace =====\n{traceback}").
 * ONNX Runtime's ORTModule, failing to export or run a model, logs the exception and trains
 * it with PyTorch instead (onnxruntime/training/ortmodule/_fallback.py: "Fallback to PyTorch
 * due to exception {type} was triggered. Report this issue ... See details below:\n\n" and
 * the exception's text, then its traceback, a few lines below). RLlib's env runners, told to
 * restart failed environments (config.restart_failed_sub_environments), log the env's
 * exception and make a new env (rllib/env/env_runner.py _try_env_reset/_try_env_step,
 * logger.exception: "Resetting|Stepping the env resulted in an error! The original error
 * is: {e.args[0]}"); without that setting they raise and say nothing. nnU-Net 2.0-2.3's predictor
 * announces its CPU fallback, then prints the OOM it caught ("Prediction with
 * perform_everything_on_gpu=True failed due to insufficient GPU memory. Falling back to
 * perform_everything_on_gpu=False. Not a big deal, just slower...", "Error:", the traceback).
 * iopath's PathManager (iopath/common/file_io.py __log_tmetry_keys, logger.exception) turns its
 * telemetry off after any exception in it ("An exception occurred in telemetry logging.Disabling
 * telemetry to prevent further exceptions.", then the traceback), under detectron2's checkpoint
 * and dataset loading. The prefilter's failure special (rules/hsdb.c) names them too. */
static const char *const quiet_announcements[] = {
    "Exception ignored in",
    "Triton is not available, some optimizations will not be enabled",
    "Error on request:",
    "Exception in ASGI application",
    "WON'T CONVERT ",
    "Fallback to PyTorch due to exception",
    "env resulted in an error! The original error is",
    "failed due to insufficient GPU memory. Falling back to ",
    "An exception occurred in telemetry logging.",
};
/* A Python warning as warnings.formatwarning prints it (Lib/warnings.py, 2.x-3.14:
 * "%s:%s: %s: %s\n" % (filename, lineno, category.__name__, message), then "  %s\n" % the
 * source line, stripped): a message may run over lines and hold an exception's text, which
 * is then no failure (stable-baselines3's save_util.py json_to_data: warnings.warn("Could not
 * deserialize object {key}. ...\nException: {e}"), the model loads and the run goes on). An
 * exception line in the message is read as an ignored one once the source line comes; a
 * message without it stays what it looks like. */
#define WARNING_WORD "Warning: "
/* CPython traceback.py, between the exceptions of a chain */
#define CHAIN_CONTEXT "During handling of the above exception, another exception occurred"
#define CHAIN_CAUSE "The above exception was the direct cause of the following exception"
#define TERMINATE "terminate called after throwing an instance of"
#define FATAL "Fatal Python error: "
/* A web server's access line answering a request with a client error (4xx) this many lines
 * after an exception: the exception was that request's, logged and answered (vLLM's
 * OpenAI server logs "Error in preprocessing prompt inputs" with the ValueError's
 * traceback, then uvicorn's '"POST /v1/chat/completions HTTP/1.1" 400 Bad Request'). A 5xx
 * is not read so: a server whose engine died answers every request with 500. */
#define ANSWER_SPAN 8
/* A loop over inputs that prints an input's exception and goes on to the next says so on
 * the line after its traceback: openai-whisper's and mlx-whisper's transcribe CLI
 * (whisper/transcribe.py cli: traceback.print_exc(), then print(f"Skipping {audio_path}
 * due to {type(e).__name__}: {str(e)}")), and scripts written the same way. The exception
 * named there, just above, was that input's. */
#define SKIP_WORD "Skipping "
#define SKIP_SPAN 2
/* a block still open this many lines after its last frame ends without an event (a
 * traceback cut off, or one whose exception line never came) */
#define BLOCK_SPAN 60
/* a traceback counts as cut off by the log's end only when its last frame is among the
 * log's last lines (not one whose rank went quiet while others went on) */
#define CUT_SPAN 3

static const char *find(const char *s, size_t n, const char *what)
{
    return ldxi_memmem(s, n, what, strlen(what));
}

static bool announces_quiet(const char *text, size_t n)
{
    for (size_t i = 0; i < sizeof quiet_announcements / sizeof *quiet_announcements; i++)
        if (find(text, n, quiet_announcements[i])) return true;
    return false;
}

void ldxi_failure_reset(ldxi_failure *f)
{
    f->nopen = 0;
    f->nev = 0;
    f->has_last = false;
    f->ignored_line = 0;
    f->chain_line = f->chain_cause = 0;
    f->warn_line = 0;
    f->last_fed = 0;
}

/* Whether the line is an access line that answers a request with 4xx: uvicorn's
 * '"POST /v1/completions HTTP/1.1" 400 Bad Request', werkzeug's '"GET / HTTP/1.1" 404 -',
 * aiohttp's and Go's the same way (the request line in quotes, then the status). */
static bool answers_4xx(const char *text, size_t n)
{
    const char *end = text + n, *p = text;
    while ((p = find(p, (size_t)(end - p), "HTTP/"))) {
        p += 5;
        const char *q = p;
        while (q < end && (isdigit((unsigned char)*q) || *q == '.')) q++;
        if (q > p && end - q >= 6 && q[0] == '"' && q[1] == ' ' && q[2] == '4' &&
            isdigit((unsigned char)q[3]) && isdigit((unsigned char)q[4]) && !isdigit((unsigned char)q[5]))
            return true;
    }
    return false;
}

static size_t exception_type(const char *s, size_t n);

/* "Skipping <input> due to <ExceptionType>: ..." (SKIP_WORD) */
static bool skips_input(const char *text, size_t n)
{
    const char *p = find(text, n, SKIP_WORD), *end = text + n;
    if (!p) return false;
    for (const char *d = p; (d = find(d, (size_t)(end - d), " due to ")) != NULL;) {
        d += 8;
        if (exception_type(d, (size_t)(end - d))) return true;
    }
    return false;
}

bool ldxi_failure_wants(const char *text, size_t len)
{
    size_t n = len < 4096 ? len : 4096;
    const char *f;
    return find(text, n, "Traceback (most") || announces_quiet(text, n) || find(text, n, WARNING_WORD) ||
           find(text, n, "above exception") ||
           find(text, n, "terminate called") || find(text, n, "Fatal Python error") ||
           answers_4xx(text, n) || skips_input(text, n) ||
           ((f = find(text, n, "File \"")) && find(f, n - (size_t)(f - text), "\", line "));
}

/* A line kept as evidence, as ldx_display_text shows text: cut at a character's start
 * where it is too long, control bytes (a NUL of binary junk among them, which would end
 * the text early) as spaces, and a byte that starts no valid UTF-8 character as '?', so
 * that every report (and a merge of shards' JSON) shows the same text. */
static void keep_line(ldxi_fail_line *l, const char *text, size_t len, uint64_t lineno)
{
    size_t n = len < sizeof l->text - 1 ? len : sizeof l->text - 1;
    if (n < len)
        while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80) n--;
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        size_t k = ldxi_utf8_seq(s + i, n - i);
        if (k > 1) {
            memcpy(l->text + i, s + i, k);
            i += k;
            continue;
        }
        unsigned char c = s[i];
        l->text[i++] = !k ? '?' : (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : (char)c;
    }
    l->text[n] = '\0';
    l->line = lineno;
}

static void copy_span(char *dst, size_t size, const char *p, size_t n)
{
    if (n >= size) n = size - 1;
    memcpy(dst, p, n);
    dst[n] = '\0';
}

static size_t blanks(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
    return i;
}

bool ldxi_failure_library_file(const char *file)
{
    static const char *const lib[] = {
        "site-packages", "dist-packages", "<unknown>", "/lib/python", "\\lib\\python", "\\Lib\\",
        "/lib64/python", "<frozen ", "<string>", "/usr/lib/", "/_bootstrap", "/runpy.py",
        "\\runpy.py", "/threading.py", "/multiprocessing/", "\\multiprocessing\\",
        /* console entry points: torchrun, accelerate, deepspeed */
        "/bin/", "\\Scripts\\", NULL};
    for (const char *const *l = lib; *l; l++)
        if (strstr(file, *l)) return true;
    return false;
}

/* The log goes on at lineno: a chain whose words came before it has a next exception,
 * so the one before the words is its context, not its end. */
static void chain_goes_on(ldxi_failure *f, uint64_t lineno)
{
    if (!f->chain_cause || lineno <= f->chain_line) return;
    for (uint32_t i = 0; i < f->nev; i++)
        if (f->ev[i].what.line == f->chain_cause) f->ev[i].chained = true;
    if (f->has_last && f->last.what.line == f->chain_cause) f->last.chained = true;
    f->chain_cause = 0;
}

static void record(ldxi_failure *f, const ldxi_fail_event *ev)
{
    chain_goes_on(f, ev->what.line);
    if (f->nev < LDXI_FAIL_EVENTS) {
        f->ev[f->nev++] = *ev;
    } else {
        f->last = *ev;
        f->has_last = true;
    }
}

/* '  File "x.py", line 12, in f' (traceback) or '  File "x.py", line 12 in f'
 * (faulthandler): false when the text is no frame; else its file, line and function
 * in *ev, and whether the file is a library's in *lib. */
static bool frame_of(const char *s, size_t n, ldxi_fail_event *ev, bool *lib)
{
    size_t i = blanks(s, n);
    /* indented as Python prints it; Ray's remote tracebacks drop the indent */
    if (n - i < 8 || memcmp(s + i, "File ", 5) != 0) return false;
    /* the quotes as Python prints them, or as a rich-text paste turned them (U+201C, U+201D) */
    const char *open = s + i + 5, *end = s + n, *file, *q;
    if (*open == '"') {
        file = open + 1;
        q = memchr(file, '"', (size_t)(end - file));
    } else if (end - open > 3 && memcmp(open, "\xe2\x80\x9c", 3) == 0) {
        file = open + 3;
        q = ldxi_memmem(file, (size_t)(end - file), "\xe2\x80\x9d", 3);
    } else {
        return false;
    }
    if (!q) return false;
    const char *line = find(q, (size_t)(end - q), ", line ");
    if (!line) return false;
    const char *d = line + 7;
    long v = 0;
    while (d < end && isdigit((unsigned char)*d) && v < 100000000) v = v * 10 + (*d++ - '0');
    copy_span(ev->file, sizeof ev->file, file, (size_t)(q - file));
    ev->frame_lineno = v;
    ev->func[0] = '\0';
    const char *in = find(d, (size_t)(end - d), " in ");
    if (in) {
        const char *fn = in + 4, *fe = fn;
        while (fe < end && !isspace((unsigned char)*fe)) fe++;
        copy_span(ev->func, sizeof ev->func, fn, (size_t)(fe - fn));
    }
    *lib = ldxi_failure_library_file(ev->file);
    return true;
}

static void take_frame(ldxi_fail_event *ev, const ldxi_fail_event *fr, const char *line,
                       size_t len, uint64_t lineno)
{
    memcpy(ev->file, fr->file, sizeof ev->file);
    memcpy(ev->func, fr->func, sizeof ev->func);
    ev->frame_lineno = fr->frame_lineno;
    keep_line(&ev->frame, line, len, lineno);
}

/* "KeyError: 'x'", "torch.OutOfMemoryError: CUDA out of memory", "KeyboardInterrupt":
 * a dotted name whose last part starts upper-case and is not all capitals (INFO:,
 * NCCL:), then ':' or the end of the line; Ray's wrapper names the exception it carries
 * in parentheses (python/ray/exceptions.py RayTaskError.make_dual_exception_type:
 * "ray.exceptions.RayTaskError(OutOfMemoryError): ray::Actor.step() ..."). The type's
 * length, 0 when it is no such line. */
static size_t exception_type(const char *s, size_t n)
{
    size_t i = 0, part = 0;
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.')) {
        if (s[i] == '.') part = i + 1;
        i++;
    }
    size_t end = i;
    if (i < n && s[i] == '(' && i + 1 < n && isupper((unsigned char)s[i + 1])) {
        size_t j = i + 1;
        while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_' || s[j] == '.')) j++;
        if (j < n && s[j] == ')') end = j + 1;
    }
    if (end < n && s[end] != ':') return 0;
    if (part >= i || !isupper((unsigned char)s[part])) return 0;
    bool lower = false;
    for (size_t k = part; k < i; k++) lower |= islower((unsigned char)s[k]) != 0;
    return lower ? end : 0;
}

static void close_block(ldxi_failure *f, uint32_t b)
{
    f->open[b] = f->open[--f->nopen];
}

static bool same_prefix(const ldxi_fail_block *o, const char *text, size_t n);

static ldxi_fail_block *open_block(ldxi_failure *f, const char *text, size_t plen, int mode,
                                   uint64_t lineno)
{
    chain_goes_on(f, lineno);
    /* a new block on a prefix replaces the one open there (the same with another
     * timestamp: a frame a logger printed alone, TorchDynamo's "from user code:", does not
     * stay open to take the next traceback's exception) */
    for (uint32_t b = 0; b < f->nopen; b++)
        if (f->open[b].plen == plen && same_prefix(&f->open[b], text, plen)) {
            close_block(f, b);
            break;
        }
    if (f->nopen == LDXI_FAIL_OPEN) close_block(f, 0);
    ldxi_fail_block *o = &f->open[f->nopen++];
    memset(o, 0, sizeof *o);
    memcpy(o->prefix, text, plen);
    o->plen = plen;
    o->rank = ldx_line_rank(text, plen);
    o->mode = mode;
    o->start = o->last_frame = lineno;
    return o;
}

/* A block opens on its header's line (at p in text): what stands before the keyword is
 * its prefix; it keeps that line as what happened until a traceback's exception line
 * comes. NULL where the prefix is too long to be a rank's tag. */
static ldxi_fail_block *open_header(ldxi_failure *f, const char *text, const char *p, size_t len,
                                    int mode, uint64_t lineno)
{
    size_t plen = (size_t)(p - text);
    /* std::terminate writes its report wherever stderr's line stands: after a progress bar
     * that never ended its line ("Elapsed: 0:21:08terminate called ..."), its "  what():"
     * starts the next line bare; a paste that lost a line end runs a command line into a
     * traceback's header ("--extra_envs NCCL_DEBUG=INFOTraceback (most recent call last):"),
     * its frames on the next lines bare. A tag ends in ':', ']', ')', '>' or a space; text
     * that runs straight into the keyword is no prefix */
    if (mode != MODE_FAULT && plen && isalnum((unsigned char)p[-1])) plen = 0;
    chain_goes_on(f, lineno); /* a header the reader cannot keep still goes on */
    if (plen >= sizeof f->open[0].prefix) return NULL;
    ldxi_fail_block *o = open_block(f, text, plen, mode, lineno);
    if (mode == MODE_WHAT) o->ev.kind = LDXI_FAIL_TERMINATE;
    if (mode == MODE_FAULT) o->ev.kind = LDXI_FAIL_FATAL;
    if (mode == MODE_TRACEBACK) o->ev.kind = LDXI_FAIL_CUT; /* until its exception comes */
    keep_line(&o->ev.what, text, len, lineno);
    return o;
}

/* Does the line carry the block's prefix? The same bytes, or (timestamps that a log
 * collector puts on every line) the same with other digits on the same rank. */
static bool same_prefix(const ldxi_fail_block *o, const char *text, size_t n)
{
    if (o->plen > n) return false;
    if (memcmp(o->prefix, text, o->plen) == 0) return true;
    for (size_t i = 0; i < o->plen; i++)
        if (o->prefix[i] != text[i] &&
            !(isdigit((unsigned char)o->prefix[i]) && isdigit((unsigned char)text[i])))
            return false;
    return ldx_line_rank(text, o->plen) == o->rank;
}

static bool starts(const char *s, size_t n, const char *what)
{
    size_t l = strlen(what);
    return n >= l && memcmp(s, what, l) == 0;
}

/* A frame's source line: "raise ValueError(f"...")" under the innermost frame names the
 * exception a log cut there never shows, and is the line to show for it (the last such
 * line counts; a frame after it clears the flag, and an exception line replaces both).
 * An assert statement raises AssertionError the same way ("assert len(x) == 1 + 2 * n"). */
static void source_line(ldxi_fail_block *o, const char *s, size_t n, const char *line, size_t len,
                        uint64_t lineno)
{
    static const char assertion[] = "AssertionError";
    size_t i = blanks(s, n);
    const char *type;
    size_t tlen;
    if (starts(s + i, n - i, "assert ") || starts(s + i, n - i, "assert(")) {
        type = assertion;
        tlen = sizeof assertion - 1;
    } else if (starts(s + i, n - i, "raise ")) {
        i += 6;
        size_t t = i;
        while (t < n && (isalnum((unsigned char)s[t]) || s[t] == '_' || s[t] == '.')) t++;
        /* the type ends at its call or the line's end: "raise ValueError(...)", "raise
         * StopTraining"; a name of the script's own ("raise err") is no type */
        if (t == i || (t < n && s[t] != '(') || !isupper((unsigned char)s[i])) return;
        type = s + i;
        tlen = t - i;
    } else {
        return;
    }
    if (!o->raising) o->what_before = o->ev.what;
    copy_span(o->ev.type, sizeof o->ev.type, type, tlen);
    keep_line(&o->ev.what, line, len, lineno); /* the evidence: where it was raised */
    o->raising = true;
}

/* One line of an open block, its prefix taken off (s, n). */
static void continue_block(ldxi_failure *f, uint32_t b, const char *line, size_t len,
                           const char *s, size_t n, uint64_t lineno)
{
    ldxi_fail_block *o = &f->open[b];
    ldxi_fail_event fr;
    bool lib = false;
    switch (o->mode) {
    case MODE_WHAT:
        if (find(s, n < 64 ? n : 64, "what():")) {
            keep_line(&o->ev.detail, line, len, lineno);
            record(f, &o->ev);
            close_block(f, b);
        } else if (lineno - o->start > 3) {
            record(f, &o->ev); /* no what(): the type alone */
            close_block(f, b);
        }
        return;
    case MODE_MESSAGE: {
        size_t k = 0;
        while (k < n && (s[k] == ' ' || s[k] == '\t')) k++;
        if (k < n) { /* the message's first line */
            keep_line(&o->ev.detail, line, len, lineno);
            record(f, &o->ev);
            close_block(f, b);
        } else if (lineno - o->ev.what.line >= 2) {
            record(f, &o->ev); /* no message came: the type alone */
            close_block(f, b);
        }
        return;
    }
    case MODE_FAULT:
        /* most recent call first: the first frame outside libraries is the innermost */
        if (frame_of(s, n, &fr, &lib)) {
            if (!lib && !o->ev.frame.line) take_frame(&o->ev, &fr, line, len, lineno);
            o->last_frame = lineno;
            return;
        }
        if (n == 0 || starts(s, n, "Current thread") || starts(s, n, "Thread 0x") ||
            starts(s, n, "Stack (most recent call first)") || (s[0] == ' ' || s[0] == '\t'))
            return;
        record(f, &o->ev); /* the dump is over */
        close_block(f, b);
        return;
    default:
        if (frame_of(s, n, &fr, &lib)) {
            o->frames++;
            o->indent = (uint32_t)blanks(s, n);
            o->last_frame = lineno;
            if (o->raising) { /* an outer frame's raise: the exception is deeper */
                o->ev.what = o->what_before;
                o->ev.type[0] = '\0';
                o->raising = false;
            }
            if (!lib) take_frame(&o->ev, &fr, line, len, lineno);
            return;
        }
        if (n && (s[0] == ' ' || s[0] == '\t')) {
            /* an exception line indented less than the frames: the whole traceback was indented
             * (a paste's markdown indent, a quote) and the block opened on a frame, its header lost
             * above the paste ("    File ...", "      raise ValueError(", "  ValueError: ..."); Python
             * prints the exception two columns left of its frames */
            size_t i = blanks(s, n);
            if (!(o->frames && i < o->indent && i < n && exception_type(s + i, n - i))) {
                /* source text, carets */
                if (o->frames && o->last_frame + 1 == lineno) source_line(o, s, n, line, len, lineno);
                return;
            }
            s += i;
            n -= i;
        }
        size_t t = 0;
        if (o->frames) { /* "[0mValueError: ...": a colour reset kept as text, its ESC lost */
            size_t g = ldxi_sgr_text(s, n);
            s += g;
            n -= g;
            t = exception_type(s, n);
        }
        if (t) {
            o->ev.kind = LDXI_FAIL_EXCEPTION;
            copy_span(o->ev.type, sizeof o->ev.type, s, t);
            keep_line(&o->ev.what, line, len, lineno);
            size_t k = t + 1;
            while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) k++;
            size_t e = ldxi_trimmed_len(s, n);
            /* "RuntimeError: " and the message below, or a message that ends in a colon and goes
             * on there (XGBoost's "XGBoostError: [10:45:01] .../result.cc:83: [coll.cu:203|...]:"
             * over its chain of reasons, "Error(s) in loading state_dict for Net:") */
            if (t < n && (k >= n || (e > k && s[e - 1] == ':')) && !o->ev.ignored) {
                o->mode = MODE_MESSAGE;
                o->last_frame = lineno;
                return;
            }
            record(f, &o->ev); /* an ignored one too: its line is then known as no failure */
            close_block(f, b);
        }
        /* else another process's line, or the words between chained exceptions: the
         * block waits (and ends BLOCK_SPAN lines after its last frame) */
        return;
    }
}

/* The latest event recorded: the one after the first LDXI_FAIL_EVENTS, else the last of those. */
static ldxi_fail_event *latest_event(ldxi_failure *f)
{
    return f->has_last ? &f->last : f->nev ? &f->ev[f->nev - 1] : NULL;
}

/* A frame on no open block's prefix: a traceback whose header the log does not have (Ray
 * prints a remote task's frames after its own line, a paste starts mid-traceback). Its
 * prefix is what stands before the frame's indentation, and one space of it. */
static void open_headless(ldxi_failure *f, const char *text, const char *p, size_t len,
                          uint64_t lineno)
{
    size_t k = (size_t)(p - text);
    while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) k--;
    if (k > 0 && k < (size_t)(p - text)) k++;
    ldxi_fail_event fr;
    bool lib = false;
    size_t n = len < 8192 ? len : 8192;
    if (k >= sizeof f->open[0].prefix || !frame_of(text + k, n - k, &fr, &lib)) return;
    ldxi_fail_block *o = open_block(f, text, k, MODE_TRACEBACK, lineno);
    o->ev.kind = LDXI_FAIL_CUT;
    keep_line(&o->ev.what, text, len, lineno);
    o->frames = 1;
    o->indent = (uint32_t)blanks(text + k, n - k);
    o->headless = true;
    /* the frames of a traceback whose header a logger prefixed (logger.info(traceback.format_exc()) prefixes
     * the first line only), or announced as ignored */
    o->ev.ignored = ldxi_failure_announced(f, lineno);
    if (!lib) take_frame(&o->ev, &fr, text, len, lineno);
}

/* glog's record header at q: its severity letter, the month and day, a space, the hour
 * ("W0530 14:48:26.433000 ..."), as PyTorch's C++ and Python loggers (torch._logging) and
 * absl write it; only I and W are below error */
static bool glog_below_error(const char *q, const char *tb)
{
    if (tb - q < 9 || (*q != 'I' && *q != 'W')) return false;
    for (int i = 1; i <= 4; i++)
        if (!isdigit((unsigned char)q[i])) return false;
    return q[5] == ' ' && isdigit((unsigned char)q[6]) && isdigit((unsigned char)q[7]) && q[8] == ':';
}

/* Whether the logging prefix before a traceback's header (text up to tb) gives it a level below ERROR: a
 * program that logs a caught exception's traceback at INFO or WARNING goes on (ms-swift's dataset
 * preprocessor: logger.info(traceback.format_exc()) as "[INFO:swift] Traceback ...", then "There are errors in
 * the dataset, the data will be deleted"); an uncaught exception prints its traceback with no level, and
 * logger.exception() logs at ERROR. glog's one-letter levels count the same (TorchDynamo logging the frame it gives
 * up on, "W0530 14:48:26.433000 2622492 .../convert_frame.py:1233] Traceback ...", on every line of the record). */
static bool logged_below_error(const char *text, const char *tb)
{
    static const char *const levels[] = {"INFO", "WARNING", "WARN", "DEBUG", "NOTICE"};
    for (const char *q = text; q < tb; q++)
        if ((q == text || !isalnum((unsigned char)q[-1])) && glog_below_error(q, tb)) return true;
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
        size_t k = strlen(levels[i]);
        for (const char *q = text; q + k <= tb; q++) {
            if (memcmp(q, levels[i], k) != 0) continue;
            /* a level is a word of its own, ended by a separator before the header: "NCCL_DEBUG=INFOTraceback"
             * is a setting (a name, its value) whose line end a paste lost, not a level */
            bool left = q == text || (!isalnum((unsigned char)q[-1]) && q[-1] != '_' && q[-1] != '=');
            if (q + k < tb && q[k] == '=') continue;
            bool right = q + k < tb && !isalnum((unsigned char)q[k]);
            if (left && right) return true;
        }
    }
    return false;
}

/* A traceback pasted with its line ends lost (a chat, a web form, a log shipper that joins a
 * record's lines): header, frames and exception on one line, "Traceback (most recent call
 * last): File "a.py", line 3, in <module> main() ... KeyError: 'x'". The frames are read in
 * order, the innermost outside libraries kept; the exception is the first name after the last
 * frame that starts a word and reads as an exception type (the source text between frames,
 * "main()", "x = f(y)", does not). Without one the paste was cut: the block stays open with
 * its frames, as a traceback cut on its own lines would. A paste that starts mid-traceback has
 * no header (tb NULL): frames and an exception after them, or nothing is read here. False
 * where nothing was read. */
static bool flat_traceback(ldxi_failure *f, const char *text, const char *tb, size_t len,
                           size_t n, uint64_t lineno)
{
    const char *end = text + n, *p = tb ? tb + strlen(TB) : text;
    const char *fr = find(p, (size_t)(end - p), "File \""), *last = NULL;
    if (!fr) return false;
    ldxi_fail_event ev, frm;
    memset(&ev, 0, sizeof ev);
    bool lib = false;
    uint32_t frames = 0;
    for (; fr; fr = find(fr + 6, (size_t)(end - fr - 6), "File \"")) {
        if (!frame_of(fr, (size_t)(end - fr), &frm, &lib)) continue;
        last = fr;
        frames++;
        if (!lib) take_frame(&ev, &frm, text, len, lineno);
    }
    if (!last) return false;
    size_t t = 0;
    const char *q = last + 6;
    for (; q < end; q++) {
        if (!isspace((unsigned char)q[-1])) continue;
        if ((t = exception_type(q, (size_t)(end - q))) && q + t < end) break;
        t = 0;
    }
    bool ignored = ldxi_failure_announced(f, lineno);
    if (!t && !tb) return false; /* frames alone: open_headless reads them */
    if (!t) {
        ldxi_fail_block *o = open_header(f, text, tb, len, MODE_TRACEBACK, lineno);
        if (o) {
            o->ev.ignored = ignored;
            o->frames = frames;
            if (ev.frame.line) take_frame(&o->ev, &ev, text, len, lineno);
        }
        return true;
    }
    chain_goes_on(f, lineno);
    ev.kind = LDXI_FAIL_EXCEPTION;
    copy_span(ev.type, sizeof ev.type, q, t);
    keep_line(&ev.what, text, len, lineno);
    ev.ignored = ignored;
    record(f, &ev);
    return true;
}

/* An exception line (its type t bytes long) read as no failure: one an announcement or a
 * warning's message holds. */
static void ignored_exception(ldxi_fail_event *ev, const char *text, size_t len, size_t t, uint64_t lineno)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = LDXI_FAIL_EXCEPTION;
    copy_span(ev->type, sizeof ev->type, text, t);
    keep_line(&ev->what, text, len, lineno);
    ev->ignored = true;
}

/* A warning's first line: ":<lineno>: <Category>Warning: " somewhere in it, the file name in
 * front (after a logger's prefix where logging.captureWarnings sends it: "WARNING:py.warnings:"). */
static bool warning_header(const char *text, size_t n)
{
    const char *end = text + n;
    for (const char *w = text; (w = find(w, (size_t)(end - w), WARNING_WORD)); w++) {
        const char *c = w;
        while (c > text && (isalnum((unsigned char)c[-1]) || c[-1] == '_')) c--;
        if (c - text < 4 || c[-1] != ' ' || c[-2] != ':' || !isdigit((unsigned char)c[-3])) continue;
        const char *d = c - 3;
        while (d > text && isdigit((unsigned char)d[-1])) d--;
        if (d > text && d[-1] == ':') return true;
    }
    return false;
}

/* A line inside a warning's window: its source line ends the message (an exception line
 * the message held is recorded then, as ignored); an exception line is held until then.
 * True where the line was the warning's. */
static bool warning_line(ldxi_failure *f, const char *text, size_t len, size_t n, uint64_t lineno)
{
    if (!ldxi_failure_in_warning(f, lineno)) {
        f->warn_line = 0;
        return false;
    }
    size_t i = blanks(text, n);
    if (i > 0 && i < n) { /* the source line */
        if (f->warn_ex.what.line) record(f, &f->warn_ex);
        f->warn_line = 0;
        return true;
    }
    size_t t = exception_type(text, n);
    if (!t || t >= n || text[t] != ':' || f->warn_ex.what.line) return false;
    ignored_exception(&f->warn_ex, text, len, t, lineno);
    return true;
}

size_t ldxi_failure_events(const ldxi_failure *f, const ldxi_fail_event **out, size_t max)
{
    size_t n = 0;
    for (uint32_t i = 0; i < f->nev && n < max; i++) out[n++] = &f->ev[i];
    if (f->has_last && n < max) out[n++] = &f->last;
    /* a dump or a terminate the log ends in: the process died printing it; a traceback
     * the log ends in: the log was cut (a paste, a copy of a dying job) before its
     * exception line (unclassified.c takes it only where no rule fired: a launcher's own
     * traceback under its failure report says nothing more; frames with neither header
     * nor exception may be any stack a program prints) */
    for (uint32_t b = 0; b < f->nopen && n < max; b++) {
        const ldxi_fail_block *o = &f->open[b];
        if (o->mode != MODE_TRACEBACK ||
            (o->frames && !o->ev.ignored && (!o->headless || o->raising) &&
             f->last_fed - o->last_frame <= CUT_SPAN))
            out[n++] = &o->ev;
    }
    return n;
}

void ldxi_failure_feed(ldxi_failure *f, const char *text, size_t len, uint64_t lineno, bool header)
{
    size_t n = len < 8192 ? len : 8192;
    f->last_fed = lineno;
    const char *p;
    const char *end = text + n;
    ldxi_fail_block *o;
    if (header && (p = find(text, n, TB))) {
        f->warn_line = 0;
        if (flat_traceback(f, text, p, len, n, lineno)) return;
        bool quiet = logged_below_error(text, p);
        if (quiet) f->ignored_line = lineno; /* its frames, unprefixed, open a headless block */
        if ((o = open_header(f, text, p, len, MODE_TRACEBACK, lineno)))
            o->ev.ignored = quiet || ldxi_failure_announced(f, lineno);
        return;
    }
    if (header && announces_quiet(text, n)) {
        f->ignored_line = lineno;
        return;
    }
    if (header && warning_header(text, n)) {
        f->warn_line = lineno;
        f->warn_ex.what.line = 0;
        return;
    }
    if (f->warn_line && lineno > f->warn_line && warning_line(f, text, len, n, lineno)) return;
    /* a line that says the exception just above was handled (a request answered 4xx, an
     * input skipped) */
    size_t handled = answers_4xx(text, n) ? ANSWER_SPAN : skips_input(text, n) ? SKIP_SPAN : 0;
    if (handled) {
        ldxi_fail_event *ev = latest_event(f);
        if (ev && ev->kind == LDXI_FAIL_EXCEPTION && lineno - ev->what.line <= handled) ev->ignored = true;
        return;
    }
    if (header && (find(text, n, CHAIN_CONTEXT) || find(text, n, CHAIN_CAUSE))) {
        /* the exception just before is the chain's context, not its end, once the log
         * goes on into the next one (chain_goes_on): a paste cut here ends in it */
        const ldxi_fail_event *ev = latest_event(f);
        if (ev && lineno - ev->what.line <= 3) {
            f->chain_line = lineno;
            f->chain_cause = ev->what.line;
        }
        return;
    }
    if (header && (p = find(text, n, TERMINATE))) {
        if (!(o = open_header(f, text, p, len, MODE_WHAT, lineno))) return;
        /* the type between the quotes */
        const char *q = p + strlen(TERMINATE), *qe;
        while (q < end && (*q == ' ' || *q == '\'')) q++;
        for (qe = q; qe < end && *qe != '\''; qe++) {}
        copy_span(o->ev.type, sizeof o->ev.type, q, (size_t)(qe - q));
        return;
    }
    if (header && (p = find(text, n, FATAL))) {
        if (!(o = open_header(f, text, p, len, MODE_FAULT, lineno))) return;
        const char *q = p + strlen(FATAL);
        copy_span(o->ev.type, sizeof o->ev.type, q, (size_t)(end - q));
        return;
    }
    /* the line continues the block open on its prefix, if any (the longest prefix
     * first: "[rank1]:" before "") */
    int best = -1;
    for (uint32_t b = 0; b < f->nopen; b++)
        if ((best < 0 || f->open[b].plen > f->open[best].plen) && same_prefix(&f->open[b], text, n))
            best = (int)b;
    if (best >= 0) {
        size_t plen = f->open[best].plen;
        continue_block(f, (uint32_t)best, text, len, text + plen, n - plen, lineno);
    } else if ((p = find(text, n, "File \"")) && !flat_traceback(f, text, NULL, len, n, lineno)) {
        open_headless(f, text, p, len, lineno);
    } else if (ldxi_failure_announced(f, lineno) && lineno != f->ignored_line) {
        /* the exception's own line that an announcement's message holds above its traceback
         * (ORTModule's "See details below:\n\nRuntimeError: ...\n\nTraceback ..."): read, and no
         * failure, so that no rule's hit on it is taken for one */
        size_t t = exception_type(text, n);
        if (t && t < n && text[t] == ':') {
            ldxi_fail_event ev;
            ignored_exception(&ev, text, len, t, lineno);
            record(f, &ev);
        }
    }
    /* blocks nobody continues end in time */
    for (uint32_t b = 0; b < f->nopen;) {
        const ldxi_fail_block *bl = &f->open[b];
        if (lineno > bl->last_frame + BLOCK_SPAN) {
            if (bl->mode != MODE_TRACEBACK) record(f, &bl->ev);
            close_block(f, b);
        } else {
            b++;
        }
    }
}
