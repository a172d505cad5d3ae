/*
 * redo.h - the redo list: a batch's moves and writes, waiting for the
 * snapshot that makes them safe (docs/protocol.md sections 6 and 8)
 *
 * A batch queues every change to the study directory that must follow its
 * snapshot: archive a told result, publish a staged trial, retire a claim,
 * write a note.  The snapshot stores the queue as its "redo" list
 * (redo_to_text); after the snapshot is durable the batch applies it
 * (redo_apply).  A restart loads the newest snapshot's list (redo_load)
 * and applies it before anything else.  Every entry is idempotent: a move
 * whose source is gone is done, a write is repeated.
 *
 * Entries:
 *   REDO_MOVE      rename from -> to
 *   REDO_WRITE     write text to `to` (atomically)
 *   REDO_UNLINK    remove `to`
 *   REDO_MOVE_NEW  rename from -> to, but never over an existing `to`: then
 *                  from goes beside it as DIR.NAME.stale.json
 * Every path is inside the study root; the text form holds them relative
 * to it, and redo_load refuses one outside the study's directories.
 *
 * Error handling: DEHBQ_OK, DEHBQ_ENOMEM, DEHBQ_EINVAL (redo_load: err
 * says which entry), or redo_apply's storage error (DEHBQ_ESYS with errno,
 * DEHBQ_ETOOBIG): the entries not yet applied stay queued for a retry.
 *
 * Ownership: struct redo owns copies of every path and text; it borrows
 * root, which must outlive it.  redo_to_text returns malloc'ed text.
 */
#ifndef DEHBQ_REDO_H
#define DEHBQ_REDO_H

#include <stddef.h>

struct cJSON;

enum redo_op { REDO_MOVE, REDO_WRITE, REDO_UNLINK, REDO_MOVE_NEW, REDO_NOPS };

struct redo_entry {
	enum redo_op op; /* what to do */
	char *from;	 /* REDO_MOVE, REDO_MOVE_NEW: the source */
	char *to;	 /* the destination */
	char *text;	 /* REDO_WRITE: the content */
};

struct redo {
	const char *root;     /* study directory, borrowed */
	struct redo_entry *e; /* the queue, in order */
	size_t n, cap;	      /* its length and capacity */
	int gone;	      /* redo_apply met a vanished source */
};

void redo_init(struct redo *r, const char *root);
void redo_release(struct redo *r);

/* Queue an entry (paths absolute, inside root). */
int redo_push(struct redo *r, enum redo_op op, const char *from, const char *to,
	      const char *text);
/* 1 when path is the source (redo_has_from) or destination of an entry. */
int redo_has_from(const struct redo *r, const char *path);
int redo_has_to(const struct redo *r, const char *path);

/* The queue as compact JSON (paths relative to root); NULL: no memory. */
char *redo_to_text(const struct redo *r);
/* Append the entries of a snapshot's "redo" array.  name: for messages. */
int redo_load(struct redo *r, const struct cJSON *arr, const char *name,
	      char *err);

/*
 * Apply the queue in order, then fsync each directory it touched (unless
 * nosync).  flags: atomicfile flags for the moves and writes.  On an error
 * the entries from the failing one on stay queued.  r->gone is set when a
 * move found its source gone (another process moved it first).
 */
int redo_apply(struct redo *r, unsigned flags, int nosync);

/* The name a retired copy of `from` (.../DIR/NAME.json) takes in the
 * directory dir: dir/DIR.NAME.stale.json. */
int redo_stale_name(char *buf, size_t size, const char *dir, const char *from);

#endif
