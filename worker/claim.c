/*
 * claim.c - find a pending trial, claim it by rename, validate it
 *
 * Protocol (docs/protocol.md, section 5):
 *   - pending/ holds only PP-IIIIIIII.json regular files.  Dotfiles are
 *     temporary files or NFS silly renames and are skipped.  Anything else
 *     (bad name, symlink, FIFO, directory) is renamed into quarantine/
 *     without being opened, as quarantine/pending.NAME, plus
 *     quarantine/pending.NAME.reason (one line).
 *   - Names sort best first (PP = 99 - rung).  A worker picks at random
 *     among the first k names of the best rung, so a thousand workers do
 *     not all race for the same file.
 *   - Claim = rename(pending/PP-ID.json, claimed/ID@HOST.PID.WID.json).
 *     ENOENT means another worker won (atomicfile_move() already checked
 *     whether a retried NFS rename in fact succeeded): DEHBQ_ELOST.
 *   - The pending file's mtime is set to now just before the rename (it
 *     is the heartbeat, rename keeps it, and the claim must never appear
 *     with the age of the wait in pending/), through a descriptor opened
 *     with O_NOFOLLOW and checked: a regular file with exactly one link.
 *     Anything else is quarantined untouched, so a file outside the study
 *     hard-linked into pending/ never has its mtime changed.
 *   - Only after the rename is the file read, with O_NOFOLLOW and a size
 *     cap, and validated against study.json: the id matches the name, the
 *     study id matches, the rung matches PP, every field is legal.  A bad
 *     file goes to quarantine/ and nothing runs.
 *   - Release (SIGTERM) renames the claim back to pending/PP-ID.json with
 *     the file unchanged, so the attempt stays the same.
 */
#include "claim.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "logmsg.h"
#include "quarantine.h"
#include "spec.h"

/* Copy name for a log line, replacing bytes that are not printable. */
void claim_list_init(struct claim_list *l)
{
	l->ents = NULL;
	l->n = 0;
	l->cap = 0;
}

void claim_list_release(struct claim_list *l)
{
	free(l->ents);
	claim_list_init(l);
}

void claim_list_remove(struct claim_list *l, size_t i)
{
	if (i >= l->n)
		return;
	memmove(&l->ents[i], &l->ents[i + 1],
		(l->n - i - 1) * sizeof(l->ents[0]));
	l->n--;
}

static int push(struct claim_list *l, const char *name, int rung, uint64_t id)
{
	struct claim_entry *e;
	size_t len = strlen(name);

	if (len >= sizeof(e->name))
		return DEHBQ_EINVAL; /* cannot happen: the name was parsed */
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;

		e = realloc(l->ents, cap * sizeof(*e));
		if (!e)
			return DEHBQ_ENOMEM;
		l->ents = e;
		l->cap = cap;
	}
	e = &l->ents[l->n++];
	memcpy(e->name, name, len + 1);
	e->rung = rung;
	e->id = id;
	return DEHBQ_OK;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct claim_entry *)a)->name,
		      ((const struct claim_entry *)b)->name);
}

int claim_quarantine(const struct claim_ctx *cx, const char *from_path,
		     const char *where, const char *name, const char *why)
{
	char shown[STUDY_NAME_MAX], qn[STUDY_NAME_MAX], qshown[STUDY_NAME_MAX];
	char reason[DEHBQ_ERRLEN];
	int rc, re;

	rc = quarantine_move(cx->root, from_path, where, name, why, 0, qn,
			     sizeof(qn), &re);
	if (rc)
		return rc;
	fsutil_printable(name, shown, sizeof(shown));
	fsutil_printable(qn, qshown, sizeof(qshown));
	fsutil_printable(why, reason, sizeof(reason));
	if (re)
		logmsg_w(cx->lg, "cannot write 'quarantine/%s.reason': %s",
			 qshown, strerror(re));
	logmsg_w(cx->lg, "quarantined %s/%s as quarantine/%s: %s", where, shown,
		 qshown, reason);
	return DEHBQ_OK;
}

/* Quarantine a junk entry of pending/; losing the race is fine. */
static void junk(const struct claim_ctx *cx, const char *name, const char *why)
{
	char from[STUDY_PATH_MAX];

	if (study_path(from, sizeof(from), cx->root, "pending/%s", name))
		return;
	if (claim_quarantine(cx, from, "pending", name, why) == DEHBQ_ESYS) {
		char shown[STUDY_NAME_MAX];

		fsutil_printable(name, shown, sizeof(shown));
		logmsg_w(cx->lg, "cannot quarantine 'pending/%s': %s", shown,
			 strerror(errno));
	}
}

