/* completion.h — shell completion scripts for bash, zsh and fish, written
 * from the program's own tables: the command table, each command's
 * getopt_long options, the model presets and the GPU catalog. Nothing is
 * kept by hand, so a new option or preset completes without an edit here. */
#ifndef HP_COMPLETION_H
#define HP_COMPLETION_H

#include <getopt.h>
#include <stdio.h>
#include "catalog.h"

struct completion_cmd {
	const char *name;
	const char *summary;
	const struct option *opts;    /* NULL-name terminated; NULL = none */
	const char *usage;            /* synopsis: "--opt a|b|c" gives the
					 values of --opt; NULL = none */
};

/* Write the completion script for shell ("bash", "zsh" or "fish") to f:
 * the commands, the global options, each command's options, and values
 * for the options that take a preset (-m/--model), a GPU (--gpu), a
 * format or a file. Returns 0, or -1 for an unknown shell (nothing is
 * written). Output errors are the caller's to check on f (ferror). f,
 * shell, cat and cmds (when n > 0) must not be NULL (asserted). */
int completion_write(FILE *f, const char *shell, const struct completion_cmd *cmds, int n,
		     const struct option *global, const struct catalog *cat);

#endif
