/*
 * outcome.c - what an attempt came to: the report and the status
 * (outcome.h)
 */
#include "outcome.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "objectives.h"
#include "result.h"
#include "run.h"

/*
 * A report that did not parse: say what people actually get wrong, in
 * place of the parser's message where that would mislead.  A Python dict
 * printed with str() has single quotes; a trainer that prints a summary
 * after its report leaves plain text on the last line.
 */
static int report_hint(const char *name, const char *t, size_t n, char *err)
{
	size_t i = 0;
	int k;

	while (i < n && (t[i] == ' ' || t[i] == '\t'))
		i++;
	k = n - i > 60 ? 60 : (int)(n - i);
	if (i < n && t[i] == '{' && memchr(t + i, '\'', n - i))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: %.*s: single quotes are not JSON (a "
				  "Python dict printed as it is): print "
				  "json.dumps({\"loss\": ...}) instead",
				  name, k, t + i);
	if (i < n && t[i] != '{' && t[i] != '[')
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s is plain text (%.*s): the report must be "
				  "the last line of stdout, a JSON object like "
				  "{\"loss\": 0.1}, or be written to "
				  "$DEHBQ_RESULT",
				  name, k, t + i);
	return DEHBQ_EINVAL;
}

int outcome_report(const char *report_path, const char *out, size_t len,
		   double *loss, double *cost, char **info, char **objectives,
		   char *err)
{
	struct stat st;
	char *text = NULL;
	size_t tl, end, start;
	int rc;

	*info = NULL;
	*objectives = NULL;
	*cost = -1;
	if (report_path && lstat(report_path, &st) == 0) {
		rc = fsutil_read_file(report_path, RESULT_CAP, &text, &tl);
		if (rc == DEHBQ_ETOOBIG)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "report file is larger than %u bytes",
					  RESULT_CAP);
		if (rc)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "cannot read report file: %s",
					  strerror(errno));
		rc = result_parse_report("$DEHBQ_RESULT", text, tl, loss, cost,
					 info, objectives, err);
		if (rc == DEHBQ_EINVAL)
			report_hint("$DEHBQ_RESULT", text, tl, err);
		free(text);
		return rc == DEHBQ_ENOMEM ? rc : rc ? DEHBQ_EINVAL : DEHBQ_OK;
	}
	/* The last non-blank line of stdout. */
	end = len;
	for (;;) {
		while (end > 0 &&
		       (out[end - 1] == '\n' || out[end - 1] == '\r' ||
			out[end - 1] == ' ' || out[end - 1] == '\t'))
			end--;
		if (end == 0)
			return dehbq_errf(err, DEHBQ_EINVAL,
					  "no report: nothing in $DEHBQ_RESULT "
					  "and no output on stdout");
		start = end;
		while (start > 0 && out[start - 1] != '\n')
			start--;
		break;
	}
	rc = result_parse_report("last stdout line", out + start, end - start,
				 loss, cost, info, objectives, err);
	if (rc == DEHBQ_EINVAL)
		report_hint("the last stdout line", out + start, end - start,
			    err);
	return rc == DEHBQ_ENOMEM ? rc : rc ? DEHBQ_EINVAL : DEHBQ_OK;
}

/* The last RUN_TAIL_LINES lines of the stderr tail, controls replaced. */
static char *stderr_lines(const char *buf, size_t len)
{
	size_t end = len, start;
	int lines = 0;
	char *s;

	while (end > 0 && buf[end - 1] == '\n')
		end--;
	start = end;
	while (start > 0) {
		if (buf[start - 1] == '\n' && ++lines == RUN_TAIL_LINES)
			break;
		start--;
	}
	if (!(s = malloc(end - start + 1)))
		return NULL;
	for (size_t i = start; i < end; i++) {
		unsigned char c = (unsigned char)buf[i];

		s[i - start] = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f
				       ? '?'
				       : (char)c;
	}
	s[end - start] = 0;
	return s;
}

