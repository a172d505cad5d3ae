/*
 * optim_impl.h - the layout of struct optim, shared by optim.c (the books)
 * and optim_state.c (their snapshot).  Not part of the API.
 *
 * Ownership: every pointer is owned by the struct optim and freed by
 * optim_free().
 */
#ifndef DEHBQ_OPTIM_IMPL_H
#define DEHBQ_OPTIM_IMPL_H

#include "jsonbuf.h"
#include "optim.h"

#include <stddef.h>
#include <stdint.h>

/* One job in flight: as asked, with its own copy of the vector. */
struct optim_fl {
	struct optim_job job;
	double *x;
	double reported; /* last intermediate fidelity (optim_report), 0 */
	double last;	 /* its loss, NaN before any */
	int stop;	 /* the optimiser decided to stop it */
	int reports;	 /* intermediate results told (OPTIM_MAX_REPORTS) */
};

/* An incumbent with its own copy of the vector. */
struct optim_inc {
	struct optim_best b;
	double *x;
};

struct optim {
	const char *name;	     /* the table entry: a preset's name */
	const struct optim_ops *ops; /* what runs: a preset's scheduler */
	void *st;		     /* the backend's state */
	int dim;
	double min_f, max_f, eta;
	uint64_t seed;
	struct optim_limits lim;
	double elapsed;		     /* last optim_set_elapsed() */
	int64_t asked, told, failed; /* forbidden proposals included */
	int64_t forbidden;	     /* proposals feasible() refused */
	int (*feasible)(void *arg, const double *vec); /* borrowed; NULL */
	void *feasible_arg;
	double cost;	     /* sum of told costs, in tell order */
	struct optim_fl *fl; /* in flight, ascending id */
	size_t nfl, capfl;
	struct optim_inc inc[2]; /* OPTIM_BEST_ANY, OPTIM_BEST_MAX */
	struct jsonbuf hist;	 /* history records not yet taken */
	int64_t nhist;		 /* history records made in all */
	struct mobj *mo;	 /* multi-objective results, or NULL */
	int keeps_history;	 /* optim_keeps_history() */
};

/*
 * The optimiser that runs table entry ops with settings in: ops itself
 * (*composed NULL), or a preset's scheduler, with that scheduler's
 * settings in *composed (a new object the caller deletes).  preset.c.
 */
int optim_preset_resolve(const struct optim_ops *ops, const struct cJSON *in,
			 const struct optim_ops **run, struct cJSON **composed,
			 char *err);
/* optim_ops.settings for a preset. */
int optim_preset_settings(const struct optim_ops *ops, const struct cJSON *in,
			  struct jsonbuf *out, char *err);
/* The ops called name, or DEHBQ_EINVAL with err naming the choices. */
int optim_find_ops(const char *name, const struct optim_ops **ops, char *err);
/* Validate a setup; err names the field. */
int optim_setup_check(const struct optim_setup *s, char *err);
/* A study of one fidelity (min = max) runs only under an optimiser ops
 * with OPTIM_CAP_ONE_FIDELITY; DEHBQ_EINVAL naming entry and those that
 * can. */
int optim_fidelity_check(const struct optim_ops *entry,
			 const struct optim_ops *ops,
			 const struct optim_setup *s, char *err);
/* An optimiser with empty books and no backend state, for table entry
 * `entry` run by ops; NULL: no memory. */
struct optim *optim_alloc(const struct optim_ops *entry,
			  const struct optim_ops *ops,
			  const struct optim_setup *s);
/* One history record: a told job, its vector and result (y: the nobj
 * objectives of a multi-objective result, NULL otherwise), as a line;
 * flags: 1 a re-tell (of a requeued job), 2 a stopped job. */
void optim_history_record(struct jsonbuf *b, const struct optim_job *j,
			  const double *x, int dim, int flags, double loss,
			  const double *y, int nobj, double cost);
/* Scores moved: rescore the backend (multi-objective only, else OK). */
int optim_mo_rescore(struct optim *o);
/* The job fields of a record or an in-flight entry (e), vector into x. */
int optim_job_parse(const struct cJSON *e, int64_t max_id, int dim,
		    struct optim_job *j, double *x, char *err);
/* A job in flight as a JSON object (the snapshot's and records'). */
void optim_put_job(struct jsonbuf *b, const struct optim_fl *e, int dim);
/* The in-flight entry of id, or NULL. */
struct optim_fl *optim_fl_find(const struct optim *o, uint64_t id);
/* A stopped job's tell (OPTIM_STOPPED): DEHBQ_OK when the optimiser
 * stopped job id, with *loss replaced by its last reported one when not
 * finite; else DEHBQ_ENOENT, DEHBQ_ESTATE or DEHBQ_EINVAL as optim_tell. */
int optim_stopped_loss(const struct optim *o, uint64_t id, double *loss);
/* One history record of an intermediate result of e's job. */
void optim_report_record(struct jsonbuf *b, const struct optim_fl *e, int dim,
			 double fidelity, double loss);
/* A history record that is a report (made by optim_report_record): its
 * job, vector, fidelity and loss back into the backend (replay, told 3).
 * n: the record's number, for messages. */
int optim_report_replay(struct optim *o, const struct cJSON *e, double *x,
			int64_t n, char *err);
/* The in-flight members of e beyond its job (reopened, reported, stop),
 * appended to an open job object; and read back. */
void optim_fl_put_extra(struct jsonbuf *b, const struct optim_fl *e);
int optim_fl_get_extra(const struct cJSON *j, struct optim_fl *e, char *err);
/* Add a job to the in-flight table (a copy of vec); DEHBQ_ESTATE: there. */
int optim_fl_insert(struct optim *o, const struct optim_job *job,
		    const double *vec);

#endif
