/* util.h — memory, errors and small string helpers shared by the engine.
 *
 * Out-of-memory policy: the x* allocators never return NULL. On failure they
 * call the fatal hook (the TUI installs one that restores the terminal) and
 * abort, so callers carry no NULL checks for memory.
 *
 * Errors a user can cause are reported through struct hp_err: the engine
 * fills msg with a sentence naming the file, JSON path or flag and what was
 * expected; front ends print it and choose the exit code from code. */
#ifndef HP_UTIL_H
#define HP_UTIL_H

#include <stddef.h>
#include <pthread.h>
#include <stdarg.h>

/* Exit codes (documented in the man page). */
enum {
	HP_EXIT_OK = 0,
	HP_EXIT_FAIL = 1,     /* runtime failure: I/O, network, infeasible */
	HP_EXIT_USAGE = 2,    /* bad flags or arguments */
	HP_EXIT_INPUT = 3,    /* a file or value is invalid (bad JSON, unknown GPU) */
	HP_EXIT_NOFIT = 4,    /* the plan or model does not fit in memory */
};

struct hp_err {
	int code;             /* one of HP_EXIT_*, 0 when no error */
	char msg[1024];
};

/* Fill err (if not NULL) with a printf-style message, cut at 1023 bytes and
 * put through the terminal form (utf8.h), and code; returns -1 so callers
 * can write `return hp_err_set(err, ...)`. Never fails. */
int hp_err_set(struct hp_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prepend "PREFIX: " (printf-style) to err's message, cutting the end at
 * 511 bytes; a no-op when err is NULL. Never fails. */
void hp_err_prefix(struct hp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* malloc, calloc, realloc and strdup that never return NULL (see above):
 * a size of 0 allocates 1 byte, so the result is always a pointer the
 * caller frees with free(). xrealloc(NULL, n) is xmalloc(n). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A printf-style string in a new heap buffer; never NULL; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called before abort() on out-of-memory; the TUI uses it to end curses.
 * NULL removes it. */
void hp_set_fatal_hook(void (*hook)(void));

/* Copy at most dstsize-1 bytes and NUL-terminate (nothing is written when
 * dstsize is 0). Returns strlen(src): a result >= dstsize means it was
 * cut. */
size_t hp_strlcpy(char *dst, const char *src, size_t dstsize);

/* 1 when a and b are equal ignoring ASCII case, else 0. */
int hp_strieq(const char *a, const char *b);

/* Lower-case src without '-', '_', ' ', '.' into dst (a comparison key),
 * NUL-terminated and cut to dstsize-1 bytes; nothing when dstsize is 0. */
void hp_name_key(char *dst, size_t dstsize, const char *src);

/* Levenshtein distance between a and b ignoring ASCII case (for "did you
 * mean"); 99 when either is over 63 bytes (too long to be a typo). */
int hp_edit_distance(const char *a, const char *b);

/* The number parsers below take a non-negative decimal number with no
 * sign, space, hex or inf/nan. Each returns 0 and sets *out, or -1 and
 * leaves *out alone; s may be NULL (-1), out may not (asserted). */

/* Parse a plain number ("0.05", "400", "1e3"), no suffix: the parser of
 * every numeric flag without a unit (--rate, --mem-headroom, --nic-gbps).
 * Returns 0 or -1; the caller checks the range. */
int hp_parse_number(const char *s, double *out);

/* Parse a count with an optional SI suffix: "2T" = 2e12, "1.5M", "300B",
 * "4k". Returns 0 on success, -1 if s is not such a finite number. */
int hp_parse_quantity(const char *s, double *out);

/* Parse a byte size: "8", "64K" (KiB), "1MiB", "4GB" (1e9), "2G" (GiB).
 * K/M/G/T alone and KiB/MiB/GiB/TiB are powers of two; KB/MB/GB/TB are
 * powers of ten. Returns 0 or -1. */
int hp_parse_bytes(const char *s, double *out);

/* The longest duration hetplan accepts: 100 years (3.156e9 s), far beyond
 * any training run; longer values are typing mistakes (--deadline 1e306w). */
#define HP_MAX_DURATION_S (100 * 365.25 * 86400)

/* Parse a duration: "30d", "12h", "90m", "3600s", "2w", at most
 * HP_MAX_DURATION_S. Returns 0 or -1. */
int hp_parse_duration(const char *s, double *seconds);

/* Parse a strictly positive integer that fits in int (decimal digits
 * only). Returns 0 or -1 (*out untouched). */
int hp_parse_int(const char *s, int *out);

/* The largest file hetplan reads: 256 MiB. Its largest real input, a
 * SkyPilot vms.csv of all clouds, is about 30 MB (2026); the limit is
 * checked while reading, so /dev/zero costs at most this much memory. */
#define HP_READ_MAX ((size_t)256 << 20)

/* Read a whole file (or pipe, or device) into a NUL-terminated heap buffer
 * (caller frees), at most HP_READ_MAX bytes; *len (if len is not NULL)
 * gets its length. Returns NULL with err (HP_EXIT_INPUT, naming the path)
 * when it cannot be opened or read or is too large. */
char *hp_read_file(const char *path, size_t *len, struct hp_err *err);

/* The same for caches and configuration: only a regular file is read; a
 * FIFO, device or directory fails at once ("not a regular file") instead
 * of blocking. */
char *hp_read_regular_file(const char *path, size_t *len, struct hp_err *err);

/* Write data to path atomically: a new temporary file next to path (opened
 * O_EXCL | O_NOFOLLOW, so a planted name or symlink is never written
 * through), fsync, the old file's mode kept, rename, fsync of the
 * directory. The temporary name is short (".hp-tmp.PID.RANDOM", util.c),
 * so every legal file name, NAME_MAX bytes included, can be written.
 * Temporary files of killed hetplan processes in that directory are
 * removed first. The old file stays intact on any failure.
 * Returns 0, or -1 with err naming path: HP_EXIT_USAGE when path names a
 * directory, HP_EXIT_FAIL for any I/O error. */
int hp_write_file_atomic(const char *path, const void *data, size_t len,
			 struct hp_err *err);

/* Monotonic clock in seconds (CLOCK_MONOTONIC): differences only. */
double hp_now(void);

/* Human formats into caller buffers (cut to n-1 bytes, like snprintf);
 * return buf. */
char *hp_fmt_bytes(char *buf, size_t n, double bytes);     /* "38.2 GiB" */
char *hp_fmt_duration(char *buf, size_t n, double s);      /* "3.4 d" */
char *hp_fmt_count(char *buf, size_t n, double v);         /* "1.2T" */

#define HP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define HP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define HP_MAX(a, b) ((a) > (b) ? (a) : (b))

/* pthread_create with a stack of HP_THREAD_STACK bytes, whatever the
 * process's default (RLIMIT_STACK, or a C library's own smaller one):
 * a search runs on these threads, and its deepest chain (search_inner's
 * frame of about 470 KB; capmilp keeps its 170 KB tables thread-local) must not depend on
 * the user's ulimit. Returns pthread_create's result. */
#define HP_THREAD_STACK ((size_t)16 << 20)
int hp_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

#endif
