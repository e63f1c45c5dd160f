/* completion.c — shell completion scripts generated from the tables (see
 * completion.h). The bash script is the reference: zsh loads it through
 * bashcompinit, fish gets its own `complete` lines. Values:
 *   --model/-m   the model presets (and files, for a model JSON)
 *   --gpu        the GPU catalog's names
 *   --OPT a|b|c  in the command's synopsis (its usage line in the command
 *                table): the words a, b and c (--format, --precision,
 *                --objective, ...), so each command offers its own formats
 *   --OPT NAME   an option named like a plan key whose value is an enum
 *                (src/plan.c's plan_fields; --framework): the enum's names,
 *                from its table, estimate-only frameworks included
 *   file options (--cluster, --output, ...) complete file names; other
 *   options that take a value complete nothing. */
#include "completion.h"
#include "plan.h"

#include <assert.h>
#include <string.h>

enum value_kind { V_NONE, V_FILE, V_MODEL, V_GPU, V_WORDS, V_NUMBER };

/* The longest word list one option takes ("--algo
 * auto|ring|tree|nvls|nvls_tree|pat" is 30 bytes; the framework rows'
 * names, from the plan key's enum, 143 with hf-transformers); longer
 * is cut. */
#define WORDS_MAX 256

/* The value words usage gives option name ("[--format table|json]" ->
 * "table json") into buf; 0 when the synopsis shows no such list: the
 * option is absent, or its value is a placeholder (N, FILE, NAME|any,
 * 1f1b|interleaved:V): every alternative must be lower-case letters,
 * digits, '.', '_' or '-'. */
static int usage_words(const char *usage, const char *name, char *buf, size_t n)
{
	size_t len = strlen(name);
	for (const char *p = usage; p && (p = strstr(p, "--")); p += 2) {
		if (strncmp(p + 2, name, len) || p[2 + len] != ' ')
			continue;
		const char *v = p + 3 + len;
		size_t k = strcspn(v, " \n])");
		if (!k || k >= n || !strchr(v, '|') || (size_t)(strchr(v, '|') - v) > k)
			return 0;
		for (size_t i = 0; i < k; i++) {
			char c = v[i];
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("._-|", c)))
				return 0;
		}
		for (size_t i = 0; i < k; i++)
			buf[i] = v[i] == '|' ? ' ' : v[i];
		buf[k] = '\0';
		return 1;
	}
	return 0;
}

/* The value words of option name: the synopsis's list (usage_words),
 * else the names of the plan key's enum that has that flag; 0 when
 * neither gives any. */
static int option_words(const char *usage, const char *name, char *buf, size_t n)
{
	if (usage_words(usage, name, buf, n))
		return 1;
	const struct hp_field *f = fields_find_flag(&plan_fields, name);
	if (!f || f->kind != FK_ENUM || !n)
		return 0;
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < f->enm->n; i++) {
		const char *w = f->enm->name(i);
		if (len + strlen(w) + 2 > n)
			break;   /* cut, as usage_words' lists are */
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? " " : "", w);
	}
	return len > 0;
}

/* What an option's argument is, by its long name. Options that take a
 * number or a word of their own get no file completion. */
static enum value_kind value_of(const struct option *o, const char *usage)
{
	static const struct { const char *name; enum value_kind v; } m[] = {
		{ "model", V_MODEL }, { "gpu", V_GPU }, { "cluster", V_FILE }, { "plan", V_FILE },
		{ "output", V_FILE }, { "workspace", V_FILE }, { "file", V_FILE },
		{ "out", V_FILE }, { "config", V_FILE },
	};
	char words[WORDS_MAX];
	if (o->has_arg == no_argument)
		return V_NONE;
	if (option_words(usage, o->name, words, sizeof words))
		return V_WORDS;
	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		if (!strcmp(o->name, m[i].name))
			return m[i].v;
	return V_NUMBER;
}

static int short_of(const struct option *o)
{
	/* The parsers' convention (see cli.c): a lower-case val that is not
	 * a flag pointer is also the short option. */
	return !o->flag && o->val >= 'a' && o->val <= 'z' ? o->val : 0;
}

static void words_models(FILE *f, const struct catalog *cat)
{
	for (int i = 0; i < cat->n_models; i++)
		fprintf(f, "%s%s", i ? " " : "", cat->models[i].name);
}

static void words_gpus(FILE *f, const struct catalog *cat)
{
	for (int i = 0; i < cat->n_gpus; i++)
		fprintf(f, "%s%s", i ? " " : "", cat->gpus[i].name);
}

static void words_opts(FILE *f, const struct option *o)
{
	for (int first = 1; o && o->name; o++, first = 0) {
		fprintf(f, "%s--%s", first ? "" : " ", o->name);
		if (short_of(o))
			fprintf(f, " -%c", short_of(o));
	}
}

/* The case patterns ("-m|--model") of the options in o whose value is v;
 * 0 when there is none. */
static int patterns(FILE *f, const struct option *o, const char *usage, enum value_kind v,
		    int any)
{
	for (; o && o->name; o++) {
		if (value_of(o, usage) != v)
			continue;
		fprintf(f, "%s--%s", any ? "|" : "\t\t", o->name);
		if (short_of(o))
			fprintf(f, "|-%c", short_of(o));
		any = 1;
	}
	return any;
}

