/*
 * workdir.h - which directory a trial's trainer runs in
 *
 * A trial's work directory is where its trainer keeps checkpoints: a later
 * attempt of the same issued trial, and a promotion of it, continue from
 * there.  Only that issued trial may use it, never a stale or foreign
 * trial file that carries the same id (docs/protocol.md, "Matching a file
 * to its trial").  So the directory is named by the trial's token as well
 * as its id: work/SSSS/ID-TOKEN/.  Every attempt of an issued trial has
 * the same token, so they share it; a file issued under a lost snapshot,
 * or copied by hand, has another token (or none) and runs elsewhere.  A
 * trial file without a token (written before tokens) uses work/SSSS/ID/.
 * A promotion's parent directory is found from the token of the parent's
 * archived trial file (archive/SSSS/PARENT.trial.json), which only the
 * orchestrator writes, after matching it.
 *
 * Error handling: DEHBQ_OK or DEHBQ_ETOOBIG (path too long).
 * Ownership: out is the caller's buffer.
 */
#ifndef DEHBQ_WORKDIR_H
#define DEHBQ_WORKDIR_H

#include <stddef.h>
#include <stdint.h>

struct space;

/* The work directory of trial id issued with token tok (0: none). */
int workdir_of(const char *root, uint64_t id, uint64_t tok, char *out,
	       size_t size);

/* The work directory that trial id used, by its archived trial file's
 * token; work/SSSS/ID when that file cannot be read or has none. */
int workdir_find(const char *root, const struct space *sp, uint64_t id,
		 char *out, size_t size);

#endif
