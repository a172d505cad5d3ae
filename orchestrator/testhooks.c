/*
 * testhooks.c - owns the orchestrator's test hooks (testhooks.h): the
 * fault table, the rename delay and the crash counter
 */
#include "testhooks.h"

#include "atomicfile.h"
#include "rng.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long crash_at = -1, changes; /* crash_after: n; changes so far */
static int counting = 1;

/* One change made: the crash, if this is the one. */
static void changed(void)
{
	if (counting && ++changes == crash_at)
		raise(SIGKILL);
}

static int atoi_checked(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || *end || !*s || *out < 0 || *out > 10000 ? -1 : 0;
}

static long rename_delay_us; /* test hook, see below */

static struct {
	int err[5];	/* errno per op: open, write, fsync, rename, short */
	double prob[5]; /* probability per op */
	struct rng rng; /* fault stream */
} faults;

enum { F_OPEN, F_WRITE, F_FSYNC, F_RENAME, F_SHORT };

static int fault_hit(int op)
{
	if (faults.prob[op] <= 0 || rng_uniform(&faults.rng) >= faults.prob[op])
		return 0;
	errno = faults.err[op];
	return 1;
}

static int f_open(const char *p, int flags, mode_t mode)
{
	int fd = fault_hit(F_OPEN) ? -1 : open(p, flags, mode);

	if (fd >= 0 && (flags & O_CREAT))
		changed();
	return fd;
}

static ssize_t f_write(int fd, const void *buf, size_t n)
{
	ssize_t w;

	if (fault_hit(F_WRITE))
		return -1;
	if (n > 1 && faults.prob[F_SHORT] > 0 &&
	    rng_uniform(&faults.rng) < faults.prob[F_SHORT])
		n = 1 + rng_below(&faults.rng, n - 1);
	w = write(fd, buf, n);
	if (w > 0)
		changed();
	return w;
}

static int f_fsync(int fd)
{
	return fault_hit(F_FSYNC) ? -1 : fsync(fd);
}

static int f_rename(const char *from, const char *to)
{
	int rc;

	if (rename_delay_us)
		usleep((useconds_t)rename_delay_us);
	if (!(rc = fault_hit(F_RENAME) ? -1 : rename(from, to)))
		changed();
	return rc;
}

static int f_rename_noreplace(const char *from, const char *to)
{
	int rc;

	if (rename_delay_us)
		usleep((useconds_t)rename_delay_us);
	rc = fault_hit(F_RENAME) ? -1
				 : renameat2(AT_FDCWD, from, AT_FDCWD, to,
					     RENAME_NOREPLACE);
	if (!rc)
		changed();
	return rc;
}

static int f_unlink(const char *p)
{
	int rc = unlink(p);

	if (!rc)
		changed();
	return rc;
}

/* The table of the f_ functions in place of the real calls. */
static void install_table(void)
{
	struct atomicfile_ops table = *atomicfile_get_ops();

	table.open = f_open;
	table.write = f_write;
	table.fsync = f_fsync;
	table.rename = f_rename;
	table.unlink = f_unlink;
	table.rename_noreplace = f_rename_noreplace;
	atomicfile_set_ops(&table);
}

static int parse_errno(const char *name)
{
	static const struct {
		const char *name; /* errno name */
		int value;	  /* its value */
	} names[] = {{"ENOSPC", ENOSPC}, {"EIO", EIO},	   {"EDQUOT", EDQUOT},
		     {"EMFILE", EMFILE}, {"EROFS", EROFS}, {"ESTALE", ESTALE}};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i].name))
			return names[i].value;
	return EIO;
}

/* DEHBQ_TEST_FAULTS's list into faults; 1 when it set any. */
static int parse_faults(const char *f)
{
	static const char *const ops[] = {"open", "write", "fsync", "rename",
					  "short"};
	char buf[256], *tok, *save = NULL;
	int any = 0, i;

	if (strlen(f) >= sizeof(buf))
		return 0;
	memcpy(buf, f, strlen(f) + 1);
	rng_seed(&faults.rng, (uint64_t)getpid());
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *colon;

		if (!eq)
			continue;
		*eq++ = 0;
		colon = strrchr(eq, ':');
		for (i = 0; i < 5; i++)
			if (!strcmp(tok, ops[i]))
				break;
		if (i == 5)
			continue;
		faults.prob[i] = strtod(colon ? colon + 1 : eq, NULL);
		if (colon) {
			*colon = 0;
			faults.err[i] = parse_errno(eq);
		}
		any = 1;
	}
	return any;
}

void testhooks_install(void)
{
	const char *v = getenv("DEHBQ_TEST_RENAME_DELAY_MS");
	const char *f = getenv("DEHBQ_TEST_FAULTS");
	const char *c = getenv("DEHBQ_TEST_CRASH_AFTER");
	char *end;
	long n;
	int any = 0;

	if (v && !atoi_checked(v, &rename_delay_us)) {
		rename_delay_us *= 1000;
		any = 1;
	}
	if (f)
		any |= parse_faults(f);
	if (c && (n = strtol(c, &end, 10)) > 0 && !*end) {
		crash_at = n;
		any = 1;
	}
	if (any)
		install_table();
}

void testhooks_crash_after(long n)
{
	changes = 0;
	crash_at = n > 0 ? n : -1;
	install_table();
}

void testhooks_counting(int on)
{
	counting = on;
}

long testhooks_changes(void)
{
	return changes;
}
