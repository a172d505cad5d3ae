/*
 * cli.h - the dehbq subcommands and their shared helpers
 *
 * Each subcommand is `int cli_<name>(int argc, char **argv)` and returns
 * the process exit code: 0 ok, 100 bad usage or input (permanent), 111
 * system failure (temporary).  Messages go to stderr in the STYLE.md form
 * ("dehbq init: <what>", input errors as "file:line:col: ...").
 */
#ifndef DEHBQ_CLI_H
#define DEHBQ_CLI_H

#include <stdint.h>

#define CLI_OK 0
#define CLI_EINPUT 100
#define CLI_ESYS 111

int cli_validate(int argc, char **argv);
int cli_init(int argc, char **argv);

/* Print "dehbq <cmd>: <msg>" to stderr; returns code. */
int cli_fail(const char *cmd, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Map a DEHBQ_* error to an exit code (input vs system); reads errno for
 * DEHBQ_ESYS, so call it before anything that may change errno. */
int cli_exit_code(int dehbq_err);
/* Strict number parsing for option values; 0 ok, -1 bad. */
int cli_parse_double(const char *s, double *out);
int cli_parse_int(const char *s, int64_t min, int64_t max, int64_t *out);
/* 1 when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);

#endif
