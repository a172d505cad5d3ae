/*
 * optim_report.c - owns intermediate results (optim.h: optim_report): the
 * books of a job in flight that has reported (its last fidelity and loss,
 * and whether the optimiser stopped it), their part of a snapshot, and
 * their history records:
 *
 *   {<the job as in flight>,"at":F,"loss":L,"report":true}
 *
 * A report is a record like a tell, so that a load replays it in its
 * place among the tells (optim_ops.replay, told 3): an optimiser that
 * stops trials rebuilds what it decides from from the history alone, and
 * decides the same again.
 */
#include "optim.h"
#include "optim_impl.h"

#include "err.h"
#include "jsonbuf.h"
#include "ostate.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int optim_stops(const struct optim *o)
{
	return o->ops->report != NULL;
}

int optim_stopped_loss(const struct optim *o, uint64_t id, double *loss)
{
	const struct optim_fl *e = optim_fl_find(o, id);

	if (!e)
		return id < (uint64_t)o->asked ? DEHBQ_ESTATE : DEHBQ_ENOENT;
	if (!e->stop)
		return DEHBQ_EINVAL;
	if (!isfinite(*loss))
		*loss = e->last;
	return DEHBQ_OK;
}

int optim_reported(const struct optim *o, uint64_t id, double *fidelity,
		   double *loss, int *stop)
{
	const struct optim_fl *e = optim_fl_find(o, id);

	if (!e)
		return DEHBQ_ENOENT;
	*fidelity = e->reported;
	*loss = e->last;
	*stop = e->stop;
	return DEHBQ_OK;
}

void optim_report_record(struct jsonbuf *b, const struct optim_fl *e, int dim,
			 double fidelity, double loss)
{
	struct optim_fl bare;

	memset(&bare, 0, sizeof(bare));
	bare.job = e->job;
	bare.x = e->x;
	optim_put_job(b, &bare, dim);
	b->len--; /* reopen the object: the report follows */
	jsonbuf_puts(b, ",\"at\":");
	jsonbuf_num(b, fidelity);
	jsonbuf_puts(b, ",\"loss\":");
	jsonbuf_num(b, loss);
	jsonbuf_puts(b, ",\"report\":true}\n");
}

int optim_report_replay(struct optim *o, const cJSON *e, double *x, int64_t n,
			char *err)
{
	struct optim_job j;
	double at, loss;
	int rc;

	if ((rc = optim_job_parse(e, o->asked - 1, o->dim, &j, x, err)) ||
	    (rc = ostate_get_dbl(e, "at", &at, err)) ||
	    (rc = ostate_get_dbl(e, "loss", &loss, err)))
		return rc;
	if (!o->ops->report || !(at > 0 && at <= j.fidelity))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "history: record %" PRId64
				  " is a report that does not fit the "
				  "optimizer",
				  n + 1);
	j.fidelity = at;
	rc = o->ops->replay(o->st, &j, x, 3, 0, OPTIM_OK, loss);
	return rc ? dehbq_errf(err, rc == DEHBQ_ENOMEM ? rc : DEHBQ_EINVAL,
			       "history: record %" PRId64
			       " does not fit the optimizer's state",
			       n + 1)
		  : DEHBQ_OK;
}

void optim_fl_put_extra(struct jsonbuf *b, const struct optim_fl *e)
{
	if (e->job.reopened)
		jsonbuf_puts(b, ",\"reopened\":true");
	if (e->reported > 0) {
		jsonbuf_puts(b, ",\"reported\":");
		jsonbuf_num(b, e->reported);
		jsonbuf_puts(b, ",\"last\":");
		jsonbuf_num(b, e->last);
		jsonbuf_printf(b, ",\"reports\":%d", e->reports);
	}
	if (e->stop)
		jsonbuf_puts(b, ",\"stop\":true");
}

int optim_fl_get_extra(const cJSON *j, struct optim_fl *e, char *err)
{
	int64_t n;
	int rc;

	e->job.reopened =
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "reopened"));
	e->stop = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "stop"));
	if (!cJSON_GetObjectItemCaseSensitive(j, "reported"))
		return e->stop ? dehbq_errf(err, DEHBQ_EINVAL,
					    "snapshot: job %" PRIu64
					    " stopped before any report",
					    e->job.id)
			       : DEHBQ_OK;
	if ((rc = ostate_get_dbl(j, "reported", &e->reported, err)) ||
	    (rc = ostate_get_dbl(j, "last", &e->last, err)) ||
	    (rc = ostate_get_i64(j, "reports", 1, OPTIM_MAX_REPORTS, &n, err)))
		return rc;
	e->reports = (int)n;
	if (!(e->reported > 0 && e->reported <= e->job.fidelity))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "snapshot: job %" PRIu64
				  " has a report beyond its fidelity",
				  e->job.id);
	return DEHBQ_OK;
}

int optim_report(struct optim *o, uint64_t id, double fidelity, double loss,
		 int *stop)
{
	struct optim_fl *e = optim_fl_find(o, id);
	struct optim_job at;
	struct jsonbuf rec;
	int rc, s = 0;

	*stop = 0;
	if (!o->ops->report || o->mo)
		return DEHBQ_EINVAL;
	if (!e)
		return id < (uint64_t)o->asked ? DEHBQ_ESTATE : DEHBQ_ENOENT;
	if (e->stop)
		return DEHBQ_ESTATE;
	if (!isfinite(loss) || !(fidelity > e->reported) ||
	    !(fidelity <= e->job.fidelity))
		return DEHBQ_EINVAL;
	if (e->reports >= OPTIM_MAX_REPORTS)
		return DEHBQ_ETOOBIG;
	jsonbuf_init(&rec);
	if (optim_keeps_history(o)) { /* made before anything changes */
		optim_report_record(&rec, e, o->dim, fidelity, loss);
		if ((rc = jsonbuf_failed(&rec)) ||
		    (rc = jsonbuf_reserve(&o->hist, rec.len))) {
			jsonbuf_free(&rec);
			return rc;
		}
	}
	at = e->job;
	if ((rc = o->ops->report(o->st, &at, e->x, fidelity, loss, &s))) {
		jsonbuf_free(&rec);
		return rc;
	}
	e->reported = fidelity;
	e->last = loss;
	e->stop = s;
	e->reports++;
	*stop = s;
	if (optim_keeps_history(o)) {
		jsonbuf_put(&o->hist, rec.p, rec.len); /* reserved */
		o->nhist++;
	}
	jsonbuf_free(&rec);
	return DEHBQ_OK;
}
