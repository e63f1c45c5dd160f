/* main.c — hetplan's entry point: the batch CLI or, with no subcommand,
 * the TUI. Everything else lives in ui/ (front ends) and src/ (engine). */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
