/*
 * claim.h - find a pending trial, claim it by rename, validate it
 *
 * Calling sequence:
 *   struct claim_ctx cx = { root, spec, host, pid, worker, k, lg };
 *   struct claim_list l;
 *   claim_list_init(&l);
 *   claim_scan(&cx, &l);                    list pending/, quarantine junk
 *   while (l.n) {
 *           i = claim_choose(l.ents, l.n, k, rng_u64(&r));
 *           rc = claim_try(&cx, &l.ents[i], &c, err);
 *           claim_list_remove(&l, i);
 *           if (rc == DEHBQ_OK) ... run c.trial ... claim_release(&c);
 *           DEHBQ_ELOST: someone else won, or the file was bad and is now
 *           in quarantine/ (err says why): try the next one.
 *   }
 *   claim_list_release(&l);
 * claim_giveback() renames a claim back to pending/PP-ID.json (same
 * attempt) for SIGTERM; it is the only way a worker un-claims a trial.
 * A claim whose result is published stays in claimed/: the orchestrator
 * archives it when it tells the result, after matching it (protocol.md).
 *
 * Error handling: DEHBQ_OK, DEHBQ_ELOST (not an error; nothing claimed),
 * DEHBQ_ESYS (errno set: the study directory is unusable), DEHBQ_ENOMEM.
 * A failed claim_try() leaves no claim behind.
 *
 * Ownership: the context borrows root, spec and the logger.  A struct
 * claim owns its trial (claim_release() frees it); struct claim_list owns
 * its array.
 */
#ifndef DEHBQ_CLAIM_H
#define DEHBQ_CLAIM_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "id.h"
#include "study.h"
#include "trial.h"

struct spec;
struct logmsg;

#define CLAIM_PICK_K 8 /* default: choose among the first 8 of the best */

struct claim_ctx {
	const char *root;	    /* study directory, borrowed */
	const struct spec *spec;    /* study.json, borrowed */
	char host[ID_HOST_LEN];	    /* sanitised host name */
	long pid;		    /* our pid */
	char worker[ID_WORKER_LEN]; /* our worker id */
	const struct logmsg *lg;    /* logger for quarantine notes */
};

struct claim_entry {
	char name[24]; /* "PP-IIIIIIII.json", validated */
	int rung;      /* 99 - PP */
	uint64_t id;   /* trial id from the name */
};

struct claim_list {
	struct claim_entry *ents; /* sorted ascending by name (best first) */
	size_t n;		  /* entries in use */
	size_t cap;		  /* entries allocated */
};

struct claim {
	struct trial trial;	   /* validated trial, owned */
	char path[STUDY_PATH_MAX]; /* claimed/ID@HOST.PID.WID.json */
	char pending_name[24];	   /* name it had in pending/ */
	dev_t dev;		   /* the claimed file: the heartbeat touches */
	ino_t ino;		   /* it only while path still names it */
};

void claim_list_init(struct claim_list *l);
void claim_list_release(struct claim_list *l);
/* Drop entry i, keeping the order. */
void claim_list_remove(struct claim_list *l, size_t i);

/*
 * Fill l with the valid names of pending/, sorted.  Dotfiles are skipped;
 * other bad names and non-regular files (symlinks, FIFOs, directories)
 * are moved to quarantine/ with a .reason file, without being opened.
 */
int claim_scan(const struct claim_ctx *cx, struct claim_list *l);

/*
 * Add a name announced by inotify to l if it is a valid pending name (and
 * not there yet), keeping l sorted.  Returns DEHBQ_OK (also for a name that
 * is ignored) or DEHBQ_ENOMEM.  The file itself is only looked at when it
 * is claimed, as with claim_scan().
 */
int claim_list_add_hint(struct claim_list *l, const char *name);

/*
 * Index of the entry to try: the best priority group is the run of
 * entries sharing ents[0]'s rung; pick uniformly (by rnd) among its first
 * min(k, group) entries.  n must be > 0.
 */
size_t claim_choose(const struct claim_entry *ents, size_t n, int k,
		    uint64_t rnd);

/* Rename e to claimed/ and validate it; see the calling sequence. */
int claim_try(const struct claim_ctx *cx, const struct claim_entry *e,
	      struct claim *c, char *err);

/* Move claimed/... back to pending/PP-ID.json.  DEHBQ_ENOENT if gone. */
int claim_giveback(const struct claim_ctx *cx, const struct claim *c);
/*
 * Move the file at from_path (dir/name, or a claimed copy of it) into
 * quarantine/ beside a reason file (common/quarantine.h) and log it.
 * DEHBQ_ENOENT if somebody else moved it first.
 */
int claim_quarantine(const struct claim_ctx *cx, const char *from_path,
		     const char *where, const char *name, const char *why);

void claim_release(struct claim *c);

#endif
