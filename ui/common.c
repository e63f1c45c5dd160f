/* common.c — what every command and the TUI share: error printing, input
 * checks, building the cluster and loading the model, the plan flags,
 * output formats and writing -o files. Nothing here knows of a command. */
#include "common.h"
#include "dispatch.h"
#include "escape.h"
#include "jsonx.h"
#include "pricing.h"
#include "report.h"
#include "utf8.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

int cli_fail(const struct hp_err *err, int fallback)
{
	assert(err);
	/* the message can quote a file name, key or value as given: through
	 * the terminal sink, a line at a time */
	char line[sizeof err->msg], shown[4 * sizeof err->msg];
	const char *p = err->msg;
	fputs("hetplan: ", stderr);
	do {
		size_t k = strcspn(p, "\n");
		memcpy(line, p, k);
		line[k] = '\0';
		fprintf(stderr, "%s\n", esc_term_buf(shown, sizeof shown, line));
		p += k;
	} while (*p && *++p);
	return err->code ? err->code : fallback;
}

/* Each output format's --format name; the file extensions are the
 * reports' (report_format_from_path), the table format has none. */
static const char *const cli_formats[] = {
	[FMT_TABLE] = "table", [FMT_JSON] = "json", [FMT_CSV] = "csv", [FMT_MD] = "md",
	[FMT_HTML] = "html",
};

int cli_parse_format(const char *s, enum cli_format *f, unsigned allowed)
{
	assert(s && f);
	for (unsigned i = 0; i < HP_ARRAY_LEN(cli_formats); i++)
		if ((allowed & (1u << i)) && !strcmp(s, cli_formats[i])) {
			*f = (enum cli_format)i;
			return 0;
		}
	return -1;
}

int cli_format_from_path(const char *path, enum cli_format *f, unsigned allowed)
{
	static const enum cli_format of[REPORT_FORMAT_COUNT] = {
		[REPORT_MD] = FMT_MD, [REPORT_HTML] = FMT_HTML, [REPORT_JSON] = FMT_JSON,
		[REPORT_CSV] = FMT_CSV,
	};
	enum report_format rf;
	if (!path || report_format_from_path(path, &rf) < 0 || !(allowed & (1u << of[rf])))
		return -1;
	*f = of[rf];
	return 0;
}

char *cli_format_names(char *buf, size_t n, unsigned allowed, const char *sep, const char *last)
{
	size_t o = 0;
	int left = 0;
	for (unsigned i = 0; i < HP_ARRAY_LEN(cli_formats); i++)
		left += (allowed >> i) & 1u;
	buf[0] = 0;
	for (unsigned i = 0; i < HP_ARRAY_LEN(cli_formats) && o < n; i++) {
		if (!((allowed >> i) & 1u))
			continue;
		int w = snprintf(buf + o, n - o, "%s%s", o ? (left == 1 ? last : sep) : "",
				 cli_formats[i]);
		if (w < 0)
			break;
		o += (size_t)w;
		left--;
	}
	return buf;
}

int cli_check_inputs(const char *cmd, int argc, char **argv, const char *model_arg,
		     const char *cluster_file, int n_pools)
{
	if (optind < argc) {
		fprintf(stderr, "hetplan %s: unexpected argument '%s'\n", cmd, cli_shown(argv[optind]));
		return HP_EXIT_USAGE;
	}
	if (!model_arg) {
		fprintf(stderr, "hetplan %s: -m MODEL is required (a preset or a JSON file)\n", cmd);
		return HP_EXIT_USAGE;
	}
	if (!cluster_file && !n_pools) {
		fprintf(stderr, "hetplan %s: give a cluster: -c CLUSTER.json or --pool SPEC\n", cmd);
		return HP_EXIT_USAGE;
	}
	return 0;
}

int cli_getopt_error(const char *cmd, int o, char **argv)
{
	assert(cmd && argv && optind > 0);
	if (o == ':')
		fprintf(stderr, "hetplan %s: %s: missing value\n", cmd, cli_shown(argv[optind - 1]));
	else
		fprintf(stderr, "hetplan %s: unknown option '%s' (try --help)\n", cmd,
			cli_shown(argv[optind - 1]));
	return HP_EXIT_USAGE;
}

