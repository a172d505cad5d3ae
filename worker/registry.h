/*
 * registry.h - this worker's entry in workers/: HOST.PID.WID.json
 *
 * Calling sequence:
 *   struct registry rg;
 *   registry_init(&rg, root, host, pid, worker, argv0);
 *   rg.slot = i; rg.parent = ppid; rg.gpus = "3,5";   a slot (slots.h)
 *   registry_write(&rg, NULL);          idle
 *   registry_write(&rg, "00000042");    running a trial
 *   registry_touch(&rg);                heartbeat (every lease / 4)
 *   registry_remove(&rg);               clean exit
 *
 * Error handling: DEHBQ_OK, DEHBQ_ETOOBIG (path or name too long),
 * DEHBQ_ENOMEM, DEHBQ_ESYS (errno set).  A failed write leaves the old
 * file in place.  registry_touch() rewrites the file when it has vanished
 * (the orchestrator may remove entries whose heartbeat looked stale).
 *
 * Ownership: a struct registry is caller storage; it copies what it needs.
 */
#ifndef DEHBQ_REGISTRY_H
#define DEHBQ_REGISTRY_H

#include "id.h"
#include "study.h"

#define REGISTRY_FORMAT "dehbq-worker/1"

struct registry {
	char root[STUDY_PATH_MAX];  /* study directory */
	char path[STUDY_PATH_MAX];  /* workers/HOST.PID.WID.json */
	char host[ID_HOST_LEN];	    /* sanitised host name */
	long pid;		    /* our pid */
	char worker[ID_WORKER_LEN]; /* our worker id */
	double started;		    /* unix time the worker started */
	char command[1024];	    /* argv[0] of the trainer */
	char trial[ID_TRIAL_LEN];   /* current trial id, "" when idle */
	int slot;		    /* slot of a --slots worker, -1: none */
	long parent;		    /* ... the pid of its worker */
	const char *gpus;	    /* its devices ("" or NULL: none),
				       borrowed */
};

int registry_init(struct registry *rg, const char *root, const char *host,
		  long pid, const char *worker, const char *command);
/* Rewrite the file atomically; trial NULL or "" means idle. */
int registry_write(struct registry *rg, const char *trial);
int registry_touch(struct registry *rg);
int registry_remove(struct registry *rg);

/* The file's text (malloc'ed, caller frees); for registry_write and tests. */
int registry_render(const struct registry *rg, char **out);

#endif
