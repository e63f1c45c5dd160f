/* cli.c — the command table and dispatch: `hetplan COMMAND ...` runs the
 * command's ui/cmd_*.c, anything else opens the TUI (ui/tui.c); plus the
 * introspection flags (--list-options, --list-keys) and `completion`. */
#include "cli.h"
#include "cmd_comm.h"
#include "cmd_launch.h"
#include "cmd_report.h"
#include "cmd_serve.h"
#include "completion.h"
#include "tui.h"
#include "pricing.h"
#include "common.h"
#include "escape.h"
#include "fields_doc.h"
#include "workspace.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* One row a command, in the manner of tmux's cmd_entry: its name, what
 * runs it, its getopt table, its synopsis and the line `hetplan --help`
 * shows. Every listing of commands reads this table: `hetplan --help`,
 * --list-options, the completion scripts (which take each option's value
 * words from the synopsis) and, through them, tests/test_man.sh. */
struct command {
	const char *name;
	int (*run)(int argc, char **argv, const struct catalog *cat);
	const struct option *(*options)(void);
	const char *usage;      /* the synopsis, without "usage: " */
	const char *summary;
	/* A synopsis built from a table (the plan flags), when usage is NULL. */
	const char *(*usage_fn)(void);
};

static int cmd_completion(int argc, char **argv, const struct catalog *cat);

static const struct option completion_options[] = {
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

static const struct option *cmd_completion_options(void)
{
	return completion_options;
}

static const char cmd_completion_usage[] = "hetplan completion bash|zsh|fish\n";
/* Its --help after the synopsis, as the other commands' help texts. */
static const char completion_help[] =
	"\n"
	"  A completion script for the shell named, written from hetplan's own\n"
	"  command and option tables (--list-options reads the same), with the\n"
	"  model presets for -m, the GPU names for --gpu and the formats for\n"
	"  --format. To try it in the running shell:\n"
	"      source <(hetplan completion bash)\n"
	"  make install installs all three.\n"
	"\n"
	"  -h, --help             this text\n"
	"\n"
	"Exit status: 0 ok, 2 usage (no shell, or one not bash, zsh or fish).\n";

/* CMD(name, summary): the command `name` run by cmd_name, with the
 * getopt table of cmd_name_options() and the synopsis cmd_name_usage. */
#define CMD(name, summary) \
	{ #name, cmd_##name, cmd_##name##_options, cmd_##name##_usage, summary, NULL }

static const struct command commands[] = {
	{ "plan", cmd_plan, cmd_plan_options, NULL, "find the best plans for a model on a cluster",
	  cmd_plan_usage },
	{ "estimate", cmd_estimate, cmd_estimate_options, NULL,
	  "evaluate one plan: step time, memory, comm, cost", cmd_estimate_usage },
	{ "comm", cmd_comm, cmd_comm_options, NULL, "time one collective on a given system",
	  cmd_comm_usage },
	CMD(gpus, "list the GPU catalog"),
	{ "models", cmd_models, cmd_catalog_options, cmd_models_usage, "list the model presets", NULL },
	CMD(prices, "GPU prices: embedded, cached, or fetched with --update"),
	CMD(report, "plan a workspace and write a Markdown/HTML/JSON/CSV report"),
	{ "launch", cmd_launch, cmd_launch_options, NULL,
	  "a plan as Megatron-LM, Slurm, DeepSpeed, torchtitan or HF Trainer configs", cmd_launch_usage },
	{ "serve", cmd_serve, cmd_serve_options, NULL,
	  "size and place LLM serving: instances, fleet, latency SLOs", cmd_serve_usage },
	{ "tui", tui_main, tui_options, tui_usage,
	  "the interactive planner (also with no command)", NULL },
	CMD(completion, "print a bash, zsh or fish completion script"),
};
#undef CMD

static const char *command_usage(const struct command *c)
{
	return c->usage ? c->usage : c->usage_fn();
}

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* `hetplan --help`: the TUI's synopsis (the program with no command is
 * the TUI), then one line per command of the table. */
static void usage(FILE *f)
{
	fprintf(f, "usage: %s", command_usage(command_find("tui")));
	fprintf(f, "       hetplan COMMAND [options]\n"
		   "       hetplan --help | --version | --list-fields[=table|json|md|man]\n\n"
		   "With no command (or with a workspace file) hetplan opens the interactive\n"
		   "planner; a command runs in batch mode.\n\ncommands:\n");
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'hetplan COMMAND --help' describes each; 'man hetplan' has the rest.\n");
}

/* ---- introspection: the option and key tables, for the man page check -- */

/* Options the program takes before any command (the TUI's included). */
static const struct option global_options[] = {
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 0 },
	{ "no-color", no_argument, 0, 0 },
	{ "ascii", no_argument, 0, 0 },
	{ "no-mouse", no_argument, 0, 0 },
	{ "list-options", no_argument, 0, 0 },
	{ "list-keys", no_argument, 0, 0 },
	{ "list-fields", optional_argument, 0, 0 },
	{ 0, 0, 0, 0 },
};

static void print_options(const char *cmd, const struct option *o)
{
	for (; o->name; o++) {
		printf("%s --%s\n", cmd, o->name);
		/* The parsers' convention: a lower-case val is also the short
		 * option; other vals (upper case, >= 256) are internal codes. */
		if (!o->flag && o->val >= 'a' && o->val <= 'z')
			printf("%s -%c\n", cmd, o->val);
	}
}

/* `hetplan --list-options`: one "COMMAND --option" line per option, from
 * the same tables the parsers use ("hetplan" for the global ones). */