int claim_scan(const struct claim_ctx *cx, struct claim_list *l)
{
	char dir[STUDY_PATH_MAX], p[STUDY_PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = DEHBQ_ESYS, rung, e;
	uint64_t id;

	l->n = 0;
	if (study_path(dir, sizeof(dir), cx->root, "pending"))
		return DEHBQ_ETOOBIG;
	if (!(d = opendir(dir)))
		return DEHBQ_ESYS;
	for (;;) {
		unsigned char type;

		errno = 0;
		if (!(de = readdir(d))) {
			if (errno)
				goto fail;
			break;
		}
		if (fsutil_skip_name(de->d_name))
			continue;
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (study_path(p, sizeof(p), cx->root, "pending/%s",
				       de->d_name) ||
			    lstat(p, &st) < 0)
				continue; /* gone already */
			type = S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		}
		if (type != DT_REG) {
			junk(cx, de->d_name,
			     "not a regular file (symlink, FIFO or directory)");
			continue;
		}
		if (study_parse_pending(de->d_name, &rung, &id)) {
			junk(cx, de->d_name,
			     "not a pending trial name (PP-IIIIIIII.json)");
			continue;
		}
		if ((rc = push(l, de->d_name, rung, id)))
			goto fail;
	}
	if (l->n > 1)
		qsort(l->ents, l->n, sizeof(l->ents[0]), cmp_entry);
	closedir(d);
	return DEHBQ_OK;
fail:
	e = errno;
	closedir(d);
	errno = e;
	return rc;
}

int claim_list_add_hint(struct claim_list *l, const char *name)
{
	uint64_t id;
	size_t i;
	int rung, rc;

	if (study_parse_pending(name, &rung, &id))
		return DEHBQ_OK;
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->ents[i].name, name))
			return DEHBQ_OK;
	if ((rc = push(l, name, rung, id)))
		return rc;
	if (l->n > 1)
		qsort(l->ents, l->n, sizeof(l->ents[0]), cmp_entry);
	return DEHBQ_OK;
}

size_t claim_choose(const struct claim_entry *ents, size_t n, int k,
		    uint64_t rnd)
{
	size_t g = 1;

	if (k < 1)
		k = 1;
	while (g < n && g < (size_t)k && ents[g].rung == ents[0].rung)
		g++;
	return (size_t)(rnd % g);
}

/*
 * Open pending/name without following a symlink, check that it is a
 * regular file with one link, and set its mtime to now through that
 * descriptor.  DEHBQ_ELOST when it is gone or was refused (quarantined).
 */
static int touch_checked(const struct claim_ctx *cx, const char *name,
			 const char *path, struct stat *st)
{
	char why[128];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return DEHBQ_ELOST;
		snprintf(why, sizeof(why), "cannot open: %s", strerror(errno));
		junk(cx, name, why);
		return DEHBQ_ELOST;
	}
	if (fstat(fd, st) < 0) {
		close(fd);
		return DEHBQ_ESYS;
	}
	if (!S_ISREG(st->st_mode) || st->st_nlink != 1) {
		close(fd);
		if (!S_ISREG(st->st_mode))
			snprintf(why, sizeof(why), "not a regular file");
		else
			snprintf(why, sizeof(why),
				 "has %lu hard links; a pending file must be "
				 "its only name (refused, not touched)",
				 (unsigned long)st->st_nlink);
		junk(cx, name, why);
		return DEHBQ_ELOST;
	}
	futimens(fd, NULL); /* failing it only ages the claim */
	close(fd);
	return DEHBQ_OK;
}

int claim_try(const struct claim_ctx *cx, const struct claim_entry *e,
	      struct claim *c, char *err)
{
	struct study_claim sc;
	char from[STUDY_PATH_MAX], cname[STUDY_NAME_MAX];
	char why[DEHBQ_ERRLEN];
	struct stat st, now;
	int rc;

