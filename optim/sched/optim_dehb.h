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

/* An engine running `which` for setup su, max_active brackets at once
 * (0: any number). */
int optim_dehb_open_as(enum dehb_optimizer which, const struct optim_setup *su,
		       int max_active, void **st, char *err);
int optim_dehb_ask(void *st, struct optim_job *job, double *vec);
int optim_dehb_tell(void *st, const struct optim_job *job, const double *vec,
		    enum optim_status status, double loss, double cost);
int optim_dehb_reopen(void *st, const struct optim_job *job, const double *vec);
/* A job in flight after a load, or NULL at the end (dehb_replayed). */
int optim_dehb_replayed(void *st, const struct optim_job *job,
			const double *vec);
int64_t optim_dehb_brackets(const void *st);
int optim_dehb_done(const void *st);
int optim_dehb_limits(void *st, const struct optim_limits *lim);
int optim_dehb_describe(const void *st, struct jsonbuf *b);

#endif
