/*
 * id.h - identifiers that end up in file names, and their exact formats
 *
 * Anything read from disk that becomes part of a path is validated here
 * first, against an exact format, so '/', "..", spaces and control
 * characters can never reach a path.
 *
 *   study id   36-char lowercase UUID (libuuid), e.g. 1b4e28ba-2fa1-...
 *   worker id  12 lowercase hex digits (48 random bits from libuuid)
 *   trial id   exactly 8 decimal digits: the engine's job number, so ids
 *              sort in issue order and shard by id / 10000
 *   host       1..63 chars of [A-Za-z0-9-]; gethostname() is sanitised
 *              ('.' and anything else becomes '-') so it is one name part
 *   token      16 lowercase hex digits: 64 random bits the orchestrator
 *              draws when it issues a trial id; with the id it names one
 *              issued trial (docs/protocol.md, "Matching a file to its
 *              trial").  0 is "none": files written before tokens existed
 *
 * Ownership: callers provide the output buffers of the sizes below.
 */
#ifndef DEHBQ_ID_H
#define DEHBQ_ID_H

#include <stdint.h>

#define ID_STUDY_LEN  37 /* 36 + NUL */
#define ID_WORKER_LEN 13 /* 12 + NUL */
#define ID_TRIAL_LEN  9	 /* 8 + NUL */
#define ID_HOST_LEN   64 /* 63 + NUL */
#define ID_TRIAL_MAX  99999999ULL
#define ID_TOKEN_LEN  17 /* 16 + NUL */

void id_study_new(char out[ID_STUDY_LEN]);
void id_worker_new(char out[ID_WORKER_LEN]);
/* DEHBQ_ETOOBIG when n > ID_TRIAL_MAX. */
int id_trial_format(uint64_t n, char out[ID_TRIAL_LEN]);
/* A new random token, never 0. */
uint64_t id_token_new(void);
/* 16 lowercase hex digits. */
void id_token_format(uint64_t t, char out[ID_TOKEN_LEN]);
/* Parse 16 lowercase hex digits, not all zero: DEHBQ_OK or DEHBQ_EINVAL. */
int id_token_parse(const char *s, uint64_t *t);
/* Sanitised short host name; "unknown" if gethostname fails. */
void id_host(char out[ID_HOST_LEN]);

/* Exact-format checks: 1 valid, 0 not. */
int id_is_study(const char *s);
int id_is_worker(const char *s);
int id_is_host(const char *s);
/* Parse a trial id: DEHBQ_OK or DEHBQ_EINVAL. */
int id_trial_parse(const char *s, uint64_t *n);

#endif
