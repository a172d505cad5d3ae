/*
 * result.c - parse, validate and render result files and trainer reports
 *
 * Invariant: a struct result that result_parse() accepted satisfies every
 * rule in result.h, so the orchestrator can tell it without re-checking.
 */
#include "result.h"

#include "err.h"
#include "jsonfile.h"
#include "objectives.h"
#include "timeutil.h"
#include "utf8.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {"ok", "failed", "timeout", "crashed",
					   "stopped"};
#define NSTATUS ((int)(sizeof(status_names) / sizeof(status_names[0])))

const char *result_status_name(enum result_status s)
{
	return (unsigned)s < NSTATUS ? status_names[s] : "unknown";
}

int result_has_loss(const struct result *r)
{
	return r->status == RESULT_OK || r->status == RESULT_STOPPED;
}

int result_status_parse(const char *s, enum result_status *st)
{
	int i;

	for (i = 0; i < NSTATUS; i++)
		if (!strcmp(s, status_names[i])) {
			*st = (enum result_status)i;
			return DEHBQ_OK;
		}
	return DEHBQ_EINVAL;
}

int result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->max_rss_kb = -1;
	r->exit_code = -1;
	r->info = strdup("{}");
	r->error = strdup("");
	r->stderr_tail = strdup("");
	if (!r->info || !r->error || !r->stderr_tail) {
		result_release(r);
		return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

void result_release(struct result *r)
{
	free(r->objectives);
	r->objectives = NULL;
	free(r->info);
	free(r->error);
	free(r->stderr_tail);
	r->info = r->error = r->stderr_tail = NULL;
}

static int copy_str(const struct jsonfile *jf, const cJSON *obj,
		    const char *key, char *dst, size_t size, char *err)
{
	const char *s = NULL;
	int rc = jsonfile_get_string(jf, obj, key, JSONFILE_OPTIONAL, &s, err);

	if (rc || !s)
		return rc;
	if (strlen(s) >= size)
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(obj, key), err,
			"field '%s': longer than %zu bytes", key, size - 1);
	memcpy(dst, s, strlen(s) + 1);
	return DEHBQ_OK;
}

static int dup_str(const struct jsonfile *jf, const cJSON *obj, const char *key,
		   char **dst, char *err)
{
	const char *s = NULL;
	int rc = jsonfile_get_string(jf, obj, key, JSONFILE_OPTIONAL, &s, err);
	char *d;

	if (rc || !s)
		return rc;
	if (!(d = strdup(s)))
		return DEHBQ_ENOMEM;
	free(*dst);
	*dst = d;
	return DEHBQ_OK;
}

static int get_time(const struct jsonfile *jf, const cJSON *obj,
		    const char *key, double *t, char *err)
{
	const char *s = NULL;
	int rc = jsonfile_get_string(jf, obj, key, JSONFILE_REQUIRED, &s, err);

	if (rc)
		return rc;
	if (timeutil_parse_iso(s, t))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(obj, key), err,
			"field '%s': expected a UTC time like "
			"\"2026-01-31T12:00:00.000Z\"",
			key);
	return DEHBQ_OK;
}

static int print_info(const struct jsonfile *jf, const cJSON *info, char **out,
		      char *err)
{
	char *s = jsonfile_print_exact(info);

	if (!s)
		return DEHBQ_ENOMEM;
	if (strlen(s) > RESULT_INFO_CAP) {
		cJSON_free(s);
		return jsonfile_errf(jf, info, err,
				     "field 'info': larger than %u bytes",
				     RESULT_INFO_CAP);
	}
	free(*out);
	*out = strdup(s);
	cJSON_free(s);
	return *out ? DEHBQ_OK : DEHBQ_ENOMEM;
}

int result_print_objectives(const struct jsonfile *jf, const cJSON *v,
			    char **out, char *err)
{
	const cJSON *it;
	int n = 0;

	if (!cJSON_IsObject(v))
		return jsonfile_errf(
			jf, v, err,
			"field 'objectives': expected an object "
			"like {\"error\": 0.1, \"latency_ms\": 12}");
	cJSON_ArrayForEach(it, v)
	{
		if (!objectives_name_ok(it->string))
			return jsonfile_errf(jf, it, err,
					     "field 'objectives': '%.64s' is "
					     "not an objective name",
					     it->string);
		if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
			return jsonfile_errf(jf, it, err,
					     "field 'objectives.%s': expected "
					     "a finite number",
					     it->string);
		if (++n > RESULT_MAX_OBJ)
			return jsonfile_errf(jf, v, err,
					     "field 'objectives': more than %d "
					     "members",
					     RESULT_MAX_OBJ);
	}
	free(*out);
	*out = NULL;
	return print_info(jf, v, out, err);
}

