/* main.c — hetplan's entry point: the batch CLI or, with no subcommand,
 * the TUI. Everything else lives in ui/ (front ends) and src/ (engine). */
#include "cli.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rc = cli_main(argc, argv);
	/* What went to standard output must have arrived: a plan table or
	 * JSON redirected onto a full disk was cut short and still exited 0
	 * (or 4), so a script took a partial file for the answer. A failed
	 * write is an I/O failure, exit 1, unless the run already failed on
	 * its flags or input. A write that failed through cli_write_output was
	 * said there and its error flag cleared, so it is said once. */
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "hetplan: standard output: %s\n",
			errno ? strerror(errno) : "write error");
		clearerr(stdout);
		if (rc == HP_EXIT_OK || rc == HP_EXIT_NOFIT)
			rc = HP_EXIT_FAIL;
	}
	return rc;
}
