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
#include "statusfile.h"
#include "study.h"
#include "timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATUS_MIN_INTERVAL 0.1 /* light batches' status.json, see below */

/* The optimiser's best, with its decoded configuration. */
static void best_of(struct sched *s, enum optim_best_which which,
		    struct statusfile_best *b)
{
	struct optim_best inc;

	if (optim_best(s->eng, which, &inc, s->vec) || !inc.valid)
		return;
	b->valid = 1;
	b->loss = inc.loss;
	b->fidelity = inc.fidelity;
	id_trial_format(inc.job_id, b->trial);
	if (!space_decode(s->spec->space, s->vec, s->vals))
		b->config = space_config_to_json(s->spec->space, s->vals);
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
	return o;
}

static void summary(struct sched *s, int finished, const char *reason,
		    struct statusfile *st)
{
	struct statusfile_counts *n = &st->counts;
	struct optim_counts c;
	struct optim_limits l;

	statusfile_init(st);
	optim_counts(s->eng, &c);
	optim_limits(s->eng, &l);
	st->limits.valid = 1;
	st->limits.fevals = l.fevals;
	st->limits.brackets = l.brackets;
	st->limits.walltime = l.walltime;
	st->limits.total_cost = l.cost;
	st->finished = finished;
	memcpy(st->study, s->spec->study, sizeof(st->study));
	if (reason)
		snprintf(st->reason, sizeof(st->reason), "%s", reason);
	snprintf(st->held, sizeof(st->held), "%s", s->held);
	timeutil_iso(timeutil_now(), st->updated);
	st->epoch = s->lease->epoch;
	snprintf(st->host, sizeof(st->host), "%s", s->lease->host);
	st->pid = s->lease->pid;
	st->elapsed = sched_elapsed(s);
	st->stopping = s->meta.stopping;
	st->exhausted = optim_exhausted(s->eng);
	n->issued = c.asked;
	n->done = c.told;
	n->failed = c.failed;
	n->inflight = c.inflight;
	n->pending = s->npending;
	n->claimed = s->nclaimed;
	n->quarantined = s->meta.quarantined;
	n->duplicates = s->meta.duplicates;
	n->requeues = s->meta.requeues;
	n->expired = s->meta.expired;
	n->brackets = c.brackets;
	n->forbidden = c.forbidden;
	n->total_cost = c.total_cost;
	st->live_workers = s->live_workers;
	best_of(s, OPTIM_BEST_MAX, &st->best_max);
	best_of(s, OPTIM_BEST_ANY, &st->best_any);
	st->optimizer = optimizer_json(s);
}

static int write_summary(struct sched *s, const char *rel, int finished,
			 const char *reason, unsigned flags)
{
	char p[STUDY_PATH_MAX], *txt;
	struct statusfile st;
	int rc;

	summary(s, finished, reason, &st);
	rc = statusfile_render(&st, &txt);
	statusfile_release(&st);
	if (rc)
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
		write_summary(s, "state/status.json", 0, NULL,
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
	write_summary(s, "state/status.json", 0, reason, ATOMICFILE_NOSYNC);
}

int sched_write_finished(struct sched *s, const char *reason, unsigned flags)
{
	return write_summary(s, "FINISHED", 1, reason, flags);
}