/* One case arm per option whose synopsis lists its values. */
static void bash_word_arms(FILE *f, const struct completion_cmd *c)
{
	char words[WORDS_MAX];
	for (const struct option *o = c->opts; o && o->name; o++) {
		if (o->has_arg == no_argument ||
		    !option_words(c->usage, o->name, words, sizeof words))
			continue;
		fprintf(f, "\t\t--%s", o->name);
		if (short_of(o))
			fprintf(f, "|-%c", short_of(o));
		fprintf(f, ")\n\t\t\tCOMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))\n"
			   "\t\t\treturn 0 ;;\n", words);
	}
}

static void write_bash(FILE *f, const struct completion_cmd *cmds, int n,
		       const struct option *global, const struct catalog *cat)
{
	fprintf(f, "# bash completion for hetplan; generated by `hetplan completion bash`.\n"
		   "_hetplan() {\n"
		   "\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
		   "\tlocal prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
		   "\tlocal cmd=\"${COMP_WORDS[1]}\" opts=\"\"\n"
		   "\tlocal models=\"");
	words_models(f, cat);
	fprintf(f, "\"\n\tlocal gpus=\"");
	words_gpus(f, cat);
	fprintf(f, "\"\n\tCOMPREPLY=()\n\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s ", cmds[i].name);
	words_opts(f, global);
	fprintf(f, "\" -- \"$cur\"))\n\t\treturn 0\n\tfi\n\tcase \"$cmd\" in\n");
	for (int i = 0; i < n; i++) {
		if (!cmds[i].opts)
			continue;
		fprintf(f, "\t%s)\n\t\topts=\"", cmds[i].name);
		words_opts(f, cmds[i].opts);
		fprintf(f, "\"\n\t\tcase \"$prev\" in\n");
		bash_word_arms(f, &cmds[i]);
		static const struct { enum value_kind v; const char *reply; } act[] = {
			{ V_MODEL, "COMPREPLY=($(compgen -W \"$models\" -- \"$cur\") $(compgen -f -- \"$cur\"))" },
			{ V_GPU, "COMPREPLY=($(compgen -W \"$gpus\" -- \"$cur\"))" },
			{ V_FILE, "COMPREPLY=($(compgen -f -- \"$cur\"))" },
			{ V_NUMBER, "" },
		};
		for (size_t a = 0; a < sizeof act / sizeof *act; a++) {
			if (!patterns(f, cmds[i].opts, cmds[i].usage, act[a].v, 0))
				continue;
			fprintf(f, ")\n\t\t\t%s\n\t\t\treturn 0 ;;\n", act[a].reply);
		}
		fprintf(f, "\t\tesac ;;\n");
	}
	fprintf(f, "\tesac\n"
		   "\tif [[ \"$cur\" == -* ]]; then\n"
		   "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
		   "\telse\n"
		   "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n"
		   "\tfi\n"
		   "\treturn 0\n"
		   "}\n"
		   "complete -F _hetplan hetplan\n");
}

static void write_fish(FILE *f, const struct completion_cmd *cmds, int n,
		       const struct option *global, const struct catalog *cat)
{
	fprintf(f, "# fish completion for hetplan; generated by `hetplan completion fish`.\n"
		   "complete -c hetplan -f\n");
	for (int i = 0; i < n; i++) {
		fprintf(f, "complete -c hetplan -n __fish_use_subcommand -a %s -d '", cmds[i].name);
		for (const char *c = cmds[i].summary ? cmds[i].summary : ""; *c; c++)
			if (*c != '\'' && *c != '\\')
				fputc(*c, f);
		fprintf(f, "'\n");
	}
	for (const struct option *o = global; o && o->name; o++)
		fprintf(f, "complete -c hetplan -n __fish_use_subcommand -l %s\n", o->name);
	for (int i = 0; i < n; i++) {
		for (const struct option *o = cmds[i].opts; o && o->name; o++) {
			fprintf(f, "complete -c hetplan -n '__fish_seen_subcommand_from %s' -l %s",
				cmds[i].name, o->name);
			if (short_of(o))
				fprintf(f, " -s %c", short_of(o));
			char words[WORDS_MAX];
			switch (value_of(o, cmds[i].usage)) {
			case V_MODEL:
				fprintf(f, " -r -F -a '");
				words_models(f, cat);
				fprintf(f, "'");
				break;
			case V_GPU:
				fprintf(f, " -x -a '");
				words_gpus(f, cat);
				fprintf(f, "'");
				break;
			case V_WORDS:
				option_words(cmds[i].usage, o->name, words, sizeof words);
				fprintf(f, " -x -a '%s'", words);
				break;
			case V_FILE: fprintf(f, " -r -F"); break;
			case V_NUMBER: fprintf(f, " -x"); break;
			case V_NONE: break;
			}
			fprintf(f, "\n");
		}
	}
}

int completion_write(FILE *f, const char *shell, const struct completion_cmd *cmds, int n,
		     const struct option *global, const struct catalog *cat)
{
	assert(f && shell && cat && (cmds || n <= 0));
	if (!strcmp(shell, "bash")) {
		write_bash(f, cmds, n, global, cat);
	} else if (!strcmp(shell, "zsh")) {
		/* zsh runs the bash function through its bash emulation. */
		fprintf(f, "#compdef hetplan\n"
			   "# zsh completion for hetplan; generated by `hetplan completion zsh`.\n"
			   "autoload -U +X bashcompinit && bashcompinit\n");
		write_bash(f, cmds, n, global, cat);
	} else if (!strcmp(shell, "fish")) {
		write_fish(f, cmds, n, global, cat);
	} else {
		return -1;
	}
	return 0;
}
