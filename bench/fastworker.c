/*
 * fastworker.c - a protocol-conformant worker that runs no trainer
 *
 * For the scale benchmark: it claims pending trials by rename and writes
 * their results as fast as the filesystem allows, so the orchestrator is
 * the only thing being measured.  Per trial (docs/protocol.md section 5):
 *   rename pending/PP-ID.json -> claimed/ID@HOST.PID.WID.json
 *   read the claim, take its "attempt" and "token"
 *   write results/ID.aN.WID.json (tmp + rename, no fsync), loss 0, with
 *   the token; the claim stays for the orchestrator to match and archive
 * The study id comes from study.json.  It exits 0 when FINISHED appears.
 *
 * With --prune it removes archive shards two or more below the newest
 * trial it claimed: the orchestrator never reads archive/ after ingesting,
 * and a 1M-trial study would otherwise hold 2M files (8 GB of tmpfs pages).
 *
 * With --max N it exits after N results (to leave a study stopped midway,
 * with trials still pending, for the resume benchmark).
 *
 * Usage: fastworker [--prune] [--max N] STUDY
 * Exit codes: 0 FINISHED seen, 100 usage or bad study, 111 system failure.
 */
#include "atomicfile.h"
#include "err.h"
#include "id.h"
#include "result.h"
#include "study.h"
#include "timeutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fastw {
	const char *root;	    /* study directory */
	char study[ID_STUDY_LEN];   /* study uuid from study.json */
	char worker[ID_WORKER_LEN]; /* our worker id */
	char host[ID_HOST_LEN];	    /* sanitised host name */
	long pid;		    /* our pid */
	int prune;		    /* remove old archive shards */
	long pruned;		    /* shards below this are removed */
	long done;		    /* results written */
	long max;		    /* exit after this many; 0 = no limit */
	char buf[1 << 16];	    /* file contents */
};

static int fastw_read(struct fastw *w, const char *path)
{
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, w->buf, sizeof(w->buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	w->buf[n] = '\0';
	return 0;
}

/* The string value of "key" in w->buf, copied into out. */
static int fastw_str(struct fastw *w, const char *key, char *out, size_t cap)
{
	char pat[64], *p, *q;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(w->buf, pat);
	if (!p || !(p = strchr(p + strlen(pat), '"')))
		return -1;
	q = strchr(++p, '"');
	if (!q || (size_t)(q - p) >= cap)
		return -1;
	memcpy(out, p, (size_t)(q - p));
	out[q - p] = '\0';
	return 0;
}

static long fastw_long(struct fastw *w, const char *key)
{
	char pat[64], *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(w->buf, pat);
	return p ? strtol(p + strlen(pat), NULL, 10) : -1;
}

static void fastw_rmshard(struct fastw *w, long shard)
{
	char dir[STUDY_PATH_BUF], path[STUDY_PATH_BUF];
	struct dirent *e;
	DIR *d;

	if (study_path(dir, sizeof(dir), w->root, "archive/%04ld", shard))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			    (int)sizeof(path))
			unlink(path);
	closedir(d);
	rmdir(dir);
}

