/* test_fuzz_replay.c — replay every committed fuzz input (make check).
 *
 * Each target of tests/fuzz/ is compiled in here under its own name, and
 * every file in tests/fuzz/corpus/NAME/ is fed to it once: seeds written
 * by hand and every input a fuzzing run found crashing (fixed since). A
 * memory error or undefined behaviour aborts the run under `make asan`;
 * in a plain build the replay still catches crashes and hangs. Run from the
 * repository root (tests/run.sh does). A target passes when its directory
 * holds at least one input and every input returned. */
#include "t.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#define LLVMFuzzerTestOneInput fuzz_cluster
#include "fuzz/fuzz_cluster.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_model
#include "fuzz/fuzz_model.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_plan
#include "fuzz/fuzz_plan.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_pool
#include "fuzz/fuzz_pool.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_skypilot
#include "fuzz/fuzz_skypilot.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_azure
#include "fuzz/fuzz_azure.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_feed
#include "fuzz/fuzz_feed.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_workspace
#include "fuzz/fuzz_workspace.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_gpus
#include "fuzz/fuzz_gpus.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_launch
#include "fuzz/fuzz_launch.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_flags
#include "fuzz/fuzz_flags.c"
#undef LLVMFuzzerTestOneInput

static const struct {
	const char *name;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{ "cluster", fuzz_cluster }, { "model", fuzz_model }, { "plan", fuzz_plan },
	{ "pool", fuzz_pool }, { "skypilot", fuzz_skypilot }, { "azure", fuzz_azure },
	{ "feed", fuzz_feed }, { "workspace", fuzz_workspace }, { "gpus", fuzz_gpus },
	{ "launch", fuzz_launch }, { "flags", fuzz_flags },
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every regular file of tests/fuzz/corpus/NAME to fn, in name order.
 * Returns how many. */
static int replay(const char *name, int (*fn)(const uint8_t *, size_t))
{
	char dir[256];
	snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", name);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **files = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		files = xrealloc(files, (size_t)(n + 1) * sizeof *files);
		files[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	qsort(files, (size_t)n, sizeof *files, name_cmp);
	int done = 0;
	for (int i = 0; i < n; i++) {
		struct hp_err err = { 0 };
		size_t len = 0;
		char *buf = hp_read_regular_file(files[i], &len, &err);
		if (buf) {
			fn((const uint8_t *)buf, len);
			free(buf);
			done++;
		}
		free(files[i]);
	}
	free(files);
	return done;
}

int main(void)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(targets); i++) {
		t_cur = targets[i].name;
		t_cur_failed = 0;
		int n = replay(targets[i].name, targets[i].fn);
		if (n == 0)
			T_FAILF("no inputs in tests/fuzz/corpus/%s", targets[i].name);
		if (t_cur_failed)
			t_fail++;
		else
			t_pass++;
	}
	return t_done("fuzz_replay");
}
