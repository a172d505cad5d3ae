/*
 * fsutil.h - small, EINTR-safe filesystem helpers
 *
 * Error handling: each returns DEHBQ_OK or DEHBQ_ESYS with errno set (or
 * the listed codes).  A failed call leaves no partial effect except where
 * stated (fsutil_mkdir_p may have created some leading components).
 *
 * Ownership: fsutil_read_file() returns a malloc'ed, NUL-terminated buffer
 * the caller frees.  Paths are borrowed.
 */
#ifndef DEHBQ_FSUTIL_H
#define DEHBQ_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Read exactly len bytes unless EOF comes first; *got = bytes read. */
int fsutil_read_all(int fd, void *buf, size_t len, size_t *got);
/* Write all len bytes, retrying EINTR and short writes. */
int fsutil_write_all(int fd, const void *buf, size_t len);
/* The same through another write(2) (atomicfile's fault-injection table). */
int fsutil_write_all_with(int fd, const void *buf, size_t len,
			  ssize_t (*wr)(int fd, const void *buf, size_t n));
/* fsync(2) a directory so a rename or create inside it is durable. */
int fsutil_fsync_dir(const char *dir);
/* mkdir -p with mode; existing directories are fine. */
int fsutil_mkdir_p(const char *path, mode_t mode);

/*
 * Read a whole file of at most cap bytes.  Opens with O_NOFOLLOW and
 * O_NONBLOCK, so a symlink (ELOOP) or a FIFO never blocks or redirects the
 * read; anything but a regular file is refused.
 * Returns DEHBQ_OK, DEHBQ_ESYS (errno), DEHBQ_EINVAL (not a regular file;
 * errno = EINVAL) or DEHBQ_ETOOBIG (larger than cap).
 */
int fsutil_read_file(const char *path, size_t cap, char **out, size_t *len);
/* The same through another open(2) (atomicfile's fault-injection table);
 * op NULL: open(2). */
int fsutil_read_file_with(const char *path, size_t cap, char **out, size_t *len,
			  int (*op)(const char *path, int flags, mode_t mode));

/* Copy the directory part of path into dir (dirsize bytes); "." if none. */
int fsutil_dirname(const char *path, char *dir, size_t dirsize);

/*
 * snprintf into buf that fails instead of truncating: DEHBQ_ETOOBIG when
 * the result would not fit.
 */
int fsutil_pathf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Copy name into buf (size bytes) with every byte outside printable ASCII
 * (control characters, newlines, ESC, UTF-8) replaced by '?', so a hostile
 * file name cannot split a log line or reach a terminal raw.
 */
void fsutil_printable(const char *name, char *buf, size_t size);

/* 1 when a failed system call (errno) means the storage itself failed
 * (retry later), 0 when it means this one file is bad (quarantine it). */
int fsutil_storage_errno(int e);
/* 1 when errno means a path the user named is wrong (missing, not a
 * directory, a symlink loop, a directory, too long, not permitted): bad
 * input (exit 100), not a temporary failure (exit 111). */
int fsutil_path_errno(int e);

/* 1 when name should be skipped by every directory scan: ".", "..",
 * dotfiles (our temp files, editor swap files, NFS .nfsXXXX silly renames).
 */
int fsutil_skip_name(const char *name);

#endif
