/*
 * study.c - study directory layout and the exact grammar of its file names
 *
 * Names carry only routing facts (id, rung priority, claimant, attempt);
 * everything else lives in the JSON inside.  The grammar is strict: a name
 * that does not parse is not ours and is quarantined by whoever scans it.
 */
#include "study.h"

#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *const study_dirs[] = {
	"staging",    "pending",  "claimed",	    "results", "archive",
	"quarantine", "state",	  "state/requests", "workers", "logs",
	"work",	      "progress", "stop",	    NULL,
};

int study_create_dirs(const char *root)
{
	char p[STUDY_PATH_MAX];
	int i, rc;

	if ((rc = fsutil_mkdir_p(root, 0777)))
		return rc;
	for (i = 0; study_dirs[i]; i++) {
		if (study_path(p, sizeof(p), root, "%s", study_dirs[i]))
			return DEHBQ_ETOOBIG;
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			return DEHBQ_ESYS;
	}
	return fsutil_fsync_dir(root);
}

int study_path(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	size_t r = strlen(root);
	va_list ap;
	int n = -1;

	if (r + 1 < size) { /* one vsnprintf: this is on every trial's path */
		memcpy(buf, root, r);
		buf[r] = '/';
		va_start(ap, fmt);
		n = vsnprintf(buf + r + 1, size - r - 1, fmt, ap);
		va_end(ap);
	}
	if (n < 0 || (size_t)n >= size - r - 1) {
		if (size)
			buf[0] = 0;
		errno = ENAMETOOLONG;
		return DEHBQ_ETOOBIG;
	}
	return DEHBQ_OK;
}

int study_join(char *buf, size_t size, const char *root, const char *dir,
	       const char *name)
{
	const char *part[3] = {root, dir, name};
	size_t len = 0, n, i;

	for (i = 0; i < 3 && part[i]; i++) {
		n = strlen(part[i]) + (i > 0); /* and its '/' */
		if (len + n >= size) {
			if (size)
				buf[0] = 0;
			errno = ENAMETOOLONG;
			return DEHBQ_ETOOBIG;
		}
		if (i)
			buf[len++] = '/';
		memcpy(buf + len, part[i], n - (i > 0));
		len += n - (i > 0);
	}
	buf[len] = 0;
	return DEHBQ_OK;
}

unsigned study_shard(uint64_t id)
{
	return (unsigned)(id / 10000);
}

void study_archive_dir(char out[STUDY_ARCHIVE_DIR_LEN], uint64_t id)
{
	unsigned sh = study_shard(id), i;

	memcpy(out, "archive/", 8);
	for (i = 0; i < 4; i++, sh /= 10) /* "%04u": shards stop at 9999 */
		out[11 - i] = (char)('0' + sh % 10);
	out[12] = 0;
}

int study_trial_archive_path(char *buf, size_t size, const char *root,
			     uint64_t id)
{
	char dir[STUDY_ARCHIVE_DIR_LEN], name[ID_TRIAL_LEN + 11];

	if (id_trial_format(id, name)) {
		if (size)
			buf[0] = 0;
		return DEHBQ_ETOOBIG;
	}
	memcpy(name + ID_TRIAL_LEN - 1, ".trial.json", 12);
	study_archive_dir(dir, id);
	return study_join(buf, size, root, dir, name);
}

int study_archive_file(char *buf, size_t size, const char *root, uint64_t id,
		       int attempt, const char *kind)
{
	char dir[STUDY_ARCHIVE_DIR_LEN], name[STUDY_NAME_MAX];
	int n;

	if (id > ID_TRIAL_MAX || attempt < 0)
		return DEHBQ_EINVAL;
	n = attempt ? snprintf(name, sizeof(name), "%08llu.a%d.%s.json",
			       (unsigned long long)id, attempt, kind)
		    : snprintf(name, sizeof(name), "%08llu.%s.json",
			       (unsigned long long)id, kind);
	if (n < 0 || (size_t)n >= sizeof(name))
		return DEHBQ_ETOOBIG;
	study_archive_dir(dir, id);
	return study_join(buf, size, root, dir, name);
}

