/*
 * quarantine.c - moving a refused file into STUDY/quarantine/ under a
 * name nothing there has (see quarantine.h)
 */
#include "quarantine.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "study.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Room for ".reason" and a ".NNNN" suffix within one file name. */
#define NAME_ROOM (NAME_MAX - 7 - 5)

/*
 * The n-th candidate name: DIR.NAME, then DIR.NAME.n; a cut NAME always
 * carries its n, so two cut names stay apart.
 */
static int candidate(char *buf, size_t size, const char *flat, const char *name,
		     int n)
{
	size_t fl = strlen(flat), nl = strlen(name);
	int cut = fl + 1 + nl > NAME_ROOM, k;

	if (cut)
		nl = NAME_ROOM - fl - 1;
	if (n == 1 && !cut)
		k = snprintf(buf, size, "%s.%s", flat, name);
	else
		k = snprintf(buf, size, "%s.%.*s.%d", flat, (int)nl, name, n);
	return k > 0 && (size_t)k < size ? 0 : -1;
}

int quarantine_move(const char *root, const char *from, const char *dir,
		    const char *name, const char *why, unsigned flags,
		    char *out, size_t outsize, int *reason_errno)
{
	char src[STUDY_PATH_MAX], to[STUDY_PATH_MAX], rp[STUDY_PATH_MAX];
	char flat[64], qn[NAME_MAX + 1], line[DEHBQ_ERRLEN + 600];
	char shown[STUDY_NAME_MAX], reason[DEHBQ_ERRLEN];
	struct stat st;
	char *c;
	int n, rc = DEHBQ_EEXIST;

	*reason_errno = 0;
	if (strlen(dir) >= sizeof(flat) || strlen(dir) + 2 > NAME_ROOM / 2)
		return DEHBQ_ETOOBIG;
	snprintf(flat, sizeof(flat), "%s", dir);
	for (c = flat; *c; c++)
		if (*c == '/')
			*c = '-';
	if (!from) {
		if (study_path(src, sizeof(src), root, "%s/%s", dir, name))
			return DEHBQ_ETOOBIG;
		from = src;
	}
	for (n = 1; n <= QUARANTINE_TRIES; n++) {
		if (candidate(qn, sizeof(qn), flat, name, n) ||
		    study_path(to, sizeof(to), root, "quarantine/%s", qn) ||
		    study_path(rp, sizeof(rp), root, "quarantine/%s.reason",
			       qn))
			return DEHBQ_ETOOBIG;
		if (lstat(rp, &st) == 0) /* its reason name is taken */
			continue;
		rc = atomicfile_move(from, to, flags | ATOMICFILE_NOREPLACE);
		if (rc != DEHBQ_EEXIST)
			break;
	}
	if (rc)
		return rc;
	if (out)
		snprintf(out, outsize, "%s", qn);
	fsutil_printable(name, shown, sizeof(shown));
	fsutil_printable(why, reason, sizeof(reason));
	n = snprintf(line, sizeof(line), "%s/%s: %s\n", dir, shown, reason);
	if (n < 0 || (size_t)n >= sizeof(line))
		strcpy(line + sizeof(line) - 5, "...\n");
	if (atomicfile_write(rp, line, strlen(line), 0666, flags))
		*reason_errno = errno ? errno : EIO;
	return DEHBQ_OK;
}