int cli_add_pool(const char *cmd, struct cli_inputs *in, const char *spec)
{
	assert(cmd && in && spec);
	if (in->n_pools == HP_MAX_POOLS) {
		fprintf(stderr, "hetplan %s: --pool: at most %d pools\n", cmd, HP_MAX_POOLS);
		return HP_EXIT_USAGE;
	}
	in->pools[in->n_pools++] = spec;
	return 0;
}

int cli_load_inputs(const char *cmd, int argc, char **argv, const struct cli_inputs *in,
		    int use_price_book, const struct catalog *cat, struct cluster *c,
		    struct model_spec *m)
{
	struct hp_err err = { 0 };
	int rc;
	if ((rc = cli_check_inputs(cmd, argc, argv, in->model_arg, in->cluster_file,
				   in->n_pools)))
		return rc;
	if ((rc = cli_build_cluster(cmd, in->cluster_file, in->pools, in->n_pools,
				    use_price_book, cat, c)))
		return rc;
	if (cli_load_model(cat, in->model_arg, m, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	return 0;
}

int cli_build_cluster(const char *cmd, const char *cluster_file, const char *const *pools,
		      int n_pools, int use_price_book, const struct catalog *cat,
		      struct cluster *c)
{
	assert(cmd && cat && c && (pools || !n_pools));
	struct hp_err err = { 0 };
	if (cluster_file && cluster_load(c, cluster_file, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	for (int i = 0; i < n_pools; i++)
		if (cluster_add_pool_spec(c, pools[i], cat, &err) < 0)
			return cli_fail(&err, HP_EXIT_USAGE);
	if (!use_price_book)
		return 0;
	/* Pools without an explicit price take the price book's cheapest
	 * matching offer (snapshot + cache; never the network). */
	struct price_config pc;
	struct price_book pb;
	if (pricing_config_load(&pc, NULL, &err) < 0 || pricing_load(&pb, &pc, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	if (*pb.warnings)
		fprintf(stderr, "hetplan %s: warning: %s\n", cmd, pb.warnings);
	pricing_apply(&pb, c);
	pricing_free(&pb);
	return 0;
}

void cli_usage(FILE *f, const char *usage, const char *help)
{
	assert(f && usage && help);
	fprintf(f, "usage: %s%s", usage, help);
}

const char *cli_shown(const char *arg)
{
	static char shown[256];
	return esc_term_buf(shown, sizeof shown, arg ? arg : "");
}

int usage_error(const char *cmd, const char *flag, const char *want, const char *got)
{
	char shown[128];   /* the value as typed, through the terminal sink */
	fprintf(stderr, "hetplan %s: --%s: expected %s, got '%s'\n", cmd, flag, want,
		esc_term_buf(shown, sizeof shown, got));
	return HP_EXIT_USAGE;
}

int cli_model_is_file(const struct catalog *cat, const char *arg)
{
	struct stat st;
	return !catalog_model(cat, arg) || stat(arg, &st) == 0;
}

int cli_load_model(const struct catalog *cat, const char *arg,
		   struct model_spec *out, struct hp_err *err)
{
	assert(cat && arg && out);
	const struct model_spec *m = catalog_model(cat, arg);
	struct stat st;
	if (m && !cli_model_is_file(cat, arg)) {
		*out = *m;
		return 0;
	}
	if (stat(arg, &st) != 0) {
		if (strchr(arg, '/') || strstr(arg, ".json"))
			return hp_err_set(err, HP_EXIT_INPUT, "-m %s: no such file", arg);
		return catalog_model_unknown(cat, arg, "-m", err);
	}
	size_t len;
	char *text = hp_read_file(arg, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, arg, err);
	free(text);
	if (!root)
		return -1;
	int rc = catalog_parse_model(root, arg, "", out, err);
	cJSON_Delete(root);
	return rc;
}

/* Writes all of data to fd, an open descriptor; 0, or -1 with err naming
 * path. */
static int write_fd_all(int fd, const char *path, const void *data, size_t len,
			struct hp_err *err)
{
	const char *p = data;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path,
					  strerror(w < 0 ? errno : EIO));
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The descriptor path names (/dev/stdin, /dev/stdout, /dev/stderr,
 * /dev/fd/N, /proc/self/fd/N and their spellings through the links /dev/fd
 * and /proc/self): the descriptor number, or -1 for any other path. The
 * directory part is resolved (realpath), so /dev/fd/3 and /proc/self/fd/3
 * both come out as /proc/PID/fd/3; the last part is not, since following it
 * reaches the file the descriptor has open, not the descriptor. */
static int descriptor_of_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash && slash - path >= 4096)
		return -1;
	char dir[4096], real[4096];
	/* "stdout" run in /dev, and "/x", resolve too */
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	char *resolved = realpath(dir, NULL);
	if (!resolved)
		return -1;
	snprintf(real, sizeof real, "%.4000s", resolved);
	free(resolved);
	const char *base = slash ? slash + 1 : path;
	if (!strcmp(real, "/dev")) {
		static const char *const std_names[] = { "stdin", "stdout", "stderr" };
		for (int i = 0; i < 3; i++)
			if (!strcmp(base, std_names[i]))
				return i;
		return -1;
	}
	char self[64], thread[96];
	snprintf(self, sizeof self, "/proc/%ld/fd", (long)getpid());
	int is_thread = 0, n = 0;
	long tid = 0;
	if (sscanf(real, "/proc/%*d/task/%ld/fd%n", &tid, &n) == 1 && !real[n]) {
		snprintf(thread, sizeof thread, "/proc/%ld/task/%ld/fd", (long)getpid(), tid);
		is_thread = !strcmp(real, thread);
	}
	if (strcmp(real, self) && !is_thread)
		return -1;
	if (!*base || strspn(base, "0123456789") != strlen(base) || strlen(base) > 9)
		return -1;
	return atoi(base);
}

/* Data to descriptor fd, already open in this process: written at its
 * present offset and with its flags (O_APPEND included), as a shell's
 * `>&N` would, so a `{ echo header; hetplan ... -o /dev/stdout; } >file`
 * keeps the header and `-o /dev/stdout >>log` appends. Opening the path
 * anew would start a second offset at byte 0 and overwrite what the
 * shell had written. Standard output goes the way of -o -. */
static int write_descriptor(int fd, const char *path, const void *data, size_t len,
			    struct hp_err *err)
{
	if (fd == STDOUT_FILENO) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
			/* said here, with the errno; the stream's error flag is
			 * cleared so main's check at exit does not say it again */
			int e = errno;
			clearerr(stdout);
			return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(e));
		}
		return 0;
	}
	if (fcntl(fd, F_GETFD) < 0)
		return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(EBADF));
	if (fd == STDERR_FILENO)
		fflush(stderr);
	return write_fd_all(fd, path, data, len, err);
}

