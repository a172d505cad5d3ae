/*
 * history.h - the optimiser's history file, state/history-EEEEEE.jsonl
 *
 * An optimiser that keeps every result (optim_keeps_history: ASHA, and the
 * model-based ones to come) saves only a bounded state in each snapshot;
 * its history records (one line of JSON per told trial, made by optim/)
 * go to an append-only file instead, and the snapshot records the file's
 * name and its length at the save.  docs/protocol.md 4.5 and 9.
 *
 * One file per orchestrator epoch: an orchestrator starts its own file,
 * history-<its epoch>.jsonl, as an atomic copy of the bytes its snapshot
 * names, and only ever writes that file, so a fenced-off predecessor that
 * still appends to the older file cannot touch it.  Bytes beyond the
 * length a snapshot names (a crash between an append and the snapshot)
 * are never read, and the next append overwrites them.
 *
 * Ownership: history_read() returns malloc'ed text the caller frees.
 */
#ifndef DEHBQ_HISTORY_H
#define DEHBQ_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define HISTORY_NAME_LEN  32 /* "history-EEEEEE.jsonl" and its NUL */
#define HISTORY_MAX_BYTES ((int64_t)1 << 46) /* sanity bound, 64 TiB */

struct history {
	const char *root;	     /* the study, borrowed */
	char name[HISTORY_NAME_LEN]; /* the file in state/, "" while none */
	int64_t bytes;		     /* its length as the next snapshot
					names it */
	unsigned flags;		     /* ATOMICFILE_NOSYNC or 0 */
};

/* name for epoch: "history-EEEEEE.jsonl". */
int history_name(char name[HISTORY_NAME_LEN], int64_t epoch);
/* 1 when name is a history file name, with its epoch. */
int history_parse_name(const char *name, int64_t *epoch);

/*
 * The first `bytes` bytes of state/NAME.  DEHBQ_ESYS with err when the
 * file is missing, not a file or shorter: the snapshot that names it is
 * skipped, not quarantined.  DEHBQ_EAGAIN when it could not be read now
 * (EIO, EMFILE, ESTALE): try again later, never an older snapshot.
 */
int history_read(const char *root, const char *name, int64_t bytes, char **text,
		 char *err);

/*
 * Start this orchestrator's file for epoch: the text its snapshot named
 * (len bytes, maybe 0) written atomically as history-<epoch>.jsonl.
 */
int history_start(struct history *h, const char *root, int64_t epoch,
		  const char *text, size_t len, unsigned flags);

/* Append text at h->bytes (and sync); h->bytes grows only on success. */
int history_append(struct history *h, const char *text, size_t len);

/* Remove history files of epochs no snapshot in state/ names, but keep. */
void history_prune(const char *root, const char *keep);

#endif