int study_log_path(char *buf, size_t size, const char *root, uint64_t id,
		   int attempt, const char *stream)
{
	if (id > ID_TRIAL_MAX)
		return DEHBQ_EINVAL;
	if (!root[0])
		return fsutil_pathf(buf, size, "logs/%04u/%08llu.a%d.%s",
				    study_shard(id), (unsigned long long)id,
				    attempt, stream)
			       ? DEHBQ_ETOOBIG
			       : DEHBQ_OK;
	return study_path(buf, size, root, "logs/%04u/%08llu.a%d.%s",
			  study_shard(id), (unsigned long long)id, attempt,
			  stream);
}

/* Parse exactly n decimal digits at s into *v. */
static int digits(const char *s, int n, uint64_t *v)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static int ends_with_json(const char *name, size_t *stem)
{
	size_t n = strlen(name);

	if (n < 6 || strcmp(name + n - 5, ".json"))
		return 0;
	*stem = n - 5;
	return 1;
}

int study_archive_name_id(const char *name, uint64_t *id)
{
	const char *p = name;

	if (!strncmp(p, "claimed.", 8))
		p += 8;
	else if (!strncmp(p, "pending.", 8))
		p += 11; /* PP- */
	if (strnlen(p, 9) < 9 || (p[8] != '.' && p[8] != '@') ||
	    digits(p, 8, id))
		return DEHBQ_EINVAL;
	return DEHBQ_OK;
}

int study_staging_name(char *buf, size_t size, uint64_t id)
{
	if (id > ID_TRIAL_MAX)
		return DEHBQ_EINVAL;
	return fsutil_pathf(buf, size, "%08llu.json", (unsigned long long)id);
}

int study_parse_staging(const char *name, uint64_t *id)
{
	return strlen(name) == 13 && !strcmp(name + 8, ".json") &&
			       !digits(name, 8, id)
		       ? DEHBQ_OK
		       : DEHBQ_EINVAL;
}

int study_pending_name(char *buf, size_t size, int rung, uint64_t id)
{
	int p = STUDY_MAX_RUNG - rung;

	/* "%02d-%08llu.json", without printf: one per published trial */
	if (rung < 0 || rung > STUDY_MAX_RUNG || id > ID_TRIAL_MAX ||
	    size < 17) {
		if (size)
			buf[0] = 0;
		return DEHBQ_ETOOBIG;
	}
	buf[0] = (char)('0' + p / 10);
	buf[1] = (char)('0' + p % 10);
	buf[2] = '-';
	id_trial_format(id, buf + 3);
	memcpy(buf + 11, ".json", 6);
	return DEHBQ_OK;
}

int study_parse_pending(const char *name, int *rung, uint64_t *id)
{
	uint64_t p;
	size_t stem;

	if (!ends_with_json(name, &stem) || stem != 11 || name[2] != '-' ||
	    digits(name, 2, &p) || digits(name + 3, 8, id))
		return DEHBQ_EINVAL;
	*rung = STUDY_MAX_RUNG - (int)p;
	return DEHBQ_OK;
}

int study_claim_name(char *buf, size_t size, const struct study_claim *c)
{
	if (c->id > ID_TRIAL_MAX || !id_is_host(c->host) ||
	    !id_is_worker(c->worker) || c->pid <= 0)
		return DEHBQ_EINVAL;
	return fsutil_pathf(buf, size, "%08llu@%s.%ld.%s.json",
			    (unsigned long long)c->id, c->host, c->pid,
			    c->worker);
}