/* Data to an existing device or FIFO named as itself (/dev/null, a named
 * pipe): written in place, as a shell redirection would. Renaming a new
 * file over it, as hp_write_file_atomic does, would replace the device node
 * itself where its directory is writable (root in a container: /dev/null
 * became a regular file) and fail with EACCES elsewhere. O_NOFOLLOW: a
 * link put at the name between the lstat and here makes the open fail
 * rather than write through it. */
static int write_in_place(const char *path, const void *data, size_t len, struct hp_err *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(errno));
	if (write_fd_all(fd, path, data, len, err) < 0) {
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return hp_err_set(err, HP_EXIT_FAIL, "%s: %s", path, strerror(errno));
	return 0;
}

int cli_write_output(const char *path, const void *data, size_t len, struct hp_err *err)
{
	assert(path && (data || !len));
	struct stat st, target;
	if (!strcmp(path, "-"))
		return write_descriptor(STDOUT_FILENO, "standard output", data, len, err);
	int fd = descriptor_of_path(path);
	if (fd >= 0)
		return write_descriptor(fd, path, data, len, err);
	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
		return hp_write_file_atomic(path, data, len, err);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode) ||
	    S_ISSOCK(st.st_mode))
		return write_in_place(path, data, len, err);
	if (S_ISDIR(st.st_mode))
		return hp_err_set(err, HP_EXIT_USAGE, "%s: a directory, not a file name", path);
	/* A link, anywhere (/dev/shm, which anyone may write, included), is
	 * never followed: one to a regular file or to nothing is replaced by
	 * the new file, so a link planted at the output name cannot redirect
	 * the write. One to a device or a directory is refused: replacing it
	 * would take a name the system put there. */
	if (S_ISLNK(st.st_mode) && (stat(path, &target) != 0 || S_ISREG(target.st_mode)))
		return hp_write_file_atomic(path, data, len, err);
	return hp_err_set(err, HP_EXIT_USAGE,
			  "%s: a symbolic link to something other than a regular file; "
			  "name its target itself, or a new file", path);
}

