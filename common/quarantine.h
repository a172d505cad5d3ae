/*
 * quarantine.h - moving a refused file into STUDY/quarantine/
 *
 * A file a reader refuses (bad name, not a regular file, invalid content)
 * leaves its queue directory for quarantine/, never to be lost or to
 * replace anything already there.  Its name there is DIR.NAME (DIR with
 * '/' as '-', so "state/requests" gives "state-requests.NAME"), or
 * DIR.NAME.N (N = 2, 3, ...) when that name or its reason file is taken.
 * A NAME too long for a file name is cut, and always gets a ".N".  Beside
 * it, FINAL.reason holds one line: "DIR/NAME: why" (NAME printable).
 *
 * Used by the orchestrator and the worker; both may quarantine at once,
 * so the move never replaces a file (ATOMICFILE_NOREPLACE).  Buffers are
 * the caller's.  Nothing here prints.
 */
#ifndef DEHBQ_QUARANTINE_H
#define DEHBQ_QUARANTINE_H

#include <stddef.h>

/* Most names tried before giving up (DEHBQ_EEXIST). */
#define QUARANTINE_TRIES 1000

/*
 * Move ROOT/DIR/NAME (or the file at path `from` when not NULL: a claimed
 * copy of it) into ROOT/quarantine/ and write its reason file.
 * flags: ATOMICFILE_NOSYNC or 0.  The name it got (within quarantine/)
 * goes to out[outsize] (STUDY_NAME_MAX is enough) when out is not NULL.
 * Returns DEHBQ_OK (even if the reason file could not be written:
 * *reason_errno is then its errno, else 0), DEHBQ_ENOENT (the file was
 * already gone: someone else moved it), DEHBQ_EEXIST (QUARANTINE_TRIES
 * names taken), DEHBQ_ETOOBIG (path too long) or DEHBQ_ESYS (errno).
 */
int quarantine_move(const char *root, const char *from, const char *dir,
		    const char *name, const char *why, unsigned flags,
		    char *out, size_t outsize, int *reason_errno);

#endif
