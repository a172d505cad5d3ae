/*
 * testutil.c - scratch directories and small file helpers for the suites
 */
#include "testutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

char tu_dir[4096];

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tu_setup(void)
{
	const char *base = getenv("TMPDIR");

	if (snprintf(tu_dir, sizeof(tu_dir), "%s/dehbq-test.XXXXXX",
		     base ? base : "/tmp") >= (int)sizeof(tu_dir) ||
	    !mkdtemp(tu_dir))
		abort();
}

void tu_teardown(void)
{
	if (tu_dir[0])
		nftw(tu_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	tu_dir[0] = 0;
}

const char *tu_path(const char *fmt, ...)
{
	static char ring[8][4096];
	static int next;
	char *buf = ring[next++ & 7];
	char rel[3000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (snprintf(buf, 4096, "%s/%s", tu_dir, rel) >= 4096)
		abort();
	return buf;
}

void tu_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

char *tu_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

const char *tu_datadir(void)
{
	const char *d = getenv("DEHBQ_TESTDATA");

	return d ? d : "tests/data";
}

int tu_count(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

long tu_diff_at(const char *a, const char *b)
{
	long i;

	for (i = 0; a[i] == b[i]; i++)
		if (!a[i])
			return -1;
	return i;
}