int cli_load_plan_file(struct plan *p, const char *path, int rank, const struct cluster *c,
		       double *tokens, struct hp_err *err)
{
	size_t len;
	char *text = hp_read_file(path, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, path, err);
	if (!root) {
		free(text);
		return -1;
	}
	int obj = cJSON_IsObject(root);
	const cJSON *plans = obj ? cJSON_GetObjectItemCaseSensitive(root, "plans") : NULL;
	const cJSON *tk = obj ? cJSON_GetObjectItemCaseSensitive(root, "tokens") : NULL;
	if (tokens && cJSON_IsNumber(tk) && tk->valuedouble > 0 && *tokens <= 0)
		*tokens = tk->valuedouble;
	char where[300];
	cJSON *entry = root;
	int rc = 0;
	snprintf(where, sizeof where, "%.250s", path);
	if (plans) {
		int n = cJSON_IsArray(plans) ? cJSON_GetArraySize(plans) : -1;
		if (n < 0)
			rc = hp_err_set(err, HP_EXIT_INPUT, "%s: plans: expected an array", path);
		else if (rank > n)   /* a flag's value out of range, as report's --rank */
			rc = hp_err_set(err, HP_EXIT_USAGE, "%s: --rank %d: the file has %d plan%s",
					path, rank, n, n == 1 ? "" : "s");
		entry = rc ? NULL : cJSON_GetArrayItem(plans, rank - 1);
		snprintf(where, sizeof where, "%.250s: plans[%d]", path, rank - 1);
	}
	if (entry && (plans || cJSON_GetObjectItemCaseSensitive(entry, "runs_on"))) {
		/* a plan entry of the planner's or the report's JSON: its
		 * report-only keys go before the plan's own parser sees it */
		report_plan_strip_extras(entry);
		char *one = cJSON_PrintUnformatted(entry);
		rc = plan_parse_json(p, one, strlen(one), where, c, err);
		free(one);
	} else if (entry) {
		/* a plan object as written: errors point into the file's text */
		rc = plan_parse_json(p, text, len, path, c, err);
	}
	cJSON_Delete(root);
	free(text);
	return rc < 0 ? -1 : rc;
}

void cli_print_csv(FILE *f, const char *s)
{
	struct sbuf b;
	sbuf_init(&b);
	esc_csv(&b, s);
	fputs(b.s ? b.s : "", f);
	sbuf_done(&b);
}

void cli_print_term(FILE *f, const char *s, int cols)
{
	struct sbuf b;
	sbuf_init(&b);
	esc_term(&b, s);
	const char *t = b.s ? b.s : "";
	fprintf(f, "%s%*s", t, HP_MAX(cols - utf8_cols(t), 0), "");
	sbuf_done(&b);
}

int plan_transport_text(const struct cluster *c, const struct plan *p, char *buf, size_t n)
{
	int used[HP_MAX_POOLS], nt = 0;
	size_t len = 0;
	if (n)
		buf[0] = '\0';
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++) {
		if (!used[i] || c->pools[i].transport == COMM_TRANSPORT_IB)
			continue;
		char one[96];
		int l = snprintf(one, sizeof one, "%s%s %s", nt ? ", " : "", c->pools[i].name,
				 comm_transport_name(c->pools[i].transport));
		nt++;
		/* a name that would not fit whole is left out, never cut */
		if (l > 0 && len + (size_t)l < n) {
			memcpy(buf + len, one, (size_t)l + 1);
			len += (size_t)l;
		}
	}
	return nt;
}

void plan_links_text(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		     struct plan_links *out)
{
	struct dispatch d;
	struct hp_err err = { 0 };
	out->n = 0;
	if (dispatch_plan(c, m, p, &d, &err) == 0) {
		for (int i = 0; i < DIM_COUNT; i++)
			if (d.links[i][0])
				snprintf(out->line[out->n++], PLAN_LINKS_LINE_MAX, "%s links: %s",
					 perf_dim_name((enum perf_dim)i), d.links[i]);
		dispatch_free(&d);
	}
	char tr[PLAN_LINKS_LINE_MAX - 16];
	if (plan_transport_text(c, p, tr, sizeof tr))
		snprintf(out->line[out->n++], PLAN_LINKS_LINE_MAX, "transport: %s", tr);
}