/* Claim and answer one pending file; 0 done, 1 lost the race, -1 error. */
static int fastw_one(struct fastw *w, const char *name)
{
	char from[STUDY_PATH_BUF], to[STUDY_PATH_BUF], cname[STUDY_NAME_MAX];
	char rname[STUDY_NAME_MAX], *text = NULL;
	struct study_claim c;
	struct result r;
	uint64_t id;
	double now;
	int rung, rc = -1;

	if (study_parse_pending(name, &rung, &id) != DEHBQ_OK)
		return 1;
	memset(&c, 0, sizeof(c));
	c.id = id;
	c.pid = w->pid;
	memcpy(c.host, w->host, sizeof(c.host));
	memcpy(c.worker, w->worker, sizeof(c.worker));
	if (study_claim_name(cname, sizeof(cname), &c) ||
	    study_path(from, sizeof(from), w->root, "pending/%s", name) ||
	    study_path(to, sizeof(to), w->root, "claimed/%s", cname))
		return -1;
	if (rename(from, to) != 0)
		return errno == ENOENT ? 1 : -1;
	if (fastw_read(w, to) != 0 || result_init(&r) != DEHBQ_OK)
		return -1;
	if (fastw_str(w, "id", r.id, sizeof(r.id)) != 0)
		goto out;
	r.attempt = (int)fastw_long(w, "attempt");
	{
		char tok[ID_TOKEN_LEN];

		if (fastw_str(w, "token", tok, sizeof(tok)) == 0 &&
		    id_token_parse(tok, &r.token) != DEHBQ_OK)
			goto out;
	}
	memcpy(r.study, w->study, sizeof(r.study));
	memcpy(r.worker, w->worker, sizeof(r.worker));
	memcpy(r.host, w->host, sizeof(r.host));
	r.pid = w->pid;
	now = timeutil_now();
	r.started = r.finished = now;
	r.exit_code = 0;
	if (r.attempt < 1 || result_render(&r, &text) != DEHBQ_OK ||
	    study_result_name(rname, sizeof(rname), id, r.attempt, w->worker) ||
	    study_path(to, sizeof(to), w->root, "results/%s", rname) ||
	    atomicfile_write(to, text, strlen(text), 0666, ATOMICFILE_NOSYNC) !=
		    DEHBQ_OK)
		goto out;
	w->done++;
	if (w->prune) {
		while (w->pruned + 2 <= (long)study_shard(id))
			fastw_rmshard(w, w->pruned++);
	}
	rc = 0;
out:
	free(text);
	result_release(&r);
	return rc;
}

int main(int argc, char **argv)
{
	static struct fastw w;
	char path[STUDY_PATH_BUF];
	struct dirent *e;
	DIR *d;
	int ai = 1, idle = 0, rc;

	if (argc > ai && !strcmp(argv[ai], "--prune")) {
		w.prune = 1;
		ai++;
	}
	if (argc - ai == 3 && !strcmp(argv[ai], "--max")) {
		char *end;

		errno = 0;
		w.max = strtol(argv[ai + 1], &end, 10);
		if (errno || *end || w.max < 1)
			w.max = -1;
		ai += 2;
	}
	if (argc - ai != 1 || w.max < 0) {
		fputs("usage: fastworker [--prune] [--max N] STUDY\n", stderr);
		return 100;
	}
	w.root = argv[ai];
	w.pid = (long)getpid();
	id_host(w.host);
	id_worker_new(w.worker);
	if (study_path(path, sizeof(path), w.root, "study.json") ||
	    fastw_read(&w, path) != 0 ||
	    fastw_str(&w, "study", w.study, sizeof(w.study)) != 0) {
		fprintf(stderr, "fastworker: fatal: unable to read '%s'\n",
			path);
		return 100;
	}
	study_path(path, sizeof(path), w.root, "pending");
	for (;;) {
		int got = 0;

		d = opendir(path);
		if (!d) {
			fprintf(stderr, "fastworker: fatal: opendir(%s): %s\n",
				path, strerror(errno));
			return 111;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			rc = fastw_one(&w, e->d_name);
			if (rc < 0) {
				fprintf(stderr,
					"fastworker: fatal: trial "
					"'%s': %s\n",
					e->d_name, strerror(errno));
				closedir(d);
				return 111;
			}
			got += rc == 0;
			if (w.max && w.done >= w.max)
				break;
		}
		closedir(d);
		if (w.max && w.done >= w.max)
			break;
		if (got) {
			idle = 0;
			continue;
		}
		if (++idle % 16 == 0) {
			char fin[STUDY_PATH_BUF];

			study_path(fin, sizeof(fin), w.root, "FINISHED");
			if (access(fin, F_OK) == 0)
				break;
		}
		usleep(200);
	}
	fprintf(stderr, "fastworker: %ld results written\n", w.done);
	return 0;
}
