/*
 * bench_protocol.c - the bare file protocol, the physical limit for dehbq
 *
 * One process plays orchestrator and worker with no optimiser, no JSON
 * parsing and no scheduling, doing per trial exactly the filesystem work
 * of docs/protocol.md:
 *   publish  create .tmp (O_EXCL) + write ~600 bytes + rename to pending/
 *   claim    rename pending/PP-ID.json -> claimed/ID@HOST.PID.WID.json,
 *            then open + read it (the worker loads the trial)
 *   result   create .tmp + write ~500 bytes + rename to results/
 *   ingest   open + read the result, rename it and the claim to
 *            archive/SSSS/
 * Trials go through in batches of BATCH, as the orchestrator batches.
 * With --fsync every written file is fsynced and each directory once per
 * batch (the orchestrator's rule); without it nothing is synced, which is
 * what `dehbq-orchestrator --no-fsync` does on tmpfs.
 *
 * With --spawn it instead times fork + exec + wait of TRAINER, N times,
 * with stdout to /dev/null: the floor of any worker that runs each trial
 * as a new process.
 *
 * Usage: bench_protocol [--fsync] DIR N
 *        bench_protocol --spawn TRAINER N
 *   DIR must not exist (it is created, and removed again at the end).
 * Output: one line "protocol N trials W s U us/trial", or
 *         "fork+exec+wait U us".
 * Exit codes: 0 ok, 100 usage, 111 system failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROTO_BATCH 64
#define PROTO_PATH  4096

struct proto {
	const char *dir; /* study-like root */
	int sync;	 /* fsync files and directories */
	char buf[4096];	 /* file contents, read and written */
};

static double proto_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int proto_fail(const char *what, const char *path)
{
	fprintf(stderr, "bench_protocol: fatal: %s(%s): %s\n", what, path,
		strerror(errno));
	return 111;
}

static int proto_path(char *buf, const char *dir, const char *sub,
		      const char *name)
{
	int n = *name ? snprintf(buf, PROTO_PATH, "%s/%s/%s", dir, sub, name)
		      : snprintf(buf, PROTO_PATH, "%s/%s", dir, sub);

	return n < 0 || n >= PROTO_PATH;
}

static int proto_syncdir(struct proto *p, const char *sub)
{
	char path[PROTO_PATH];
	int fd, rc = 0;

	if (!p->sync)
		return 0;
	if (proto_path(path, p->dir, sub, ""))
		return 111;
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0 || fsync(fd) != 0)
		rc = proto_fail("fsync", path);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* tmp + write + (fsync) + close + rename: protocol section 3. */
static int proto_write(struct proto *p, const char *sub, const char *name,
		       size_t len)
{
	char tmp[PROTO_PATH], dst[PROTO_PATH], tname[256];
	int fd;

	snprintf(tname, sizeof(tname), ".%s.%ld.0123456789abcdef.tmp", name,
		 (long)getpid());
	if (proto_path(tmp, p->dir, sub, tname) ||
	    proto_path(dst, p->dir, sub, name))
		return 111;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
	if (fd < 0)
		return proto_fail("open", tmp);
	if (write(fd, p->buf, len) != (ssize_t)len)
		return proto_fail("write", tmp);
	if (p->sync && fsync(fd) != 0)
		return proto_fail("fsync", tmp);
	if (close(fd) != 0)
		return proto_fail("close", tmp);
	if (rename(tmp, dst) != 0)
		return proto_fail("rename", tmp);
	return 0;
}

static int proto_read(struct proto *p, const char *path)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return proto_fail("open", path);
	n = read(fd, p->buf, sizeof(p->buf));
	close(fd);
	return n <= 0 ? proto_fail("read", path) : 0;
}

static int proto_move(const char *from, const char *to)
{
	return rename(from, to) != 0 ? proto_fail("rename", from) : 0;
}