static const char *const result_keys[] = {
	"format",
	"id",
	"study",
	"attempt",
	"token",
	"status",
	"loss",
	"fidelity",
	"cost",
	"info",
	"objectives",
	"worker",
	"host",
	"pid",
	"started",
	"finished",
	"wall_time",
	"max_rss_kb",
	"exit_code",
	"signal",
	"slurm_job_id",
	"slurm_array_job_id",
	"slurm_array_task_id",
	"error",
	"stderr_tail",
	NULL,
};

static int parse_fields(const struct jsonfile *jf, struct result *r, char *err)
{
	const cJSON *root = jsonfile_root(jf), *info = NULL, *loss;
	const char *s;
	int64_t v;
	uint64_t idn;
	int rc;

	if ((rc = jsonfile_check_format(jf, RESULT_FORMAT, err)) ||
	    (rc = jsonfile_check_keys(jf, root, result_keys, err)))
		return rc;
	if ((rc = jsonfile_get_string(jf, root, "id", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (id_trial_parse(s, &idn))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "id"), err,
			"field 'id': expected 8 digits");
	memcpy(r->id, s, ID_TRIAL_LEN);
	if ((rc = jsonfile_get_string(jf, root, "study", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (!id_is_study(s))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "study"),
			err, "field 'study': expected a UUID");
	memcpy(r->study, s, ID_STUDY_LEN);
	if ((rc = jsonfile_get_int(jf, root, "attempt", JSONFILE_REQUIRED, 1,
				   1000000, &v, err)))
		return rc;
	r->attempt = (int)v;
	s = NULL;
	if ((rc = jsonfile_get_string(jf, root, "token", JSONFILE_OPTIONAL, &s,
				      err)))
		return rc;
	if (s && id_token_parse(s, &r->token))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "token"),
			err, "field 'token': expected 16 lowercase hex digits");
	if ((rc = jsonfile_get_string(jf, root, "status", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (result_status_parse(s, &r->status))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "status"),
			err,
			"field 'status': expected ok, failed, "
			"timeout, crashed or stopped");
	loss = cJSON_GetObjectItemCaseSensitive(root, "loss");
	if (r->status == RESULT_OK || r->status == RESULT_STOPPED) {
		if ((rc = jsonfile_get_number(jf, root, "loss",
					      JSONFILE_REQUIRED, -HUGE_VAL,
					      HUGE_VAL, &r->loss, err)))
			return rc;
	} else if (loss && !cJSON_IsNull(loss)) {
		return jsonfile_errf(jf, loss, err,
				     "field 'loss': must be absent when status "
				     "is not ok or stopped");
	}
	r->fidelity = 0;
	if ((rc = jsonfile_get_number(jf, root, "fidelity",
				      r->status == RESULT_STOPPED
					      ? JSONFILE_REQUIRED
					      : JSONFILE_OPTIONAL,
				      DBL_MIN, HUGE_VAL, &r->fidelity, err)))
		return rc;
	if ((rc = jsonfile_get_number(jf, root, "cost", JSONFILE_REQUIRED, 0,
				      HUGE_VAL, &r->cost, err)) ||
	    (rc = jsonfile_get_object(jf, root, "info", JSONFILE_OPTIONAL,
				      &info, err)))
		return rc;
	if (info && (rc = print_info(jf, info, &r->info, err)))
		return rc;
	if ((info = cJSON_GetObjectItemCaseSensitive(root, "objectives")) &&
	    (rc = result_print_objectives(jf, info, &r->objectives, err)))
		return rc;
	if ((rc = jsonfile_get_string(jf, root, "worker", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (!id_is_worker(s))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "worker"),
			err,
			"field 'worker': expected 12 lowercase "
			"hex digits");
	memcpy(r->worker, s, ID_WORKER_LEN);
	if ((rc = jsonfile_get_string(jf, root, "host", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (!id_is_host(s))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "host"), err,
			"field 'host': not a valid host name");
	memcpy(r->host, s, strlen(s) + 1);
	if ((rc = jsonfile_get_int(jf, root, "pid", JSONFILE_REQUIRED, 1,
				   INT32_MAX, &v, err)))
		return rc;
	r->pid = (long)v;
	if ((rc = get_time(jf, root, "started", &r->started, err)) ||
	    (rc = get_time(jf, root, "finished", &r->finished, err)) ||
	    (rc = jsonfile_get_number(jf, root, "wall_time", JSONFILE_REQUIRED,
				      0, HUGE_VAL, &r->wall_time, err)))
		return rc;
	v = -1;
	if ((rc = jsonfile_get_int(jf, root, "max_rss_kb", JSONFILE_OPTIONAL,
				   -1, INT64_MAX / 2, &v, err)))
		return rc;
	r->max_rss_kb = (long)v;
	v = -1;
	if ((rc = jsonfile_get_int(jf, root, "exit_code", JSONFILE_OPTIONAL, -1,
				   255, &v, err)))
		return rc;
	r->exit_code = (int)v;
	v = 0;
	if ((rc = jsonfile_get_int(jf, root, "signal", JSONFILE_OPTIONAL, 0,
				   128, &v, err)))
		return rc;
	r->signal = (int)v;
	if ((rc = copy_str(jf, root, "slurm_job_id", r->slurm_job,
			   sizeof(r->slurm_job), err)) ||
	    (rc = copy_str(jf, root, "slurm_array_job_id", r->slurm_array_job,
			   sizeof(r->slurm_array_job), err)) ||
	    (rc = copy_str(jf, root, "slurm_array_task_id", r->slurm_array_task,
			   sizeof(r->slurm_array_task), err)) ||
	    (rc = dup_str(jf, root, "error", &r->error, err)) ||
	    (rc = dup_str(jf, root, "stderr_tail", &r->stderr_tail, err)))
		return rc;
	return DEHBQ_OK;
}

int result_parse(const char *name, const char *text, size_t len,
		 struct result *r, char *err)
{
	struct jsonfile *jf;
	int rc;

	if ((rc = result_init(r)))
		return dehbq_errf(err, rc, "%s: out of memory", name);
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		goto fail;
	rc = parse_fields(jf, r, err);
	jsonfile_free(jf);
	if (!rc)
		return DEHBQ_OK;
	if (rc == DEHBQ_ENOENT) /* a missing field is invalid input */
		rc = DEHBQ_EINVAL;
fail:
	result_release(r);
	return rc;
}

int result_load(const char *path, struct result *r, char *err)
{
	struct jsonfile *jf;
	int rc;

	if ((rc = result_init(r)))
		return dehbq_errf(err, rc, "%s: out of memory", path);
	if ((rc = jsonfile_load(path, RESULT_CAP, &jf, err)))
		goto fail;
	rc = parse_fields(jf, r, err);
	jsonfile_free(jf);
	if (!rc)
		return DEHBQ_OK;
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
fail:
	result_release(r);
	return rc;
}

static int add_str(cJSON *o, const char *k, const char *v)
{
	return cJSON_AddStringToObject(o, k, v) ? 0 : -1;
}

static int add_num(cJSON *o, const char *k, double v)
{
	return jsonfile_add_number(o, k, v);
}

int result_render(const struct result *r, char **out)
{
	char t1[TIMEUTIL_ISO_LEN], t2[TIMEUTIL_ISO_LEN], tok[ID_TOKEN_LEN];
	cJSON *o = cJSON_CreateObject(), *info;
	int bad = !o;

	*out = NULL;
	if (bad)
		return DEHBQ_ENOMEM;
	timeutil_iso(r->started, t1);
	timeutil_iso(r->finished, t2);
	info = cJSON_Parse(r->info ? r->info : "{}");
	if (!info || !cJSON_IsObject(info) || jsonfile_exact_numbers(info) ||
	    !isfinite(r->cost) ||
	    ((r->status == RESULT_OK || r->status == RESULT_STOPPED) &&
	     !isfinite(r->loss)) ||
	    (r->status == RESULT_STOPPED && !(r->fidelity > 0))) {
		cJSON_Delete(info);
		cJSON_Delete(o);
		return DEHBQ_EINVAL;
	}
	bad |= add_str(o, "format", RESULT_FORMAT) | add_str(o, "id", r->id) |
	       add_str(o, "study", r->study) |
	       add_num(o, "attempt", r->attempt);
	if (r->token) {
		id_token_format(r->token, tok);
		bad |= add_str(o, "token", tok);
	}
	bad |= add_str(o, "status", result_status_name(r->status));
	if (r->status == RESULT_OK || r->status == RESULT_STOPPED)
		bad |= add_num(o, "loss", r->loss);
	if (r->fidelity > 0)
		bad |= add_num(o, "fidelity", r->fidelity);
	bad |= add_num(o, "cost", r->cost);
	if (!cJSON_AddItemToObject(o, "info", info)) /* takes info */
		bad = 1;
	if (r->objectives) {
		cJSON *ob = cJSON_Parse(r->objectives);

		if (!cJSON_IsObject(ob) || jsonfile_exact_numbers(ob) ||
		    !cJSON_AddItemToObject(o, "objectives", ob)) {
			cJSON_Delete(ob);
			bad = 1;
		}
	}
	bad |= add_str(o, "worker", r->worker) | add_str(o, "host", r->host) |
	       add_num(o, "pid", (double)r->pid) | add_str(o, "started", t1) |
	       add_str(o, "finished", t2) |
	       add_num(o, "wall_time", r->wall_time) |
	       add_num(o, "max_rss_kb", (double)r->max_rss_kb) |
	       add_num(o, "exit_code", r->exit_code) |
	       add_num(o, "signal", r->signal);
	if (r->slurm_job[0])
		bad |= add_str(o, "slurm_job_id", r->slurm_job);
	if (r->slurm_array_job[0])
		bad |= add_str(o, "slurm_array_job_id", r->slurm_array_job);
	if (r->slurm_array_task[0])
		bad |= add_str(o, "slurm_array_task_id", r->slurm_array_task);
	if (r->error && r->error[0])
		bad |= add_str(o, "error", r->error);
	if (r->stderr_tail && r->stderr_tail[0])
		bad |= add_str(o, "stderr_tail", r->stderr_tail);
	return jsonfile_render(o, !bad, out);
}

int result_parse_report(const char *name, const char *text, size_t len,
			double *loss, double *cost, char **info,
			char **objectives, char *err)
{
	static const char *const keys[] = {"loss",	 "cost",     "info",
					   "objectives", "fidelity", NULL};
	struct jsonfile *jf;
	const cJSON *root, *inf = NULL, *ob;
	size_t off;
	int rc;

	*info = NULL;
	*objectives = NULL;
	*cost = -1;
	*loss = NAN;
	if ((off = utf8_check(text, len)) != len)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: byte %zu (0x%02x) is not UTF-8; the "
				  "report's strings ('info') must be UTF-8 "
				  "text (in Python, json.dumps gives it)",
				  name, off, (unsigned char)text[off]);
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		return rc;
	root = jsonfile_root(jf);
	if (!cJSON_IsObject(root)) {
		rc = jsonfile_errf(jf, root, err,
				   "report must be a JSON object like "
				   "{\"loss\": 0.1, \"cost\": 3}");
		goto out;
	}
	ob = cJSON_GetObjectItemCaseSensitive(root, "objectives");
	if ((rc = jsonfile_check_keys(jf, root, keys, err)) ||
	    (ob && (rc = result_print_objectives(jf, ob, objectives, err))) ||
	    (rc = jsonfile_get_number(jf, root, "loss",
				      ob ? JSONFILE_OPTIONAL
					 : JSONFILE_REQUIRED,
				      -HUGE_VAL, HUGE_VAL, loss, err)) ||
	    (rc = jsonfile_get_number(jf, root, "cost", JSONFILE_OPTIONAL, 0,
				      HUGE_VAL, cost, err)) ||
	    (rc = jsonfile_get_object(jf, root, "info", JSONFILE_OPTIONAL, &inf,
				      err)))
		goto out;
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (inf)
		rc = print_info(jf, inf, info, err);
	else if (!(*info = strdup("{}")))
		rc = DEHBQ_ENOMEM;
out:
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (rc) {
		free(*info);
		free(*objectives);
		*info = *objectives = NULL;
	}
	jsonfile_free(jf);
	return rc;
}
