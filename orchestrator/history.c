/*
 * history.c - owns the optimiser's history files in state/ (history.h)
 */
#include "history.h"

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "study.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int history_name(char name[HISTORY_NAME_LEN], int64_t epoch)
{
	if (epoch < 0 || epoch > 999999)
		return DEHBQ_EINVAL;
	snprintf(name, HISTORY_NAME_LEN, "history-%06lld.jsonl",
		 (long long)epoch);
	return DEHBQ_OK;
}

/* n digits at s into *v; 0 when they are not all digits. */
static int digits(const char *s, int n, int64_t *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

int history_parse_name(const char *name, int64_t *epoch)
{
	/* history-EEEEEE.jsonl: 8 + 6 + 6 = 20 bytes */
	return strlen(name) == 20 && !strncmp(name, "history-", 8) &&
	       digits(name + 8, 6, epoch) && !strcmp(name + 14, ".jsonl");
}

int history_read(const char *root, const char *name, int64_t bytes, char **text,
		 char *err)
{
	char p[STUDY_PATH_MAX];
	struct stat st;
	size_t got = 0;
	int fd, rc = DEHBQ_OK;

	*text = NULL;
	if (study_path(p, sizeof(p), root, "state/%s", name))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "%s: path too long",
				  name);
	/* only the bytes the snapshot names: the file may be longer (a crash
	 * after an append), and is never read whole.  A missing or short
	 * file is not the snapshot's fault: DEHBQ_ESYS skips the snapshot
	 * without quarantining it.  Any other failure to read it (EIO,
	 * EMFILE, ESTALE) may pass: DEHBQ_EAGAIN.  Through the atomicfile
	 * seam, so that fault tests reach the read. */
	if ((fd = atomicfile_get_ops()->open(
		     p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0)) < 0)
		return dehbq_errf(err,
				  errno == ENOENT ? DEHBQ_ESYS : DEHBQ_EAGAIN,
				  "state/%s: %s (the history its snapshot "
				  "names)",
				  name, strerror(errno));
	if (fstat(fd, &st) < 0) {
		rc = dehbq_errf(err, DEHBQ_EAGAIN, "state/%s: %s", name,
				strerror(errno));
	} else if (!S_ISREG(st.st_mode) || (int64_t)st.st_size < bytes) {
		rc = dehbq_errf(err, DEHBQ_ESYS,
				"state/%s: %lld bytes, its snapshot names %lld",
				name, (long long)st.st_size, (long long)bytes);
		errno = EIO;
	} else if (!(*text = malloc((size_t)bytes + 1))) {
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
	} else if (fsutil_read_all(fd, *text, (size_t)bytes, &got)) {
		rc = dehbq_errf(err, DEHBQ_EAGAIN, "state/%s: %s", name,
				strerror(errno));
	} else if (got != (size_t)bytes) {
		rc = dehbq_errf(err, DEHBQ_ESYS, "state/%s: shorter than named",
				name);
	}
	close(fd);
	if (rc) {
		free(*text);
		*text = NULL;
		return rc;
	}
	(*text)[bytes] = 0;
	return DEHBQ_OK;
}

int history_start(struct history *h, const char *root, int64_t epoch,
		  const char *text, size_t len, unsigned flags)
{
	char p[STUDY_PATH_MAX];
	int rc;

	h->root = root;
	h->flags = flags;
	h->bytes = 0;
	if ((rc = history_name(h->name, epoch)) ||
	    study_path(p, sizeof(p), root, "state/%s", h->name))
		return rc ? rc : DEHBQ_ETOOBIG;
	if ((rc = atomicfile_write(p, text ? text : "", len, 0666, flags)))
		return rc;
	h->bytes = (int64_t)len;
	return DEHBQ_OK;
}

int history_append(struct history *h, const char *text, size_t len)
{
	const struct atomicfile_ops *ops = atomicfile_get_ops();
	char p[STUDY_PATH_MAX];
	int fd, rc = DEHBQ_OK;

	if (!len)
		return DEHBQ_OK;
	if (study_path(p, sizeof(p), h->root, "state/%s", h->name))
		return DEHBQ_ETOOBIG;
	/* through the atomicfile seam, so that fault tests and the crash
	 * sweep reach the append too */
	if ((fd = ops->open(p, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			    0666)) < 0)
		return DEHBQ_ESYS;
	if (lseek(fd, (off_t)h->bytes, SEEK_SET) < 0 ||
	    fsutil_write_all_with(fd, text, len, ops->write) ||
	    ftruncate(fd, (off_t)h->bytes + (off_t)len) < 0 ||
	    (!(h->flags & ATOMICFILE_NOSYNC) && ops->fsync(fd) < 0))
		rc = DEHBQ_ESYS;
	if (ops->close(fd) < 0 && !rc)
		rc = DEHBQ_ESYS;
	if (!rc)
		h->bytes += (int64_t)len;
	return rc;
}

void history_prune(const char *root, const char *keep)
{
	char p[STUDY_PATH_MAX];
	int64_t e, oldest = -1;
	struct dirent *d;
	DIR *dir;

	if (study_path(p, sizeof(p), root, "state") || !(dir = opendir(p)))
		return;
	/* the oldest epoch a snapshot has: older history files are unused */
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "snapshot-", 9) &&
		    digits(d->d_name + 9, 6, &e) && (oldest < 0 || e < oldest))
			oldest = e;
	rewinddir(dir);
	while ((d = readdir(dir)))
		if (history_parse_name(d->d_name, &e) && e < oldest &&
		    strcmp(d->d_name, keep) &&
		    !study_path(p, sizeof(p), root, "state/%s", d->d_name))
			atomicfile_get_ops()->unlink(p);
	closedir(dir);
}