static int list_all_options(void)
{
	print_options("hetplan", global_options);
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++)
		print_options(commands[i].name, commands[i].options());
	return 0;
}

/* `hetplan completion bash|zsh|fish`: the script, from the same tables
 * --list-options reads, with the catalog's presets and GPU names. */
static int cmd_completion(int argc, char **argv, const struct catalog *cat)
{
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_usage(stdout, cmd_completion_usage, completion_help);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "hetplan completion: expected one shell: bash, zsh or fish\n");
		return HP_EXIT_USAGE;
	}
	struct completion_cmd cc[HP_ARRAY_LEN(commands)];
	int n = 0;
	for (size_t i = 0; i < HP_ARRAY_LEN(commands); i++) {
		cc[n].name = commands[i].name;
		cc[n].summary = commands[i].summary;
		cc[n].opts = commands[i].options();
		cc[n].usage = command_usage(&commands[i]);
		n++;
	}
	if (completion_write(stdout, argv[1], cc, n, global_options, cat) < 0) {
		fprintf(stderr, "hetplan completion: unknown shell '%s' (bash, zsh or fish)\n",
			cli_shown(argv[1]));
		return HP_EXIT_USAGE;
	}
	return 0;
}

/* `hetplan --list-fields[=FORMAT]`: every setting of every table
 * (fields_doc.h); md and man are what `make fields-docs` splices into
 * docs/formats.md and man/hetplan.1. */
static int list_all_fields(const char *arg)
{
	enum fields_doc_format fmt = FIELDS_DOC_TABLE;
	if (arg && fields_doc_format_parse(arg, &fmt) < 0) {
		char shown[64];
		fprintf(stderr, "hetplan: --list-fields: expected table, json, md or man, got '%s'\n",
			esc_term_buf(shown, sizeof shown, arg));
		return HP_EXIT_USAGE;
	}
	int n;
	const struct hp_field_table *const *t = workspace_field_tables(&n);
	char *s = fields_doc(t, n, fmt);
	fputs(s, stdout);
	free(s);
	return 0;
}

/* Whether c's getopt table has the option a ("--name", "--name=v", or
 * "-x" as the val of an entry: -m is --model). */
static int command_takes(const struct command *c, const char *a)
{
	size_t n = a[1] == '-' ? strcspn(a + 2, "=") : 0;
	for (const struct option *o = c->options ? c->options() : NULL; o && o->name; o++)
		if (a[1] == '-' ? strlen(o->name) == n && !strncmp(o->name, a + 2, n)
				: o->val == (unsigned char)a[1])
			return 1;
	return 0;
}

/* An option before the command (`hetplan --pool 2x8xH100 estimate ...`)
 * reaches the interface's parser, which knows only its own options: name
 * the command it belongs after. A leading option the interface takes
 * (-w, --ascii, ...) is left alone, so that `hetplan -w plan` still opens
 * the workspace file named plan. Returns 1 when it printed the message. */
static int option_before_command(int argc, char **argv)
{
	const char *a = argv[1];
	if (a[0] != '-' || !a[1] || command_takes(command_find("tui"), a))
		return 0;
	for (int i = 2; i < argc; i++) {
		const struct command *c = command_find(argv[i]);
		/* only an option the command takes: 'hetplan --list-fields
		 * plan' was sent to 'hetplan plan --list-fields', which plan
		 * refuses */
		if (c && strcmp(c->name, "tui") && command_takes(c, a)) {
			fprintf(stderr, "hetplan: '%s' is an option of a command: put it after "
					"the command ('hetplan %s %s ...')\n",
				cli_shown(a), c->name, cli_shown(a));
			return 1;
		}
	}
	return 0;
}

int cli_main(int argc, char **argv)
{
	struct catalog cat;
	struct hp_err err = { 0 };
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--list-options"))
		return list_all_options();
	if (argc == 2 && !strcmp(argv[1], "--list-keys")) {
		tui_list_keys();   /* the same listing as `hetplan tui --list-keys` */
		return 0;
	}
	if (argc == 2 && !strncmp(argv[1], "--list-fields", 13) &&
	    (argv[1][13] == '\0' || argv[1][13] == '='))
		return list_all_fields(argv[1][13] ? argv[1] + 14 : NULL);
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("hetplan %s\n", HETPLAN_VERSION);
		return 0;
	}
	if (catalog_load(&cat, NULL, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	/* GPU specs fetched before (gpus --update, json: feeds) join the
	 * catalog, from the cache only; `hetplan gpus` and `prices` name
	 * cache files that cannot be read. */
	struct price_config pc;
	struct hp_err cfg_err = { 0 };
	if (pricing_config_load(&pc, NULL, &cfg_err) == 0)
		pricing_catalog_extend(&cat, &pc, NULL, 0);
	int rc;
	/* No command, an option, or a workspace file (the usage's
	 * `hetplan WORKSPACE.json`): the interface. */
	size_t a1 = argc >= 2 ? strlen(argv[1]) : 0;
	if (argc >= 2 && option_before_command(argc, argv)) {
		rc = HP_EXIT_USAGE;
	} else if (argc < 2 || argv[1][0] == '-' ||
		   (a1 > 5 && !strcmp(argv[1] + a1 - 5, ".json"))) {
		rc = tui_main(argc, argv, &cat);
	} else {
		const struct command *cmd = command_find(argv[1]);
		if (!cmd) {
			fprintf(stderr, "hetplan: unknown command '%s'\n", cli_shown(argv[1]));
			usage(stderr);
			rc = HP_EXIT_USAGE;
		} else {
			rc = cmd->run(argc - 1, argv + 1, &cat);
		}
	}
	catalog_done(&cat);
	return rc;
}
