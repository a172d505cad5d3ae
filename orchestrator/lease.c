/*
 * lease.c - the orchestrator lease, heartbeat and fencing epoch
 *
 * Invariants:
 *   - we only write study state while lease.json holds our epoch and nonce;
 *   - every takeover increases the epoch, so files written by an older
 *     orchestrator are recognisable and its snapshots never win.
 * Takeover is judged in filesystem time, so skewed clocks cannot expire a
 * live lease early.  A holder on this host whose pid is gone is dead, and
 * its lease is taken at once (fast restart after kill -9).
 */
#include "lease.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "study.h"
#include "timeutil.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <uuid.h>

struct lease_file {
	int64_t epoch;		/* holder's epoch */
	char host[ID_HOST_LEN]; /* holder's host */
	long pid;		/* holder's pid */
	char nonce[17];		/* holder's nonce */
	double mtime;		/* heartbeat, filesystem time */
};

int lease_fs_now(const char *root, double *now)
{
	char p[STUDY_PATH_MAX];

	if (study_path(p, sizeof(p), root, "state/clock"))
		return DEHBQ_ETOOBIG;
	return timeutil_fs_now(p, now);
}

/* Read and check lease.json; its mtime too when with_mtime (a stat). */
static int read_lease(const char *root, struct lease_file *lf, int with_mtime,
		      char *err)
{
	static const char *const keys[] = {"format",  "epoch", "host", "pid",
					   "started", "nonce", NULL};
	char p[STUDY_PATH_MAX];
	struct jsonfile *jf;
	const cJSON *r;
	const char *s;
	int64_t v;
	int rc;

	memset(lf, 0, sizeof(*lf));
	if (study_path(p, sizeof(p), root, "state/lease.json"))
		return DEHBQ_ETOOBIG;
	if ((rc = jsonfile_load(p, JSONFILE_CAP, &jf, err)))
		return rc == DEHBQ_ESYS && errno == ENOENT ? DEHBQ_ENOENT : rc;
	r = jsonfile_root(jf);
	if ((rc = jsonfile_check_format(jf, "dehbq-lease/1", err)) ||
	    (rc = jsonfile_check_keys(jf, r, keys, err)) ||
	    (rc = jsonfile_get_int(jf, r, "epoch", JSONFILE_REQUIRED, 1, 999999,
				   &lf->epoch, err)) ||
	    (rc = jsonfile_get_int(jf, r, "pid", JSONFILE_REQUIRED, 1,
				   INT32_MAX, &v, err)))
		goto out;
	lf->pid = (long)v;
	if ((rc = jsonfile_get_string(jf, r, "host", JSONFILE_REQUIRED, &s,
				      err)))
		goto out;
	if (!id_is_host(s)) {
		rc = jsonfile_errf(jf, r, err, "field 'host': invalid");
		goto out;
	}
	memcpy(lf->host, s, strlen(s) + 1);
	if ((rc = jsonfile_get_string(jf, r, "nonce", JSONFILE_REQUIRED, &s,
				      err)))
		goto out;
	if (strlen(s) != 16) {
		rc = jsonfile_errf(jf, r, err, "field 'nonce': invalid");
		goto out;
	}
	memcpy(lf->nonce, s, 17);
	rc = with_mtime ? timeutil_mtime(p, &lf->mtime) : DEHBQ_OK;
out:
	jsonfile_free(jf);
	return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
}

static int write_lease(struct lease *l)
{
	char p[STUDY_PATH_MAX], started[TIMEUTIL_ISO_LEN];
	char *buf = l->text;
	int n;

	if (study_path(p, sizeof(p), l->root, "state/lease.json"))
		return DEHBQ_ETOOBIG;
	timeutil_iso(timeutil_now(), started);
	l->textlen = 0;
	n = snprintf(buf, sizeof(l->text),
		     "{\n\t\"format\":\t\"dehbq-lease/1\",\n"
		     "\t\"epoch\":\t%lld,\n\t\"host\":\t\"%s\",\n"
		     "\t\"pid\":\t%ld,\n\t\"started\":\t\"%s\",\n"
		     "\t\"nonce\":\t\"%s\"\n}\n",
		     (long long)l->epoch, l->host, l->pid, started, l->nonce);
	if (n < 0 || (size_t)n >= sizeof(l->text))
		return DEHBQ_ETOOBIG;
	if ((n = atomicfile_write(p, buf, (size_t)n, 0666, 0)))
		return n;
	l->textlen = strlen(buf);
	return DEHBQ_OK;
}

/* 1 when lease.json still holds exactly what we wrote: no parse needed. */
static int lease_unchanged(const struct lease *l)
{
	char p[STUDY_PATH_MAX], *text;
	size_t len;
	int same;

	if (!l->textlen ||
	    study_join(p, sizeof(p), l->root, "state/lease.json", NULL) ||
	    fsutil_read_file(p, sizeof(l->text), &text, &len))
		return 0;
	same = len == l->textlen && !memcmp(text, l->text, len);
	free(text);
	return same;
}

