/*
 * atomicfile.h - whole-file replacement: tmp + write + fsync + rename
 *
 * The only way dehbq publishes or replaces a file.  A reader sees either
 * the old file, or no file, or the complete new one; never a partial or
 * empty file (the Maildir "NFS-writing" rule: check every write, fsync,
 * close, then rename).
 *
 * Steps of atomicfile_write(path):
 *   1. open "<dir>/.<base>.<pid>.<tag><n>.tmp" (O_EXCL; dotfiles are skipped
 *      by every scan, so a crash leaves only an ignorable temp file)
 *   2. write all bytes (short writes retried), 3. fsync, 4. close,
 *   5. rename over path, 6. fsync(dir) so the rename is durable.
 * A failure at 1-5 unlinks the temp file and leaves path untouched; a
 * failure at 6 is reported but path already holds the new content.
 *
 * Fault injection: every syscall goes through struct atomicfile_ops.  Tests
 * (and the chaos harness) swap the table with atomicfile_set_ops() to inject
 * ENOSPC, EIO, short writes or pauses (sqlite's aSyscall[] idea).  This
 * table and the temporary-name sequence (a random tag per process and a
 * counter) are the process-wide state in common/.
 *
 * Error handling: DEHBQ_OK, DEHBQ_ESYS (errno set, preserved across the
 * cleanup) or DEHBQ_ETOOBIG (path too long).
 * Ownership: nothing is retained; buf and paths are borrowed.
 */
#ifndef DEHBQ_ATOMICFILE_H
#define DEHBQ_ATOMICFILE_H

#include <stddef.h>
#include <sys/types.h>

struct atomicfile_ops {
	int (*open)(const char *path, int flags, mode_t mode); /* open(2) */
	ssize_t (*write)(int fd, const void *buf, size_t n);   /* write(2) */
	int (*fsync)(int fd);				       /* fsync(2) */
	int (*close)(int fd);				       /* close(2) */
	int (*rename)(const char *from, const char *to);       /* rename(2) */
	int (*unlink)(const char *path);		       /* unlink(2) */
	int (*rename_noreplace)(const char *from,
				const char *to); /* renameat2 NOREPLACE */
};

enum atomicfile_flags {
	ATOMICFILE_NOSYNC = 1 << 0,    /* skip all fsyncs (benchmarks only) */
	ATOMICFILE_NODIRSYNC = 1 << 1, /* skip step 6: caller syncs the dir */
	ATOMICFILE_ENOENT_OK = 1 << 2, /* move: the caller takes ENOENT as
					  done; skip the NFS check below */
	ATOMICFILE_NOREPLACE = 1 << 3, /* move: never replace an existing
					  `to` (DEHBQ_EEXIST) */
};

/* Replace path with len bytes of buf, created with mode (umask applies). */
int atomicfile_write(const char *path, const void *buf, size_t len, mode_t mode,
		     unsigned flags);

/*
 * A write-ahead file: path is created in place (O_EXCL | O_NOFOLLOW; an
 * existing file of that name is unlinked first, never written through),
 * written, fsynced unless ATOMICFILE_NOSYNC, closed.  NOT atomic: a crash
 * or an error can leave a partial file (an error unlinks it).  Only for
 * files that a later atomic commit makes valid by naming them, after the
 * caller has fsynced their directory: the orchestrator's staging/ files,
 * which the snapshot's redo list names (docs/protocol.md, section 8).
 * Saves the temporary name and a same-directory rename per file.
 */
int atomicfile_write_ahead(const char *path, const void *buf, size_t len,
			   mode_t mode, unsigned flags);

/*
 * Atomically move an existing file: rename(from, to), then fsync the
 * directory of `to` (and of `from` when it differs) unless flags say not to.
 * A rename that reports ENOENT is checked against `to`, unless flags has
 * ATOMICFILE_ENOENT_OK: on NFS a retried RENAME can fail after it has in
 * fact succeeded, so if `from` is gone and `to` exists with from's inode
 * (lstat before the rename), it is a success.
 * With ATOMICFILE_NOREPLACE an existing `to` is left alone and the call
 * returns DEHBQ_EEXIST (renameat2 RENAME_NOREPLACE; where the filesystem
 * lacks it, e.g. NFS, an lstat of `to` and a rename, which is atomic only
 * if nobody else creates `to`).
 * Returns DEHBQ_OK, DEHBQ_ENOENT (from did not exist: someone else moved
 * it), DEHBQ_EEXIST or DEHBQ_ESYS.
 */
int atomicfile_move(const char *from, const char *to, unsigned flags);

/* Current syscall table (never NULL). */
const struct atomicfile_ops *atomicfile_get_ops(void);
/* Install a table (copied); NULL restores the real syscalls. */
void atomicfile_set_ops(const struct atomicfile_ops *ops);

#endif
