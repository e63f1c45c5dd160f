/* util.c — allocation with one out-of-memory policy, error messages, and the
 * number and size parsers every front end shares. */
#include "util.h"
#include "utf8.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>

static void (*fatal_hook)(void);

void hp_set_fatal_hook(void (*hook)(void)) { fatal_hook = hook; }

static void oom(size_t n)
{
	if (fatal_hook)
		fatal_hook();
	fprintf(stderr, "hetplan: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	char *s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

int hp_err_set(struct hp_err *err, int code, const char *fmt, ...)
{
	if (!err)
		return -1;
	/* Messages echo values from files and feeds and are shown on a
	 * terminal or in the TUI: control characters go through the terminal
	 * form (utf8.h) here, once for every message. */
	char raw[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	if (w >= (int)sizeof raw) {
		/* cut by the buffer: a character cut at the end goes whole
		 * (a path of euro signs ended in "\xE2\x82") */
		size_t i = strlen(raw);
		while (i > 0 && ((unsigned char)raw[i - 1] & 0xC0) == 0x80)
			i--;
		if (i > 0 && (unsigned char)raw[i - 1] >= 0xC0 && !utf8_len(raw + i - 1, NULL))
			raw[i - 1] = '\0';
	}
	utf8_term_buf(err->msg, sizeof err->msg, raw);
	err->code = code;
	return -1;
}

void hp_err_prefix(struct hp_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	char pre[256], old[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof old);
	size_t n = hp_strlcpy(err->msg, pre, sizeof err->msg);
	if (n + 2 < sizeof err->msg) {
		memcpy(err->msg + n, ": ", 3);
		hp_strlcpy(err->msg + n + 2, old, sizeof err->msg - n - 2);
	}
}

size_t hp_strlcpy(char *dst, const char *src, size_t dstsize)
{
	assert(src && (dst || !dstsize));
	size_t n = strlen(src);
	if (dstsize) {
		size_t c = n < dstsize - 1 ? n : dstsize - 1;
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

int hp_strieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return 0;
	return *a == *b;
}

void hp_name_key(char *dst, size_t dstsize, const char *src)
{
	size_t j = 0;
	for (; *src && j + 1 < dstsize; src++) {
		unsigned char c = (unsigned char)*src;
		if (c == '-' || c == '_' || c == ' ' || c == '.')
			continue;
		dst[j++] = (char)tolower(c);
	}
	if (dstsize)
		dst[j] = '\0';
}

int hp_edit_distance(const char *a, const char *b)
{
	assert(a && b);
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 99;
	int row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = tolower((unsigned char)a[i - 1]) !=
				   tolower((unsigned char)b[j - 1]);
			int v = diag + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
		}
	}
	return row[lb];
}

/* Parse the leading finite, non-negative decimal number of s; *end points
 * past it. */
static int parse_number(const char *s, double *v, const char **end)
{
	char *e;
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtod(s, &e);
	if (e == s || errno || !isfinite(*v) || *v < 0)
		return -1;
	/* strtod accepts hex and "inf"/"nan"; a user typing those meant
	 * something else. */
	if (strpbrk(s, "xXnN") && strpbrk(s, "xXnN") < e)
		return -1;
	*end = e;
	return 0;
}

int hp_parse_number(const char *s, double *out)
{
	assert(out);
	double v;
	const char *e;
	if (parse_number(s, &v, &e) || *e)
		return -1;
	*out = v;
	return 0;
}

int hp_parse_quantity(const char *s, double *out)
{
	assert(out);
	double v;
	const char *e;
	if (parse_number(s, &v, &e))
		return -1;
	double mul = 1;
	switch (*e) {
	case '\0': break;
	case 'k': case 'K': mul = 1e3; e++; break;
	case 'm': case 'M': mul = 1e6; e++; break;
	case 'b': case 'B': case 'g': case 'G': mul = 1e9; e++; break;
	case 't': case 'T': mul = 1e12; e++; break;
	case 'p': case 'P': mul = 1e15; e++; break;
	default: return -1;
	}
	if (*e)
		return -1;
	if (!isfinite(v * mul))
		return -1;
	*out = v * mul;
	return 0;
}

int hp_parse_bytes(const char *s, double *out)
{
	assert(out);
	double v;
	const char *e;
	if (parse_number(s, &v, &e))
		return -1;
	static const struct { const char *suffix; double mul; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1024.0 }, { "KiB", 1024.0 }, { "KB", 1e3 }, { "kB", 1e3 },
		{ "M", 1048576.0 }, { "MiB", 1048576.0 }, { "MB", 1e6 },
		{ "G", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB", 1e9 },
		{ "T", 1099511627776.0 }, { "TiB", 1099511627776.0 }, { "TB", 1e12 },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(units); i++)
		if (!strcmp(e, units[i].suffix)) {
			if (!isfinite(v * units[i].mul))
				return -1;
			*out = v * units[i].mul;
			return 0;
		}
	return -1;
}

int hp_parse_duration(const char *s, double *seconds)
{
	assert(seconds);
	double v;
	const char *e;
	if (parse_number(s, &v, &e))
		return -1;
	double mul;
	if (!strcmp(e, "") || !strcmp(e, "s"))
		mul = 1;
	else if (!strcmp(e, "m") || !strcmp(e, "min"))
		mul = 60;
	else if (!strcmp(e, "h"))
		mul = 3600;
	else if (!strcmp(e, "d"))
		mul = 86400;
	else if (!strcmp(e, "w"))
		mul = 7 * 86400;
	else
		return -1;
	if (!(v * mul <= HP_MAX_DURATION_S))
		return -1;
	*seconds = v * mul;
	return 0;
}

int hp_parse_int(const char *s, int *out)
{
	assert(out);
	char *e;
	if (!s || !*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	long v = strtol(s, &e, 10);
	if (*e || errno || v <= 0 || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* Open path for reading if it is a regular file (checked on the open
 * descriptor, after an O_NONBLOCK open that cannot hang on a FIFO).
 * Returns the descriptor (blocking again), or -1 with err filled. */
static int hp_open_regular(const char *path, struct hp_err *err)
{
	/* O_NONBLOCK: opening a FIFO for reading otherwise waits for a
	 * writer; the descriptor's type is then checked, not the path's, so
	 * nothing can be swapped in between a stat and the open. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

/* Read fd to its end, at most HP_READ_MAX bytes; closes fd. */
static char *read_fd(int fd, const char *path, size_t *len, struct hp_err *err)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (n > HP_READ_MAX) {
				close(fd);
				free(buf);
				hp_err_set(err, HP_EXIT_INPUT,
					   "%s: file larger than %d MiB", path,
					   (int)(HP_READ_MAX >> 20));
				return NULL;
			}
			/* Never more than one byte past the limit, so a
			 * device without end costs at most HP_READ_MAX. */
			cap = HP_MIN(cap * 2, (size_t)HP_READ_MAX + 2);
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			hp_err_set(err, HP_EXIT_INPUT, "%s: read error: %s", path,
				   strerror(errno));
			close(fd);
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *hp_read_file(const char *path, size_t *len, struct hp_err *err)
{
	assert(path);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		hp_err_set(err, HP_EXIT_INPUT, "%s: is a directory", path);
		return NULL;
	}
	return read_fd(fd, path, len, err);
}

char *hp_read_regular_file(const char *path, size_t *len, struct hp_err *err)
{
	assert(path);
	int fd = hp_open_regular(path, err);
	return fd < 0 ? NULL : read_fd(fd, path, len, err);
}

/* Temporary files are ".hp-tmp.PID.RANDOM" (at most 8 + 20 + 1 + 8 = 37
 * bytes) in the directory of the file they become: the same directory, so
 * rename() is atomic; a dot name, so listings skip it; the PID, so a later
 * write can remove what a killed process left; and short, so any legal
 * name (up to NAME_MAX, 255 bytes on Linux) can be written, where the
 * name folded into the temporary one (".NAME.hp-tmp.PID.RANDOM", hetplan
 * before December 2026) left no room for names above ~225 bytes. */
#define TMP_TAG ".hp-tmp."

/* The PID of a temporary file name of ours, tail (what follows TMP_TAG:
 * "PID.RANDOM"), when its process is gone and it may be removed; 0 when
 * it is not one, or its process may still run (or is ours). */
static long stale_pid(const char *tail)
{
	char *end;
	long pid = strtol(tail, &end, 10);
	if (pid <= 0 || *end != '.' || pid == (long)getpid() ||
	    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return pid;
}

/* Remove the temporary files in dir whose process is gone: ours of any
 * name (TMP_TAG first), and those of the older form for base
 * ("." base TMP_TAG). */
static void sweep_stale(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t bl = strlen(base), tl = strlen(TMP_TAG);
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *n = e->d_name, *tail;
		if (!strncmp(n, TMP_TAG, tl))
			tail = n + tl;
		else if (n[0] == '.' && !strncmp(n + 1, base, bl) &&
			 !strncmp(n + 1 + bl, TMP_TAG, tl))
			tail = n + 1 + bl + tl;
		else
			continue;
		if (!stale_pid(tail))
			continue;
		/* unlinkat removes a link itself, never its target. */
		struct stat st;
		if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && st.st_uid == getuid())
			unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

static unsigned long tmp_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	static unsigned long count;
	return (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20) ^
	       ((unsigned long)getpid() << 8) ^ (++count * 2654435761UL);
}

int hp_write_file_atomic(const char *path, const void *data, size_t len,
			 struct hp_err *err)
{
	assert(path && (data || !len));
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - path + (slash == path)), path)
			  : xstrdup(".");
	const char *base = slash ? slash + 1 : path;
	if (!*base) {
		free(dir);
		return hp_err_set(err, HP_EXIT_USAGE, "%s: a directory, not a file name", path);
	}
	sweep_stale(dir, base);
	/* Keep the mode of the file being replaced (a 0600 file stays 0600);
	 * a new file gets 0644 less the umask, as open() would give it. */
	struct stat old;
	int keep_mode = lstat(path, &old) == 0 && S_ISREG(old.st_mode);
	/* O_EXCL | O_NOFOLLOW: a name planted in a shared directory, symlink
	 * or not, makes the open fail (EEXIST, ELOOP) and we draw another
	 * name; nothing outside the new file is ever opened for writing. Not
	 * mkstemp: it creates 0600 files and ignores the umask. */
	char *tmp = NULL;
	int fd = -1;
	for (int tries = 0; tries < 64 && fd < 0; tries++) {
		free(tmp);
		tmp = xasprintf("%s/" TMP_TAG "%ld.%08lx", dir, (long)getpid(),
				tmp_seed() & 0xffffffffUL);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST && errno != ELOOP)
			break;
	}
	if (fd < 0) {
		hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(errno));
		free(tmp);
		free(dir);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		left -= (size_t)w;
	}
	if (keep_mode && fchmod(fd, old.st_mode & 07777) < 0)
		goto fail;
	if (fsync(fd) < 0 && errno != EINVAL)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	/* The rename is durable only once the directory is on disk. */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(dir);
	return 0;
fail:
	hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(dir);
	return -1;
}

double hp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

char *hp_fmt_bytes(char *buf, size_t n, double b)
{
	static const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t i = 0;
	double v = b < 0 ? -b : b;
	while (v >= 1024 && i + 1 < HP_ARRAY_LEN(u)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, n, "%s%.*f %s", b < 0 ? "-" : "", i ? 1 : 0, v, u[i]);
	return buf;
}

char *hp_fmt_duration(char *buf, size_t n, double s)
{
	if (!isfinite(s))
		snprintf(buf, n, "-");
	else if (s < 1e-3)
		snprintf(buf, n, "%.1f us", s * 1e6);
	else if (s < 1)
		snprintf(buf, n, "%.1f ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, n, "%.2f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.1f min", s / 60);
	else if (s < 172800)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s < 365 * 86400.0)
		snprintf(buf, n, "%.1f d", s / 86400);
	else /* a year of 365 days, as the interface's plan table counts */
		snprintf(buf, n, "%.1f y", s / (365 * 86400.0));
	return buf;
}

char *hp_fmt_count(char *buf, size_t n, double v)
{
	static const struct { double d; const char *s; } u[] = {
		{ 1e15, "P" }, { 1e12, "T" }, { 1e9, "B" }, { 1e6, "M" }, { 1e3, "K" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(u); i++)
		if (v >= u[i].d) {
			snprintf(buf, n, "%.*f%s", v / u[i].d < 10 ? 2 : 1,
				 v / u[i].d, u[i].s);
			return buf;
		}
	snprintf(buf, n, "%.0f", v);
	return buf;
}

int hp_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	pthread_attr_t at;
	if (pthread_attr_init(&at) != 0)
		return pthread_create(th, NULL, fn, arg);
	int rc = pthread_attr_setstacksize(&at, HP_THREAD_STACK);
	rc = rc == 0 ? pthread_create(th, &at, fn, arg) : pthread_create(th, NULL, fn, arg);
	pthread_attr_destroy(&at);
	return rc;
}