	memset(c, 0, sizeof(*c));
	c->trial.parent = -1;
	err[0] = 0;
	memset(&sc, 0, sizeof(sc));
	sc.id = e->id;
	memcpy(sc.host, cx->host, sizeof(sc.host));
	sc.pid = cx->pid;
	memcpy(sc.worker, cx->worker, sizeof(sc.worker));
	if ((rc = study_claim_name(cname, sizeof(cname), &sc)) ||
	    (rc = study_path(from, sizeof(from), cx->root, "pending/%s",
			     e->name)) ||
	    (rc = study_path(c->path, sizeof(c->path), cx->root, "claimed/%s",
			     cname)))
		return rc == DEHBQ_EINVAL ? DEHBQ_ESTATE : rc;
	memcpy(c->pending_name, e->name, sizeof(c->pending_name));
	/*
	 * rename() keeps the mtime the orchestrator wrote, which may be older
	 * than the lease: touch the file before the rename, so the claim
	 * appears with a fresh heartbeat.  Touched after the rename, it would
	 * look expired to an orchestrator that scans claimed/ in between (its
	 * inotify wakes it on that very rename).  Touching a trial another
	 * worker then claims is harmless; our rename fails with ENOENT.
	 * The touch goes through a descriptor opened without following a
	 * symlink and checked first: a regular file with one link, so a file
	 * outside the study hard-linked into pending/ is never touched.
	 */
	if ((rc = touch_checked(cx, e->name, from, &st)))
		return rc;
	rc = atomicfile_move(from, c->path, 0);
	if (rc == DEHBQ_ENOENT)
		return DEHBQ_ELOST;
	if (rc)
		return rc;
	if (lstat(c->path, &now) < 0 || now.st_dev != st.st_dev ||
	    now.st_ino != st.st_ino || now.st_nlink != 1) {
		claim_quarantine(cx, c->path, "pending", e->name,
				 "replaced or hard-linked while being "
				 "claimed");
		return DEHBQ_ELOST;
	}
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	/* Ours now: read it (O_NOFOLLOW, capped) and check every field. */
	rc = trial_load(c->path, cx->spec->space, &c->trial, why);
	if (rc == DEHBQ_ENOMEM)
		goto giveback;
	if (rc == DEHBQ_ESYS)
		dehbq_errf(why, rc, "cannot read: %s", strerror(errno));
	else if (rc)
		; /* why holds the parser's message */
	else if (c->trial.id != e->id)
		rc = dehbq_errf(why, DEHBQ_EINVAL,
				"field 'id' (%08llu) does not match the name",
				(unsigned long long)c->trial.id);
	else if (strcmp(c->trial.study, cx->spec->study))
		rc = dehbq_errf(why, DEHBQ_EINVAL,
				"field 'study' (%s) is not this study (%s)",
				c->trial.study, cx->spec->study);
	else if (c->trial.rung != e->rung)
		rc = dehbq_errf(why, DEHBQ_EINVAL,
				"field 'rung' (%d) does not match the name",
				c->trial.rung);
	else if (c->trial.rung >= spec_levels(cx->spec))
		rc = dehbq_errf(why, DEHBQ_EINVAL,
				"field 'rung' (%d): the study has %d levels",
				c->trial.rung, spec_levels(cx->spec));
	else if (!(c->trial.fidelity >= cx->spec->min_fidelity * (1 - 1e-9)) ||
		 !(c->trial.fidelity <= cx->spec->max_fidelity * (1 + 1e-9)))
		rc = dehbq_errf(why, DEHBQ_EINVAL,
				"field 'fidelity' (%g) is outside the study's "
				"[%g, %g]",
				c->trial.fidelity, cx->spec->min_fidelity,
				cx->spec->max_fidelity);
	if (!rc)
		return DEHBQ_OK;
	trial_release(&c->trial);
	dehbq_errf(err, DEHBQ_EINVAL, "%s", why);
	if (claim_quarantine(cx, c->path, "pending", e->name, why) ==
	    DEHBQ_ESYS)
		logmsg_w(cx->lg, "cannot quarantine '%s': %s", c->path,
			 strerror(errno));
	return DEHBQ_ELOST;
giveback:
	trial_release(&c->trial);
	atomicfile_move(c->path, from, 0);
	return rc;
}

int claim_giveback(const struct claim_ctx *cx, const struct claim *c)
{
	char name[STUDY_NAME_MAX], to[STUDY_PATH_MAX];
	int rc;

	if ((rc = study_pending_name(name, sizeof(name), c->trial.rung,
				     c->trial.id)) ||
	    (rc = study_path(to, sizeof(to), cx->root, "pending/%s", name)))
		return rc;
	return atomicfile_move(c->path, to, 0);
}

void claim_release(struct claim *c)
{
	trial_release(&c->trial);
}