int lease_holder_gone(const char *host, long pid)
{
	char here[ID_HOST_LEN];

	id_host(here);
	return pid > 0 && !strcmp(host, here) && kill((pid_t)pid, 0) < 0 &&
	       errno == ESRCH;
}

int lease_acquire(struct lease *l, const char *root, double secs,
		  int64_t min_epoch, double settle, const char *retry,
		  char *err)
{
	struct lease_file lf;
	unsigned char u[16];
	double now;
	int rc, i;

	memset(l, 0, sizeof(*l));
	l->root = root;
	l->secs = secs;
	l->pid = (long)getpid();
	id_host(l->host);
	uuid_generate_random(u);
	for (i = 0; i < 8; i++)
		snprintf(l->nonce + 2 * i, 3, "%02x", u[i]);
	if ((rc = lease_fs_now(root, &now)))
		return dehbq_errf(err, rc,
				  "unable to touch '%s/state/clock': %s", root,
				  strerror(errno));
	rc = read_lease(root, &lf, 1, err);
	if (rc == DEHBQ_OK) {
		/* the lease this process wrote before a failed start (its
		 * write, or the snapshot's, failed after the lease was in
		 * place): its own, by its random nonce */
		int ours = retry && !strcmp(lf.nonce, retry);
		int dead_here = lease_holder_gone(lf.host, lf.pid);
		double age = now - lf.mtime;

		if (!ours && !dead_here && age < secs)
			return dehbq_errf(
				err, DEHBQ_EAGAIN,
				"study is run by another orchestrator "
				"on %s (pid %ld, epoch %lld, heartbeat "
				"%.1f s ago); if it is dead, its lease "
				"expires in %.0f s",
				lf.host, lf.pid, (long long)lf.epoch,
				age < 0 ? 0 : age, secs - age);
		if (lf.epoch > min_epoch)
			min_epoch = lf.epoch;
	} else if (rc != DEHBQ_EINVAL && rc != DEHBQ_ENOENT) {
		return rc; /* an unreadable lease is replaced; others fail */
	}
	if (min_epoch >= LEASE_EPOCH_MAX)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "'%s/state/lease.json': epoch %lld is the "
				  "last one; the lease file was tampered with",
				  root, (long long)min_epoch);
	l->epoch = min_epoch + 1;
	if ((rc = write_lease(l)))
		return dehbq_errf(err, rc,
				  "unable to write '%s/state/lease.json'"
				  ": %s",
				  root, strerror(errno));
	/* Two orchestrators may have written at once: the last rename wins,
	 * and the loser sees someone else's nonce. */
	timeutil_sleep(settle, NULL);
	if ((rc = lease_check(l, err)))
		return rc == DEHBQ_EFENCED ? DEHBQ_EAGAIN : rc;
	l->last_beat = timeutil_mono();
	return DEHBQ_OK;
}

int lease_check(struct lease *l, char *err)
{
	struct lease_file lf;
	int rc;

	/* every batch: the bytes we wrote mean our epoch and nonce */
	if (lease_unchanged(l))
		return DEHBQ_OK;
	rc = read_lease(l->root, &lf, 0, err);
	if (rc == DEHBQ_ESYS)
		return rc;
	if (rc || lf.epoch != l->epoch || strcmp(lf.nonce, l->nonce))
		return dehbq_errf(err, DEHBQ_EFENCED,
				  "lease taken over by %s (pid %ld, epoch "
				  "%lld; ours is %lld)",
				  rc ? "?" : lf.host, rc ? 0L : lf.pid,
				  (long long)(rc ? 0 : lf.epoch),
				  (long long)l->epoch);
	return DEHBQ_OK;
}

int lease_raise(struct lease *l, int64_t epoch, char *err)
{
	int rc;

	if (epoch <= l->epoch)
		return DEHBQ_OK;
	if (epoch > LEASE_EPOCH_MAX)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "'%s/state': epoch %lld is past the last "
				  "one (%d)",
				  l->root, (long long)epoch, LEASE_EPOCH_MAX);
	l->epoch = epoch;
	if ((rc = write_lease(l)))
		return dehbq_errf(err, rc,
				  "unable to write '%s/state/lease.json': %s",
				  l->root, strerror(errno));
	return DEHBQ_OK;
}

int lease_heartbeat(struct lease *l)
{
	char p[STUDY_PATH_MAX];

	if (study_path(p, sizeof(p), l->root, "state/lease.json"))
		return DEHBQ_ETOOBIG;
	if (utimes(p, NULL) < 0)
		return DEHBQ_ESYS;
	l->last_beat = timeutil_mono();
	return DEHBQ_OK;
}
