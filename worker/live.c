/*
 * live.c - owns a running attempt's intermediate results (live.h)
 */
#include "live.h"

#include "atomicfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int live_open(struct live *l, const char *root, const char *id, int attempt,
	      const char *worker)
{
	uint64_t n;
	char name[STUDY_NAME_MAX];

	memset(l, 0, sizeof(*l));
	progress_init(&l->pr, id, attempt, worker);
	if (id_trial_parse(id, &n) ||
	    study_result_name(name, sizeof(name), n, attempt, worker) ||
	    study_path(l->path, sizeof(l->path), root, "progress/%s", name) ||
	    study_path(l->stop, sizeof(l->stop), root, "stop/%s.json", id))
		return DEHBQ_ETOOBIG;
	if (!(l->line = malloc(PROGRESS_LINE_MAX)))
		return DEHBQ_ENOMEM;
	return DEHBQ_OK;
}

/* One whole line. */
static void line_done(struct live *l, const char *p, size_t n)
{
	struct progress_point pt;
	char err[DEHBQ_ERRLEN];
	int rc = progress_line(p, n, &pt, err);

	if (rc == DEHBQ_ENOENT)
		return;
	if (!rc && (rc = progress_add(&l->pr, &pt)) == DEHBQ_EINVAL)
		snprintf(err, sizeof(err),
			 "progress line: fidelity %g is not above the last "
			 "one (%g)",
			 pt.fidelity, progress_last(&l->pr)->fidelity);
	if (rc == DEHBQ_ENOMEM)
		snprintf(err, sizeof(err), "out of memory");
	if (rc) {
		if (!l->bad++)
			snprintf(l->why, sizeof(l->why), "%s", err);
		return;
	}
	l->dirty = 1;
}

void live_feed(struct live *l, const char *buf, size_t n)
{
	while (n && l->line) {
		const char *nl = memchr(buf, '\n', n);
		size_t k = nl ? (size_t)(nl - buf) : n;

		if (!l->skipping && l->len + k <= PROGRESS_LINE_MAX) {
			memcpy(l->line + l->len, buf, k);
			l->len += k;
		} else if (!l->skipping) { /* longer than any progress line */
			if (l->len && l->line[0] == '{' && !l->bad++)
				snprintf(l->why, sizeof(l->why),
					 "a line longer than %u bytes",
					 PROGRESS_LINE_MAX);
			l->skipping = 1;
		}
		if (!nl)
			return;
		if (!l->skipping)
			line_done(l, l->line, l->len);
		l->len = 0;
		l->skipping = 0;
		buf += k + 1;
		n -= k + 1;
	}
}

static void write_now(struct live *l)
{
	char *txt = NULL;

	if (progress_render(&l->pr, &txt)) {
		l->write_errno = ENOMEM;
		return;
	}
	if (atomicfile_write(l->path, txt, strlen(txt), 0666, 0))
		l->write_errno = errno ? errno : EIO;
	else
		l->dirty = 0;
	free(txt);
}

double live_tick(struct live *l, double now)
{
	double wake = 0;

	if (l->dirty && now >= l->next_write) {
		write_now(l);
		l->next_write = now + LIVE_INTERVAL;
	}
	if (l->pr.n && !l->stopped && now >= l->next_check) {
		l->stopped = access(l->stop, F_OK) == 0;
		l->next_check = now + LIVE_INTERVAL;
	}
	if (l->dirty)
		wake = l->next_write;
	if (l->pr.n && !l->stopped && (!wake || l->next_check < wake))
		wake = l->next_check;
	return wake;
}

void live_flush(struct live *l)
{
	if (l->len && !l->skipping)
		line_done(l, l->line, l->len);
	l->len = 0;
	if (l->dirty)
		write_now(l);
	/* a trainer that saw the stop first ($DEHBQ_STOP) and ended */
	if (l->pr.n && !l->stopped)
		l->stopped = access(l->stop, F_OK) == 0;
}

void live_close(struct live *l)
{
	progress_release(&l->pr);
	free(l->line);
	l->line = NULL;
}
