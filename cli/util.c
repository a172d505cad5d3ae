/*
 * util.c - helpers shared by the dehbq subcommands
 */
#include "cli.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vmsg(const char *cmd, const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "dehbq %s: %s", cmd, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_fail(const char *cmd, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cmd, "", fmt, ap);
	va_end(ap);
	return code;
}

int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
{
	const char *u = usage, *nl;
	va_list ap;

	if (!strncmp(u, "usage: ", 7))
		u += 7;
	nl = strchr(u, '\n');
	fprintf(stderr, "dehbq %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "; usage: %.*s (dehbq %s --help)\n",
		(int)(nl ? nl - u : (long)strlen(u)), u, cmd);
	return CLI_EINPUT;
}

int cli_positional(const char *cmd, const char *usage, int argc, char **argv,
		   int n, const char *need, const char *option)
{
	int i;

	for (i = 1; i < argc && i <= n; i++)
		if (argv[i][0] == '-' &&
		    (i != n || !option || strcmp(argv[i], option)))
			break;
	if (i <= n && i < argc) /* an option among them */
		return cli_usage_error(cmd, usage, "unexpected argument '%s'",
				       argv[i]);
	if (argc - 1 < n)
		return cli_usage_error(cmd, usage, "need %s", need);
	if (argc - 1 > n)
		return cli_usage_error(cmd, usage, "unexpected argument '%s'",
				       argv[n + 1]);
	return CLI_OK;
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(cmd, "warning: ", fmt, ap);
	va_end(ap);
}

int cli_exit_code(int e)
{
	switch (e) {
	case DEHBQ_OK:
		return CLI_OK;
	case DEHBQ_ESYS:
		/* A file the user named that is missing is their input. */
		if (fsutil_path_errno(errno))
			return CLI_EINPUT;
		return CLI_ESYS;
	case DEHBQ_ENOMEM:
	case DEHBQ_EAGAIN:
		return CLI_ESYS;
	default:
		return CLI_EINPUT;
	}
}

int cli_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int cli_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_parse_trial_id(const char *s, uint64_t *id, char out[ID_TRIAL_LEN])
{
	size_t n = strlen(s), i;

	if (n < 1 || n > ID_TRIAL_LEN - 1)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	*id = strtoull(s, NULL, 10);
	return id_trial_format(*id, out) ? -1 : 0;
}

int cli_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

void cli_csv_field(FILE *f, const char *s)
{
	const char *p;

	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' &&
	    (!*s || s[strlen(s) - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

int cli_write_output(const char *cmd, const char *path,
		     int (*fn)(void *arg, FILE *f), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(path, "-")) {
		rc = fn(arg, stdout);
		if (fflush(stdout) == EOF || ferror(stdout))
			return rc ? rc
				  : cli_fail(cmd, CLI_ESYS,
					     "fatal: unable to write to "
					     "standard output: %s",
					     strerror(errno));
		return rc;
	}
	if (!(f = open_memstream(&buf, &len)))
		return cli_fail(cmd, CLI_ESYS, "fatal: out of memory");
	rc = fn(arg, f);
	if (fclose(f) == EOF && !rc)
		rc = cli_fail(cmd, CLI_ESYS, "fatal: out of memory");
	if (!rc && atomicfile_write(path, buf, len, 0666, 0))
		rc = cli_fail(cmd,
			      errno == ENOENT || errno == EACCES ||
					      errno == ENOTDIR ||
					      errno == EISDIR
				      ? CLI_EINPUT
				      : CLI_ESYS,
			      "fatal: unable to write '%s': %s", path,
			      strerror(errno));
	free(buf);
	return rc;
}
