/*
 * transfer.h - a study's frozen transfer data, STUDY/state/transfer.jsonl
 * (docs/protocol.md 4.5): the earlier tasks' results that `dehbq init
 * --transfer-from` imported, each mapped into this study's unit cube
 *
 * One line per result, tasks contiguous, in import order:
 *   {"task": "LABEL", "x": [u_1, ..., u_dim], "loss": L}
 * LABEL is 1..127 bytes of UTF-8 without control characters; x is this
 * study's space's vector (each in [0, 1]); L is finite.  The file is
 * written once, by init, before study.json, and never rewritten.
 *
 * Ownership: struct transfer owns its arrays (transfer_release frees
 * them); they have struct prior_tasks's layout, to lend to optim/.
 * Errors: DEHBQ_EINVAL with err naming the file and line, DEHBQ_ENOMEM,
 * DEHBQ_ENOENT (transfer_load: no file, the study has no transfer data).
 */
#ifndef DEHBQ_TRANSFER_H
#define DEHBQ_TRANSFER_H

#include <stddef.h>

#define TRANSFER_LABEL_MAX 128		/* with the NUL */
#define TRANSFER_CAP	   (256u << 20) /* file size cap */

struct transfer {
	int dim;
	int ntasks;
	char (*label)[TRANSFER_LABEL_MAX]; /* ntasks */
	size_t *n;			   /* ntasks */
	double *x;			   /* total * dim */
	double *y;			   /* total */
	size_t total, cap;
	int capt;
};

void transfer_init(struct transfer *t, int dim);
void transfer_release(struct transfer *t);

/*
 * Append one result to task `label` (a new task unless it is the last
 * one's label).  x: dim values in [0, 1]; y finite.
 */
int transfer_add(struct transfer *t, const char *label, const double *x,
		 double y);

/* The whole file's text (malloc'ed, one line per result). */
int transfer_render(const struct transfer *t, char **out);

/* Parse a file's text for a space of dim parameters. */
int transfer_parse(const char *name, const char *text, size_t len, int dim,
		   struct transfer *t, char *err);
/* root/state/transfer.jsonl; DEHBQ_ENOENT when there is none. */
int transfer_load(const char *root, int dim, struct transfer *t, char *err);

#endif
