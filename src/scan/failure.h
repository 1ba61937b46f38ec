/* The failure reader: how a process died, read from the blocks that Python and C++
 * runtimes print when they die (an uncaught exception's traceback, std::terminate,
 * faulthandler's dump), for the diagnosis of a failure no rule names. Fed by the
 * scanner with the lines its prefilter hints at, and every line while a block is open. */
#ifndef LDX_SCAN_FAILURE_H
#define LDX_SCAN_FAILURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LDXI_FAIL_EVENTS 16 /* the first ones kept (and the latest after them) */
#define LDXI_FAIL_ANNOUNCED 4 /* lines an announcement speaks for: its message, a blank, the traceback's header */
#define LDXI_FAIL_WARNING 8   /* lines a Python warning's message may take before its source line */
#define LDXI_FAIL_OPEN 8    /* blocks open at once: one per rank's prefix */
#define LDXI_FAIL_TEXT 300

typedef enum {
    LDXI_FAIL_EXCEPTION = 1, /* a traceback's exception line */
    LDXI_FAIL_TERMINATE,     /* "terminate called after throwing an instance of" */
    LDXI_FAIL_FATAL,         /* faulthandler's "Fatal Python error: ..." */
    LDXI_FAIL_CUT            /* a traceback the log ends inside, before its exception */
} ldxi_fail_kind;

typedef struct {
    uint64_t line;
    char text[LDXI_FAIL_TEXT];
} ldxi_fail_line;

typedef struct {
    ldxi_fail_kind kind;
    ldxi_fail_line what;   /* the exception line, the terminate line, the fatal error (a
                            * traceback cut off: its header) */
    ldxi_fail_line detail; /* terminate's "what():" line (line 0: none) */
    ldxi_fail_line frame;  /* the innermost frame outside libraries (line 0: none) */
    char file[200];        /* that frame's file, line and function */
    long frame_lineno;
    char func[64];
    char type[96];         /* the exception's type, "c10::Error", "Segmentation fault" */
    bool ignored;          /* "Exception ignored in": Python reported it and went on */
    bool chained;          /* another exception was raised while handling it (the chain's
                            * last one is the failure): set once the log goes on past the
                            * chain's words into another block, not for a paste cut there */
} ldxi_fail_event;

typedef struct {
    char prefix[128]; /* what stands before "Traceback" on its line: a rank's tag, or a whole
                       * logging prefix ("(Worker_TP2 pid=99) ERROR 04-09 20:31:10
                       * [multiproc_executor.py:949] ", vLLM V1 workers: 70 bytes) */
    size_t plen;
    int rank;        /* the prefix's rank, -1: none */
    int mode;        /* traceback, terminate's what(), faulthandler's stack */
    uint64_t start, last_frame;
    uint32_t frames;
    uint32_t indent; /* the blanks before its last frame's "File", after the prefix */
    bool headless;   /* opened on a frame, its header not in the log */
    bool raising;    /* its last frame's source line raises an exception (type in ev.type,
                      * the line in ev.what; what ev.what was before it in what_before) */
    ldxi_fail_line what_before;
    ldxi_fail_event ev;
} ldxi_fail_block;

typedef struct {
    ldxi_fail_block open[LDXI_FAIL_OPEN];
    uint32_t nopen;
    ldxi_fail_event ev[LDXI_FAIL_EVENTS];
    uint32_t nev;
    ldxi_fail_event last; /* the latest event after the first LDXI_FAIL_EVENTS */
    bool has_last;
    uint64_t ignored_line; /* the last line announcing a traceback as no failure ("Exception
                            * ignored in", a library's fallback warning): the lines up to
                            * LDXI_FAIL_ANNOUNCED after it are its */
    uint64_t warn_line;    /* a Python warning's first line ("x.py:12: UserWarning: ..."), whose
                            * message may hold an exception's text up to its source line */
    ldxi_fail_event warn_ex; /* such an exception line, waiting for that source line */
    uint64_t chain_line;   /* the last words between chained exceptions, and the line of */
    uint64_t chain_cause;  /* the exception before them (0: none waiting for the next) */
    uint64_t last_fed;     /* the last line fed (every line while a block is open) */
} ldxi_failure;

void ldxi_failure_reset(ldxi_failure *f);
/* Whether the reader wants a line when no block is open (the plain engine's cheap test;
 * the prefilter's special pattern says the same). */
bool ldxi_failure_wants(const char *text, size_t len);
/* Whether an announcement's window (LDXI_FAIL_ANNOUNCED lines) covers line lineno: a
 * traceback or exception line there is one announced as no failure ("Exception ignored in",
 * a library's fallback warning). */
static inline bool ldxi_failure_announced(const ldxi_failure *f, uint64_t lineno)
{
    return f->ignored_line && lineno - f->ignored_line <= LDXI_FAIL_ANNOUNCED;
}
/* Whether a Python warning's window (its message, up to LDXI_FAIL_WARNING lines before its
 * source line) covers line lineno. */
static inline bool ldxi_failure_in_warning(const ldxi_failure *f, uint64_t lineno)
{
    return f->warn_line && lineno - f->warn_line <= LDXI_FAIL_WARNING;
}
/* Whether the reader follows line lineno whatever its hint: a block is open, or an
 * announcement's or a warning's window still covers it (on every line: inline). */
static inline bool ldxi_failure_following(const ldxi_failure *f, uint64_t lineno)
{
    return f->nopen || ldxi_failure_announced(f, lineno) || ldxi_failure_in_warning(f, lineno);
}
/* header: whether the line may hold a block's first line (a traceback's header, terminate's,
 * faulthandler's, a chain sentence, a quiet announcement): false when the hint that stands
 * for their digit-free strings did not fire, so a line followed inside an open block skips
 * those searches. */
void ldxi_failure_feed(ldxi_failure *f, const char *text, size_t len, uint64_t lineno, bool header);
/* The events so far in line order, at most max: the first ones, the latest, and the
 * blocks the log ends in (a process that died while printing, a log cut off inside a
 * traceback that has frames). */
size_t ldxi_failure_events(const ldxi_failure *f, const ldxi_fail_event **out, size_t max);
/* Whether a frame's file belongs to an installed library or the interpreter. */
bool ldxi_failure_library_file(const char *file);

/* body.c: the length of a colour escape written out as text at text[0] ("[0m", "^[[31m",
 * "\x1b[0m": a paste that lost the ESC byte), 0 where none starts there. */
size_t ldxi_sgr_text(const char *text, size_t len);

#endif
