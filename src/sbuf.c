/* sbuf.c — growing text buffer (see sbuf.h). */
#include "sbuf.h"
#include "util.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbuf_init(struct sbuf *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
}

void sbuf_done(struct sbuf *b)
{
	free(b->s);
	sbuf_init(b);
}

static void grow(struct sbuf *b, size_t need)
{
	if (b->len + need + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + need + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	assert(b && (s || !n));
	grow(b, n);
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_add(struct sbuf *b, const char *s)
{
	assert(s);
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addc(struct sbuf *b, char c)
{
	sbuf_addn(b, &c, 1);
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	assert(b && fmt);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sbuf_take(struct sbuf *b, size_t *len)
{
	char *s = b->s ? b->s : xstrdup("");
	if (len)
		*len = b->len;
	sbuf_init(b);
	return s;
}