static int proto_batch(struct proto *p, long first, long n)
{
	char a[PROTO_PATH], b[PROTO_PATH], name[128], shard[64];
	long i;
	int rc;

	memset(p->buf, 'x', 600);
	for (i = first; i < first + n; i++) {
		snprintf(name, sizeof(name), "99-%08ld.json", i);
		if ((rc = proto_write(p, "pending", name, 600)))
			return rc;
	}
	if ((rc = proto_syncdir(p, "pending")))
		return rc;
	for (i = first; i < first + n; i++) {
		snprintf(name, sizeof(name), "99-%08ld.json", i);
		if (proto_path(a, p->dir, "pending", name))
			return 111;
		snprintf(name, sizeof(name), "%08ld@host.1.0123456789ab.json",
			 i);
		if (proto_path(b, p->dir, "claimed", name))
			return 111;
		if ((rc = proto_move(a, b)) || (rc = proto_read(p, b)))
			return rc;
		memset(p->buf, 'y', 500);
		snprintf(name, sizeof(name), "%08ld.a1.0123456789ab.json", i);
		if ((rc = proto_write(p, "results", name, 500)))
			return rc;
	}
	if ((rc = proto_syncdir(p, "results")))
		return rc;
	for (i = first; i < first + n; i++) {
		snprintf(shard, sizeof(shard), "archive/%04ld", i / 10000);
		if (proto_path(a, p->dir, shard, ""))
			return 111;
		if (mkdir(a, 0777) != 0 && errno != EEXIST)
			return proto_fail("mkdir", a);
		snprintf(name, sizeof(name), "%08ld.a1.0123456789ab.json", i);
		if (proto_path(a, p->dir, "results", name) ||
		    (rc = proto_read(p, a)))
			return rc ? rc : 111;
		snprintf(name, sizeof(name), "%08ld.result.json", i);
		if (proto_path(b, p->dir, shard, name) ||
		    (rc = proto_move(a, b)))
			return rc ? rc : 111;
		snprintf(name, sizeof(name), "%08ld@host.1.0123456789ab.json",
			 i);
		if (proto_path(a, p->dir, "claimed", name))
			return 111;
		snprintf(name, sizeof(name), "%08ld.trial.json", i);
		if (proto_path(b, p->dir, shard, name) ||
		    (rc = proto_move(a, b)))
			return rc ? rc : 111;
		if (i == first + n - 1 && (rc = proto_syncdir(p, shard)))
			return rc;
	}
	return 0;
}

static void proto_rmtree(const char *path)
{
	char sub[PROTO_PATH];
	struct dirent *e;
	DIR *d = opendir(path);

	if (d) {
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", path,
				     e->d_name) >= (int)sizeof(sub))
				continue;
			if (unlink(sub) != 0 && errno == EISDIR)
				proto_rmtree(sub);
			else if (errno == EPERM)
				proto_rmtree(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

static int proto_spawn(const char *trainer, long n)
{
	double t0 = proto_mono();
	long i;
	int st, fd;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return proto_fail("fork", trainer);
		if (pid == 0) {
			fd = open("/dev/null", O_WRONLY);
			if (fd >= 0)
				dup2(fd, 1);
			execl(trainer, trainer, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			return proto_fail("exec", trainer);
	}
	printf("fork+exec+wait %.1f us\n", (proto_mono() - t0) * 1e6 / n);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const subs[] = {"pending", "claimed", "results",
					   "archive"};
	struct proto p;
	char path[PROTO_PATH], *end;
	double t0, dt;
	long n, done;
	int ai = 1, rc = 0, b;
	size_t i;

	memset(&p, 0, sizeof(p));
	if (argc == 4 && !strcmp(argv[1], "--spawn")) {
		errno = 0;
		n = strtol(argv[3], &end, 10);
		if (errno || *end || n <= 0)
			goto usage;
		return proto_spawn(argv[2], n);
	}
	if (argc > ai && !strcmp(argv[ai], "--fsync")) {
		p.sync = 1;
		ai++;
	}
	if (argc - ai != 2)
		goto usage;
	p.dir = argv[ai];
	errno = 0;
	n = strtol(argv[ai + 1], &end, 10);
	if (errno || *end || n <= 0) {
		fputs("bench_protocol: fatal: bad N\n", stderr);
		return 100;
	}
	if (mkdir(p.dir, 0777) != 0)
		return proto_fail("mkdir", p.dir);
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (proto_path(path, p.dir, subs[i], "") ||
		    mkdir(path, 0777) != 0) {
			rc = proto_fail("mkdir", path);
			goto out;
		}
	}
	t0 = proto_mono();
	for (done = 0; done < n && !rc; done += b) {
		b = n - done < PROTO_BATCH ? (int)(n - done) : PROTO_BATCH;
		rc = proto_batch(&p, done, b);
	}
	dt = proto_mono() - t0;
	if (!rc)
		printf("protocol %ld trials %.3f s %.1f us/trial\n", n, dt,
		       dt * 1e6 / (double)n);
out:
	proto_rmtree(p.dir);
	return rc;
usage:
	fputs("usage: bench_protocol [--fsync] DIR N\n"
	      "       bench_protocol --spawn TRAINER N\n",
	      stderr);
	return 100;
}
