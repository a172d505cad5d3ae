/*
 * sched_status.c - owns what the scheduler tells people: state/status.json,
 * FINISHED and the periodic progress line
 */
#include "sched_impl.h"

#include "atomicfile.h"
#include "optim.h"
#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "lease.h"
#include "logmsg.h"
#include "space.h"
#include "spec.h"
#include "study.h"
#include "timeutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_MIN_INTERVAL 0.1 /* light batches' status.json, see below */

static cJSON *incumbent_json(struct sched *s, enum optim_best_which which)
{
	struct optim_best inc;
	cJSON *o;
	char id[ID_TRIAL_LEN];

	if (optim_best(s->eng, which, &inc, s->vec) || !inc.valid)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o)
		return NULL;
	id_trial_format(inc.job_id, id);
	jsonfile_add_number(o, "loss", inc.loss);
	jsonfile_add_number(o, "fidelity", inc.fidelity);
	cJSON_AddStringToObject(o, "trial", id);
	if (!space_decode(s->spec->space, s->vec, s->vals))
		cJSON_AddItemToObject(
			o, "config",
			space_config_to_json(s->spec->space, s->vals));
	return o;
}

/* The optimiser's own figures (optim_describe), e.g. DEHB's brackets. */
static cJSON *optimizer_json(const struct sched *s)
{
	struct jsonbuf b;
	cJSON *o = NULL;

	jsonbuf_init(&b);
	jsonbuf_put(&b, "{", 1);
	if (!optim_describe(s->eng, &b)) {
		jsonbuf_put(&b, "}", 1);
		if (!jsonbuf_failed(&b))
			o = cJSON_Parse(b.p);
	}
	jsonbuf_free(&b);
	return o ? o : cJSON_CreateNull();
}

static cJSON *summary_json(struct sched *s, const char *format,
			   const char *reason)
{
	char now[TIMEUTIL_ISO_LEN];
	struct optim_counts c;
	cJSON *o = cJSON_CreateObject(), *cnt;

	if (!o)
		return NULL;
	optim_counts(s->eng, &c);
	timeutil_iso(timeutil_now(), now);
	cJSON_AddStringToObject(o, "format", format);
	cJSON_AddStringToObject(o, "study", s->spec->study);
	if (reason)
		cJSON_AddStringToObject(o, "reason", reason);
	if (s->held[0])
		cJSON_AddStringToObject(o, "held", s->held);
	cJSON_AddStringToObject(o, "updated", now);
	jsonfile_add_number(o, "epoch", (double)s->lease->epoch);
	cJSON_AddStringToObject(o, "host", s->lease->host);
	jsonfile_add_number(o, "pid", (double)s->lease->pid);
	jsonfile_add_number(o, "elapsed", sched_elapsed(s));
	cJSON_AddBoolToObject(o, "stopping", s->meta.stopping);
	cJSON_AddBoolToObject(o, "exhausted", optim_exhausted(s->eng));
	cnt = cJSON_AddObjectToObject(o, "counts");
	if (cnt) {
		jsonfile_add_number(cnt, "issued", (double)c.asked);
		jsonfile_add_number(cnt, "done", (double)c.told);
		jsonfile_add_number(cnt, "failed", (double)c.failed);
		jsonfile_add_number(cnt, "inflight", (double)c.inflight);
		jsonfile_add_number(cnt, "pending", s->npending);
		jsonfile_add_number(cnt, "claimed", s->nclaimed);
		jsonfile_add_number(cnt, "quarantined",
				    (double)s->meta.quarantined);
		jsonfile_add_number(cnt, "duplicates",
				    (double)s->meta.duplicates);
		jsonfile_add_number(cnt, "requeues", (double)s->meta.requeues);
		jsonfile_add_number(cnt, "expired", (double)s->meta.expired);
		jsonfile_add_number(cnt, "brackets", (double)c.brackets);
		jsonfile_add_number(cnt, "total_cost", c.total_cost);
	}
	jsonfile_add_number(o, "live_workers", s->live_workers);
	cJSON_AddItemToObject(o, "incumbent_max_fidelity",
			      incumbent_json(s, OPTIM_BEST_MAX));
	cJSON_AddItemToObject(o, "incumbent_any_fidelity",
			      incumbent_json(s, OPTIM_BEST_ANY));
	cJSON_AddItemToObject(o, "optimizer", optimizer_json(s));
	return o;
}

static int write_json(struct sched *s, const char *rel, cJSON *o,
		      unsigned flags)
{
	char p[STUDY_PATH_MAX], *txt;
	int rc;

	if ((rc = jsonfile_render(o, o != NULL, &txt)))
		return rc;
	rc = study_path(p, sizeof(p), s->root, "%s", rel);
	if (!rc)
		rc = atomicfile_write(p, txt, strlen(txt), 0666, flags);
	free(txt);
	return rc;
}

/*
 * status.json after every full batch, and after a light one once
 * STATUS_MIN_INTERVAL has passed since the last write: results that
 * trickle in at hundreds of batches a second need not rewrite a summary
 * that people read once a second (with 8 workers and a no-op trainer
 * this cut the orchestrator's CPU per trial from about 72 to 62 us).
 */
void sched_write_status(struct sched *s, int full)
{
	double now = timeutil_mono();

	if (full || now - s->last_status >= STATUS_MIN_INTERVAL) {
		s->last_status = now;
		write_json(s, "state/status.json",
			   summary_json(s, "dehbq-status/1", NULL),
			   ATOMICFILE_NOSYNC);
	}
	if (now - s->last_progress >= s->opts.progress_secs) {
		struct optim_counts c;
		struct optim_best a, m;

		s->last_progress = now;
		optim_counts(s->eng, &c);
		optim_best(s->eng, OPTIM_BEST_ANY, &a, NULL);
		optim_best(s->eng, OPTIM_BEST_MAX, &m, NULL);
		logmsg_i(
			s->lg,
			"progress done=%lld issued=%lld inflight=%lld "
			"workers=%d best=%.6g best_at_max=%.6g elapsed=%.0fs%s",
			(long long)c.told, (long long)c.asked,
			(long long)c.inflight, s->live_workers,
			a.valid ? a.loss : NAN, m.valid ? m.loss : NAN,
			sched_elapsed(s),
			s->held[0] ? " HELD (failures in a row; see above)"
				   : "");
	}
}

void sched_stopped(struct sched *s, const char *reason)
{
	write_json(s, "state/status.json",
		   summary_json(s, "dehbq-status/1", reason),
		   ATOMICFILE_NOSYNC);
}

int sched_write_summary(struct sched *s, const char *rel, const char *format,
			const char *reason, unsigned flags)
{
	return write_json(s, rel, summary_json(s, format, reason), flags);
}
