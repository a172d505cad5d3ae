/*
 * fsutil.c - EINTR-safe read/write, directory fsync, bounded file reads
 *
 * close() is never retried: on Linux the descriptor is released even when
 * close() reports EINTR, and retrying could close someone else's fd
 * (sqlite robust_close).
 */
#include "fsutil.h"

#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fsutil_read_all(int fd, void *buf, size_t len, size_t *got)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = read(fd, (char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*got = off;
			return DEHBQ_ESYS;
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	*got = off;
	return DEHBQ_OK;
}

int fsutil_write_all_with(int fd, const void *buf, size_t len,
			  ssize_t (*wr)(int fd, const void *buf, size_t n))
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = wr(fd, (const char *)buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return DEHBQ_ESYS;
		if (n == 0) {
			errno = EIO;
			return DEHBQ_ESYS;
		}
		off += (size_t)n;
	}
	return DEHBQ_OK;
}

int fsutil_write_all(int fd, const void *buf, size_t len)
{
	return fsutil_write_all_with(fd, buf, len, write);
}

int fsutil_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = DEHBQ_OK, e;

	if (fd < 0)
		return DEHBQ_ESYS;
	while (fsync(fd) < 0) {
		if (errno == EINTR)
			continue;
		/* Some filesystems cannot fsync directories; that is fine. */
		if (errno != EINVAL && errno != ENOTSUP)
			rc = DEHBQ_ESYS;
		break;
	}
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

int fsutil_mkdir_p(const char *path, mode_t mode)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf)) {
		errno = n ? ENAMETOOLONG : ENOENT;
		return DEHBQ_ESYS;
	}
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		buf[i] = 0;
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return DEHBQ_ESYS;
		buf[i] = i < n ? '/' : 0;
	}
	{
		struct stat st;

		if (stat(path, &st) < 0)
			return DEHBQ_ESYS;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return DEHBQ_ESYS;
		}
	}
	return DEHBQ_OK;
}

int fsutil_read_file(const char *path, size_t cap, char **out, size_t *len)
{
	return fsutil_read_file_with(path, cap, out, len, NULL);
}

int fsutil_read_file_with(const char *path, size_t cap, char **out, size_t *len,
			  int (*op)(const char *path, int flags, mode_t mode))
{
	const int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	ssize_t n;
	int fd, rc = DEHBQ_ESYS, e;

	*out = NULL;
	*len = 0;
	fd = op ? op(path, flags, 0) : open(path, flags);
	if (fd < 0)
		return DEHBQ_ESYS;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		rc = DEHBQ_EINVAL;
		goto fail;
	}
	if ((size_t)st.st_size > cap) {
		errno = EFBIG;
		rc = DEHBQ_ETOOBIG;
		goto fail;
	}
	/*
	 * Read one byte past the size seen, to catch a file still growing.
	 * A regular file's read stops short only at its end, so a first read
	 * that returns exactly the size seen needs no second one for EOF.
	 */
	buf = malloc((size_t)st.st_size + 2);
	if (!buf) {
		errno = ENOMEM;
		rc = DEHBQ_ENOMEM;
		goto fail;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n != (ssize_t)st.st_size || n == 0) {
		size_t more = 0;

		got = n > 0 ? (size_t)n : 0;
		if (n < 0 && errno != EINTR)
			goto fail;
		if (fsutil_read_all(fd, buf + got, (size_t)st.st_size + 1 - got,
				    &more))
			goto fail;
		got += more;
	} else {
		got = (size_t)n;
	}
	if (got > cap) {
		errno = EFBIG;
		rc = DEHBQ_ETOOBIG;
		goto fail;
	}
	buf[got] = 0;
	close(fd);
	*out = buf;
	*len = got;
	return DEHBQ_OK;
fail:
	e = errno;
	free(buf);
	close(fd);
	errno = e;
	return rc;
}

int fsutil_dirname(const char *path, char *dir, size_t dirsize)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash)
		return fsutil_pathf(dir, dirsize, ".");
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n + 1 > dirsize)
		return DEHBQ_ETOOBIG;
	memcpy(dir, path, n);
	dir[n] = 0;
	return DEHBQ_OK;
}

int fsutil_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		if (size)
			buf[0] = 0;
		errno = ENAMETOOLONG;
		return DEHBQ_ETOOBIG;
	}
	return DEHBQ_OK;
}

int fsutil_skip_name(const char *name)
{
	return name[0] == '.';
}

void fsutil_printable(const char *name, char *buf, size_t size)
{
	size_t i;

	if (!size)
		return;
	for (i = 0; name[i] && i + 1 < size; i++)
		buf[i] = (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';
	buf[i] = 0;
}

int fsutil_path_errno(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ELOOP || e == EISDIR ||
	       e == ENAMETOOLONG || e == EACCES;
}

int fsutil_storage_errno(int e)
{
	switch (e) {
	case EIO:
	case ENOMEM:
	case ENOSPC:
	case EDQUOT:
	case EMFILE:
	case ENFILE:
	case ESTALE:
	case EROFS:
	case ENOBUFS:
	case EAGAIN:
	case EINTR:
		return 1;
	default:
		return 0;
	}
}