static int set_str(char **dst, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int set_str(char **dst, const char *fmt, ...)
{
	va_list ap;
	char buf[DEHBQ_ERRLEN + 128];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(*dst);
	*dst = strdup(buf);
	return *dst ? DEHBQ_OK : DEHBQ_ENOMEM;
}

/*
 * A report that parsed, against the study's objectives: the loss of a
 * multi-objective result is its first objective, as reported.  0, or 1
 * with why when the report does not fit the study.
 */
static int report_fits(const struct objectives *ob, const char *objectives,
		       double *loss, char *why, size_t len)
{
	double y[OBJECTIVES_MAX], raw[OBJECTIVES_MAX];

	if (!ob || !ob->n) {
		if (isnan(*loss))
			snprintf(why, len,
				 "no 'loss' (the study has one objective; "
				 "declare \"objectives\" in its spec to "
				 "report several)");
		return isnan(*loss);
	}
	if (objectives_read(ob, objectives, y, raw, why, len))
		return 1;
	*loss = raw[0];
	return 0;
}

/* An attempt that exited 0: its report decides. */
static int from_report(struct result *r, const struct outcome_in *in)
{
	char why[DEHBQ_ERRLEN];
	char *info = NULL, *objs = NULL;
	double loss, cost;
	int rc;

	rc = outcome_report(in->report_path, in->out, in->outlen, &loss, &cost,
			    &info, &objs, why);
	if (rc == DEHBQ_ENOMEM)
		return rc;
	if (!rc && report_fits(in->obj, objs, &loss, why, sizeof(why))) {
		free(info);
		free(objs);
		r->status = RESULT_FAILED;
		return set_str(&r->error, "report (exit code 0): %s", why);
	}
	if (rc) {
		r->status = RESULT_FAILED;
		return set_str(&r->error, "invalid report (exit code 0): %s",
			       why);
	}
	r->status = RESULT_OK;
	r->loss = loss;
	if (cost >= 0)
		r->cost = cost;
	free(r->info);
	r->info = info;
	free(r->objectives);
	r->objectives = objs;
	return DEHBQ_OK;
}

/* info.gpus = gpus, unless the trainer's info has its own. */
static int info_gpus(struct result *r, const char *gpus)
{
	cJSON *o = cJSON_Parse(r->info ? r->info : "{}");
	char *txt = NULL;

	if (!o)
		return DEHBQ_ENOMEM; /* r->info is valid JSON (result.h) */
	if (cJSON_IsObject(o) && !cJSON_GetObjectItemCaseSensitive(o, "gpus") &&
	    (!cJSON_AddStringToObject(o, "gpus", gpus) ||
	     !(txt = jsonfile_print_exact(o)))) {
		cJSON_Delete(o);
		return DEHBQ_ENOMEM;
	}
	cJSON_Delete(o);
	if (txt) {
		char *copy = strdup(txt);

		cJSON_free(txt);
		if (!copy)
			return DEHBQ_ENOMEM;
		free(r->info);
		r->info = copy;
	}
	return DEHBQ_OK;
}

int outcome_classify(struct result *r, const struct outcome_in *in)
{
	int rc;

	if (WIFSIGNALED(in->status)) {
		r->exit_code = -1;
		r->signal = WTERMSIG(in->status);
	} else {
		r->exit_code = WEXITSTATUS(in->status);
		r->signal = 0;
	}
	r->cost = r->wall_time;
	if (in->timed_out) {
		r->status = RESULT_TIMEOUT;
		rc = set_str(&r->error,
			     "timeout: killed after %g s "
			     "(--trial-timeout)",
			     in->timeout);
	} else if (in->exec_errno) {
		r->status = RESULT_FAILED;
		rc = set_str(&r->error, "cannot execute '%s': %s", in->argv0,
			     strerror(in->exec_errno));
	} else if (WIFSIGNALED(in->status)) {
		r->status = RESULT_CRASHED;
		rc = set_str(&r->error, "killed by signal %d (%s)", r->signal,
			     strsignal(r->signal));
	} else if (r->exit_code != 0) {
		r->status = RESULT_FAILED;
		rc = set_str(&r->error, "exit code %d", r->exit_code);
	} else {
		rc = from_report(r, in);
	}
	if (!rc && r->status != RESULT_OK) {
		char *tl = stderr_lines(in->errt, in->errlen);

		if (!tl)
			return DEHBQ_ENOMEM;
		free(r->stderr_tail);
		r->stderr_tail = tl;
	}
	if (!rc && in->gpus && in->gpus[0])
		rc = info_gpus(r, in->gpus);
	return rc;
}
