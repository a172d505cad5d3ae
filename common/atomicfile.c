/*
 * atomicfile.c - whole-file replacement through a swappable syscall table
 *
 * Invariant: the target name only ever points at a complete, fsynced file.
 * Temp files are dotfiles in the target's own directory (same filesystem,
 * so rename is atomic) and carry our pid plus 64 random bits, so writers
 * on different hosts never collide.
 */
#include "atomicfile.h"

#include "err.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uuid.h>

static int real_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

static int real_rename_noreplace(const char *from, const char *to)
{
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

static const struct atomicfile_ops real_ops = {
	real_open, write, fsync, close, rename, unlink, real_rename_noreplace,
};

static struct atomicfile_ops ops = {
	real_open, write, fsync, close, rename, unlink, real_rename_noreplace,
};

const struct atomicfile_ops *atomicfile_get_ops(void)
{
	return &ops;
}

void atomicfile_set_ops(const struct atomicfile_ops *o)
{
	ops = o ? *o : real_ops;
}

static int ops_fsync(int fd)
{
	while (ops.fsync(fd) < 0) {
		if (errno != EINTR)
			return DEHBQ_ESYS;
	}
	return DEHBQ_OK;
}

static int ops_fsync_dir(const char *dir)
{
	int fd = ops.open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	int rc = DEHBQ_OK, e;

	if (fd < 0)
		return DEHBQ_ESYS;
	if (ops_fsync(fd) && errno != EINVAL && errno != ENOTSUP)
		rc = DEHBQ_ESYS;
	e = errno;
	ops.close(fd);
	errno = e;
	return rc;
}

/*
 * Temporary names: a random tag drawn once per process (again after a
 * fork), plus a counter.  Host-unique through the pid, unique across hosts
 * and restarts through the tag, and O_EXCL catches the rest.
 */
static struct {
	long pid;
	unsigned char tag[4];
	unsigned n;
} tmpseq;

static int tmp_name(const char *path, char *tmp, size_t size, char *dir,
		    size_t dirsize)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	long pid = (long)getpid();

	if (fsutil_dirname(path, dir, dirsize))
		return DEHBQ_ETOOBIG;
	if (tmpseq.pid != pid) {
		unsigned char u[16];

		uuid_generate_random(u);
		memcpy(tmpseq.tag, u, sizeof(tmpseq.tag));
		tmpseq.pid = pid;
	}
	tmpseq.n++;
	return fsutil_pathf(tmp, size, "%s/.%.64s.%ld.%02x%02x%02x%02x%08x.tmp",
			    dir, base, pid, tmpseq.tag[0], tmpseq.tag[1],
			    tmpseq.tag[2], tmpseq.tag[3], tmpseq.n);
}

/* Steps 2-4: write all of buf, fsync unless NOSYNC, close; errno kept. */
static int fill_and_close(int fd, const void *buf, size_t len, unsigned flags)
{
	int rc = fsutil_write_all_with(fd, buf, len, ops.write), e;

	if (!rc && !(flags & ATOMICFILE_NOSYNC))
		rc = ops_fsync(fd);
	e = errno;
	if (ops.close(fd) < 0 && !rc)
		return DEHBQ_ESYS; /* NFS reports write errors at close */
	errno = e;
	return rc;
}

int atomicfile_write(const char *path, const void *buf, size_t len, mode_t mode,
		     unsigned flags)
{
	char tmp[4096], dir[4096];
	int fd, rc, e;

	if (tmp_name(path, tmp, sizeof(tmp), dir, sizeof(dir))) {
		errno = ENAMETOOLONG;
		return DEHBQ_ETOOBIG;
	}
	fd = ops.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return DEHBQ_ESYS;
	rc = fill_and_close(fd, buf, len, flags);
	if (!rc && ops.rename(tmp, path) < 0)
		rc = DEHBQ_ESYS;
	if (rc) {
		e = errno;
		ops.unlink(tmp);
		errno = e;
		return rc;
	}
	if (!(flags & (ATOMICFILE_NOSYNC | ATOMICFILE_NODIRSYNC)))
		return ops_fsync_dir(dir);
	return DEHBQ_OK;
}

int atomicfile_write_ahead(const char *path, const void *buf, size_t len,
			   mode_t mode, unsigned flags)
{
	int fd, rc, e;

	fd = ops.open(path,
		      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      mode);
	if (fd < 0 && errno == EEXIST) { /* a leftover: never write through */
		if (ops.unlink(path) < 0 && errno != ENOENT)
			return DEHBQ_ESYS;
		fd = ops.open(path,
			      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				      O_CLOEXEC,
			      mode);
	}
	if (fd < 0)
		return DEHBQ_ESYS;
	rc = fill_and_close(fd, buf, len, flags);
	if (rc) {
		e = errno;
		ops.unlink(path);
		errno = e;
	}
	return rc;
}

/*
 * rename(from, to) unless to exists.  Where the filesystem has no
 * RENAME_NOREPLACE (NFS, some FUSE servers: EINVAL), lstat(to) and a plain
 * rename: not atomic against another writer of `to`, which is the
 * caller's to rule out (the orchestrator is the archive's only writer).
 */
static int move_noreplace(const char *from, const char *to)
{
	struct stat st;

	if (ops.rename_noreplace(from, to) == 0)
		return DEHBQ_OK;
	if (errno == EEXIST)
		return DEHBQ_EEXIST;
	if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return DEHBQ_ESYS;
	if (lstat(to, &st) == 0) { /* as renameat2: a missing from first */
		if (lstat(from, &st) < 0)
			return errno == ENOENT ? DEHBQ_ENOENT : DEHBQ_ESYS;
		errno = EEXIST;
		return DEHBQ_EEXIST;
	}
	return ops.rename(from, to) < 0 ? DEHBQ_ESYS : DEHBQ_OK;
}

int atomicfile_move(const char *from, const char *to, unsigned flags)
{
	char fdir[4096], tdir[4096];
	struct stat before, after;
	int have_before, rc;

	if (fsutil_dirname(from, fdir, sizeof(fdir)) ||
	    fsutil_dirname(to, tdir, sizeof(tdir))) {
		errno = ENAMETOOLONG;
		return DEHBQ_ETOOBIG;
	}
	have_before =
		!(flags & ATOMICFILE_ENOENT_OK) && lstat(from, &before) == 0;
	if (flags & ATOMICFILE_NOREPLACE) {
		rc = move_noreplace(from, to);
		if (rc == DEHBQ_EEXIST)
			return rc;
	} else {
		rc = ops.rename(from, to) < 0 ? DEHBQ_ESYS : DEHBQ_OK;
	}
	if (rc) {
		int e = errno;

		/* NFS: a retransmitted RENAME may fail after succeeding. */
		if (e == ENOENT && have_before && lstat(to, &after) == 0 &&
		    after.st_ino == before.st_ino &&
		    after.st_dev == before.st_dev && lstat(from, &after) < 0)
			goto moved;
		errno = e;
		return e == ENOENT ? DEHBQ_ENOENT : DEHBQ_ESYS;
	}
moved:
	if (flags & (ATOMICFILE_NOSYNC | ATOMICFILE_NODIRSYNC))
		return DEHBQ_OK;
	rc = ops_fsync_dir(tdir);
	if (!rc && strcmp(fdir, tdir))
		rc = ops_fsync_dir(fdir);
	return rc;
}
