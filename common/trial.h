/*
 * trial.h - the trial file, "dehbq-trial/1" (docs/protocol.md)
 *
 * Written only by the orchestrator (staging/ then pending/), immutable
 * afterwards except by rename: claimed by a worker, archived after its
 * result is ingested.  A requeue writes a new file with attempt + 1.
 *
 * A worker validates every field before running anything: the id matches
 * the file name, the study matches study.json, the fidelity is a positive
 * finite double, the vector has the space's dimension with entries in
 * [0, 1], and the config has exactly the space's parameters with legal
 * values.  Nothing in a trial file chooses what gets executed: the config
 * only reaches the trainer as data (a JSON file, placeholders, env vars).
 *
 * Ownership: trial_parse()/trial_load() fill a struct trial that owns vec
 * and config (string values point into the space, which must outlive the
 * trial); trial_release() frees them.  trial_render() returns malloc'ed
 * text.
 */
#ifndef DEHBQ_TRIAL_H
#define DEHBQ_TRIAL_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"

struct space;
struct space_value;

#define TRIAL_FORMAT	"dehbq-trial/1"
#define TRIAL_CAP	(4u << 20)
#define TRIAL_STATE_MAX 256 /* = OPTIM_STATE_MAX */

enum trial_kind {
	TRIAL_KIND_TRIAL = 0, /* "trial": a new DE trial vector */
	TRIAL_KIND_PROMOTION, /* "promotion": a survivor re-run higher */
	TRIAL_KIND_RANDOM,    /* "random": a random sample (baselines) */
	TRIAL_KIND_PRIOR,     /* "prior": drawn from a transfer prior */
	TRIAL_KINDS	      /* how many */
};

struct trial {
	uint64_t id;		  /* trial id (engine job id) */
	char study[ID_STUDY_LEN]; /* study uuid */
	int64_t epoch;		  /* fencing epoch of the writer */
	int64_t bracket;	  /* bracket id */
	int rung;		  /* rung within the bracket */
	double fidelity;	  /* exact fidelity to train at */
	enum trial_kind kind;	  /* how the config was produced */
	int64_t parent;		  /* promotion: trial evaluated lower; -1 */
	char optimizer[TRIAL_STATE_MAX]; /* the optimiser's opaque state
					    for this trial (JSON text), ""
					    if none; never interpreted here */
	int attempt;			 /* 1 + number of requeues */
	uint64_t token;			 /* the token (id.h); 0: none,
					    a file from before tokens */
	double created;			 /* unix time the file was written */
	uint64_t seed;			 /* seed for the trainer, {seed} */
	int dim;			 /* entries in vec and config */
	double *vec;			 /* unit-cube vector, owned */
	struct space_value *config;	 /* decoded config, owned */
};

const char *trial_kind_name(enum trial_kind k);
/* The kind named s into *k; DEHBQ_EINVAL when s names none. */
int trial_kind_parse(const char *s, enum trial_kind *k);

/* Allocate vec and config for dim entries; the rest is zeroed. */
int trial_init(struct trial *t, int dim);
void trial_release(struct trial *t);

int trial_parse(const char *name, const char *text, size_t len,
		const struct space *sp, struct trial *t, char *err);
int trial_load(const char *path, const struct space *sp, struct trial *t,
	       char *err);

/* Pretty JSON, trailing newline; config from t->config, vector exact. */
int trial_render(const struct trial *t, const struct space *sp, char **out);

#endif