/* Parse "HOST.PID.WID" of exactly len bytes. */
static int parse_hpw(const char *s, size_t len, char *host, long *pid,
		     char *worker)
{
	char buf[STUDY_NAME_MAX], *dot1, *dot2, *end;
	long v;

	if (len >= sizeof(buf))
		return DEHBQ_EINVAL;
	memcpy(buf, s, len);
	buf[len] = 0;
	dot2 = strrchr(buf, '.');
	if (!dot2)
		return DEHBQ_EINVAL;
	*dot2 = 0;
	dot1 = strrchr(buf, '.');
	if (!dot1)
		return DEHBQ_EINVAL;
	*dot1 = 0;
	if (!id_is_host(buf) || !id_is_worker(dot2 + 1))
		return DEHBQ_EINVAL;
	if (dot1[1] < '1' || dot1[1] > '9')
		return DEHBQ_EINVAL;
	errno = 0;
	v = strtol(dot1 + 1, &end, 10);
	if (errno || *end || v <= 0)
		return DEHBQ_EINVAL;
	memcpy(host, buf, strlen(buf) + 1);
	memcpy(worker, dot2 + 1, ID_WORKER_LEN);
	*pid = v;
	return DEHBQ_OK;
}

int study_parse_claim(const char *name, struct study_claim *c)
{
	size_t stem;

	if (!ends_with_json(name, &stem) || stem < 10 || name[8] != '@' ||
	    digits(name, 8, &c->id))
		return DEHBQ_EINVAL;
	return parse_hpw(name + 9, stem - 9, c->host, &c->pid, c->worker);
}

int study_result_name(char *buf, size_t size, uint64_t id, int attempt,
		      const char *worker)
{
	if (id > ID_TRIAL_MAX || attempt < 1 || !id_is_worker(worker))
		return DEHBQ_EINVAL;
	return fsutil_pathf(buf, size, "%08llu.a%d.%s.json",
			    (unsigned long long)id, attempt, worker);
}

int study_parse_result(const char *name, uint64_t *id, int *attempt,
		       char worker[ID_WORKER_LEN])
{
	char buf[STUDY_NAME_MAX], *dot, *end;
	size_t stem;
	long a;

	if (!ends_with_json(name, &stem) || stem >= sizeof(buf) || stem < 24 ||
	    digits(name, 8, id) || name[8] != '.' || name[9] != 'a')
		return DEHBQ_EINVAL;
	memcpy(buf, name, stem);
	buf[stem] = 0;
	dot = strrchr(buf, '.');
	if (!dot || dot == buf + 8 || !id_is_worker(dot + 1))
		return DEHBQ_EINVAL;
	*dot = 0;
	if (buf[10] < '1' || buf[10] > '9')
		return DEHBQ_EINVAL;
	errno = 0;
	a = strtol(buf + 10, &end, 10);
	if (errno || *end || a < 1 || a > 1000000)
		return DEHBQ_EINVAL;
	*attempt = (int)a;
	memcpy(worker, dot + 1, ID_WORKER_LEN);
	return DEHBQ_OK;
}

int study_worker_name(char *buf, size_t size, const char *host, long pid,
		      const char *worker)
{
	if (!id_is_host(host) || !id_is_worker(worker) || pid <= 0)
		return DEHBQ_EINVAL;
	return fsutil_pathf(buf, size, "%s.%ld.%s.json", host, pid, worker);
}

int study_parse_worker(const char *name, char host[ID_HOST_LEN], long *pid,
		       char worker[ID_WORKER_LEN])
{
	size_t stem;

	if (!ends_with_json(name, &stem))
		return DEHBQ_EINVAL;
	return parse_hpw(name, stem, host, pid, worker);
}

int study_request_resumes(const char *name)
{
	static const char *const act[] = {"extend-", "requeue-"};
	size_t i, n = strlen(name);

	for (i = 0; i < sizeof(act) / sizeof(act[0]); i++)
		if (!strncmp(name, act[i], strlen(act[i])) && n > 5 &&
		    !strcmp(name + n - 5, ".json"))
			return 1;
	return 0;
}
