/*
 * optim_dehb.h - the DEHB engine's optim_ops functions (optim_dehb.c), for
 * the schedulers built on the engine (optim_brackets.c).  Private to
 * optim/sched/.
 *
 * Each takes the engine (struct dehb *) as its `st`; ownership as optim.h.
 */
#ifndef DEHBQ_OPTIM_DEHB_H
#define DEHBQ_OPTIM_DEHB_H

#include <stdint.h>

#include "dehb.h"
#include "optim.h"

struct jsonbuf;

int optim_dehb_open_as(enum dehb_optimizer which, const struct optim_setup *su,
		       void **st, char *err);
int optim_dehb_ask(void *st, struct optim_job *job, double *vec);
int optim_dehb_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost);
int optim_dehb_reopen(void *st, const struct optim_job *job, const double *vec);
int64_t optim_dehb_brackets(const void *st);
int optim_dehb_done(const void *st);
int optim_dehb_limits(void *st, const struct optim_limits *lim);
int optim_dehb_describe(const void *st, struct jsonbuf *b);

/*
 * DEHB+prior (dehb_prior.c): guide engine d by the prior fitted on
 * s->transfer (steps per stage), k trials per DE trial, CTS draws of
 * ncand candidates for the subpopulations when draw is set (a fresh
 * engine).  Without earlier tasks in s, nothing to do: call it only with
 * them.
 */
int optim_dehb_prior(struct dehb *d, const struct optim_setup *s, int k,
		     int ncand, int steps, int draw, char *err);
/* ",transfer members" of status.json for a guided engine (nothing for an
 * unguided one); the prior's RMSE on the top subpopulation's results. */
int optim_dehb_prior_describe(const struct dehb *d, struct jsonbuf *b);

#endif
