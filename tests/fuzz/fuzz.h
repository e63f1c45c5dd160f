/* fuzz.h — shared setup of hetplan's fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * Each target defines LLVMFuzzerTestOneInput. `make fuzz` links each with
 * libFuzzer (clang -fsanitize=fuzzer,address,undefined); `make check`
 * compiles them all into tests/test_fuzz_replay.c, which feeds every file
 * of tests/fuzz/corpus/NAME/ to target NAME once (gcc or clang, and under
 * ASan + UBSan in `make asan`). Inputs are copied into a buffer of exactly
 * their size plus a NUL, as hp_read_file and the HTTP layer hand them on. */
#ifndef HP_FUZZ_H
#define HP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "utf8.h"
#include "util.h"

/* The embedded catalogs only: no user overrides from ~/.config. */
__attribute__((unused)) static const struct catalog *fuzz_catalog(void)
{
	static struct catalog cat;
	static int loaded;
	if (!loaded) {
		struct hp_err err = { 0 };
		if (catalog_load(&cat, "/nonexistent/hetplan-fuzz", &err) < 0)
			abort();
		loaded = 1;
	}
	return &cat;
}

__attribute__((unused)) static char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An error message about an input that is UTF-8 without C1 controls and
 * without a backslash holds no "\xNN" (the terminal form of a byte that
 * is no UTF-8): one there is a name cut inside a character by a bounded
 * buffer ("%.24s", strncat). Aborts otherwise. */
__attribute__((unused)) static void fuzz_msg_whole(const char *in, size_t size, const char *msg)
{
	if (memchr(in, '\\', size) || strlen(in) != size)
		return;
	for (size_t i = 0; i < size;) {
		unsigned cp;
		int k = utf8_len(in + i, &cp);
		if (!k || (cp >= 0x80 && cp <= 0x9f))
			return;
		i += (size_t)k;
	}
	if (strstr(msg, "\\x"))
		abort();
}

#endif
