/*
 * main.c - dehbq: the command users type
 *
 * Parses the subcommand and hands argv to it; every subcommand lives in
 * its own cli/ file and returns the exit code (0, 100, 111).
 */
#include "cli.h"

#include "version.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: dehbq COMMAND [ARGS]\n"
	"\n"
	"commands:\n"
	"  init STUDY ...      create a study (dehbq init --help)\n"
	"  validate FILE       check a search space or study spec\n"
	"  status STUDY        progress, incumbents, workers, warnings\n"
	"  trials STUDY        one row per trial\n"
	"  show STUDY ID       one trial: files, result, log tails\n"
	"  export STUDY        every evaluation as CSV or JSON lines\n"
	"  best STUDY          the best configuration as JSON\n"
	"  pareto STUDY        a multi-objective study's Pareto front\n"
	"  importance STUDY    which hyperparameters mattered (fANOVA)\n"
	"  plot STUDY -o F.svg incumbent and evaluations as an SVG\n"
	"  report STUDY -o F.html  everything about a study in one HTML page\n"
	"  workers STUDY       the worker registry\n"
	"  stop STUDY          ask the orchestrator to finish\n"
	"  requeue STUDY ID    ask the orchestrator to run a trial again\n"
	"  extend STUDY ...    give a study more budget, and resume it\n"
	"\n"
	"Every command takes --help; dehbq --version prints the release.\n"
	"Exit codes: 0 ok, 100 bad input,\n"
	"111 system failure.\n";

static const struct {
	const char *name;		   /* subcommand */
	int (*run)(int argc, char **argv); /* its entry point */
} commands[] = {
	{"init", cli_init},
	{"validate", cli_validate},
	{"status", cli_status},
	{"trials", cli_trials},
	{"show", cli_show},
	{"export", cli_export},
	{"best", cli_best},
	{"plot", cli_plot},
	{"report", cli_report},
	{"workers", cli_workers},
	{"stop", cli_stop},
	{"requeue", cli_requeue},
	{"extend", cli_extend},
	{"pareto", cli_pareto},
	{"importance", cli_importance},
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fputs(usage, stderr);
		return CLI_EINPUT;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("dehbq %s\n", dehbq_version);
		return CLI_OK;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "dehbq: unknown command '%s' (one of", argv[1]);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
	fputs("; dehbq --help)\n", stderr);
	return CLI_EINPUT;
}
