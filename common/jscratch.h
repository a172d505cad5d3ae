/*
 * jscratch.h - a scratch block for cJSON's allocations
 *
 * The orchestrator builds, prints and frees thousands of small cJSON trees
 * per second (trial files, results, the snapshot), and malloc/free of
 * their nodes was a quarter of its CPU time.  Between jscratch_begin() and
 * the matching jscratch_end(), cJSON allocates through its hooks from one
 * reusable block: a bump pointer, and freeing into the block costs
 * nothing; _end() makes the whole block free again.  A scope that
 * outgrows the block gets plain malloc for the rest, and the next scope a
 * block big enough.
 *
 * Rules: code inside a scope still deletes and frees what cJSON gave it,
 * as always (those calls release the malloc fallback).  Nothing cJSON
 * allocated inside a scope (items, parsed trees, printed text) may be
 * used after the scope ends: copy what must live on (the callers copy
 * printed text with malloc, parsed strings with strdup).  Scopes nest;
 * only the outermost end resets the block.  Outside every scope cJSON
 * uses malloc and free, as it does without this module.
 *
 * Process-wide state (cJSON's hooks are global): single-threaded programs
 * only.  Under AddressSanitizer the block is poisoned outside scopes and
 * between allocations, so a use after the scope is reported.
 * Ownership: the block is owned here; jscratch_release() frees it.
 */
#ifndef DEHBQ_JSCRATCH_H
#define DEHBQ_JSCRATCH_H

void jscratch_begin(void);
void jscratch_end(void);
/* Free the block (at exit, for leak checkers); no scope may be open. */
void jscratch_release(void);

#endif
