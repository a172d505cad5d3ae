/*
 * lease.h - one orchestrator per study: the lease file and fencing
 *
 * state/lease.json ("dehbq-lease/1": epoch, host, pid, started, nonce) names
 * the orchestrator that runs the study; its mtime is the heartbeat.  Ages
 * are measured in filesystem time: the lease's mtime against the mtime of
 * state/clock, just touched (docs/protocol.md section 7).
 *
 * Calling sequence:
 *   lease_acquire(&l, root, lease_secs, min_epoch, err)  at start
 *   each batch: lease_check(&l) then lease_heartbeat(&l)
 *
 * Error handling: lease_acquire returns DEHBQ_OK, DEHBQ_EAGAIN (held by a
 * live orchestrator; err names it) or DEHBQ_ESYS.  lease_check returns
 * DEHBQ_EFENCED when the file is no longer ours: stop without writing.
 *
 * Ownership: struct lease is the caller's; it borrows root.
 */
#ifndef DEHBQ_LEASE_H
#define DEHBQ_LEASE_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"

#define LEASE_EPOCH_MAX 999999 /* epochs are 6 digits in snapshot names */

struct lease {
	const char *root;	/* study directory, borrowed */
	double secs;		/* lease length in seconds */
	int64_t epoch;		/* our fencing epoch */
	char nonce[17];		/* our random nonce, 16 hex */
	char host[ID_HOST_LEN]; /* our host */
	long pid;		/* our pid */
	double last_beat;	/* monotonic time of the last heartbeat */
	char text[512];		/* lease.json as we last wrote it */
	size_t textlen;		/* its length; 0 before the first write */
};

/*
 * retry: NULL on a first start; on a start retried after a failure, the
 * nonce this process wrote before (a lease that holds it is its own and
 * is taken over; host and pid alone could be another namespace's).
 */
int lease_acquire(struct lease *l, const char *root, double secs,
		  int64_t min_epoch, double settle, const char *retry,
		  char *err);
int lease_check(struct lease *l, char *err);
/* 1 when host is this host and process pid no longer exists: a holder
 * that died without stopping (kill -9), whose lease need not expire. */
int lease_holder_gone(const char *host, long pid);
/*
 * Raise our epoch to at least `epoch` (rewrites lease.json; we hold the
 * lease).  Called after loading a snapshot written under a higher epoch
 * than the lease file said.  DEHBQ_EINVAL past LEASE_EPOCH_MAX.
 */
int lease_raise(struct lease *l, int64_t epoch, char *err);
int lease_heartbeat(struct lease *l);
/* Filesystem time now (touches state/clock). */
int lease_fs_now(const char *root, double *now);

#endif
