/*
 * study.h - the study directory: layout and file names (docs/protocol.md)
 *
 *   STUDY/study.json          the spec, written once by `dehbq init`
 *   STUDY/staging/            trials recorded in a snapshot, not yet public
 *   STUDY/pending/            published trials: PP-IIIIIIII.json
 *   STUDY/claimed/            IIIIIIII@HOST.PID.WID.json (mtime = heartbeat)
 *   STUDY/results/            IIIIIIII.aN.WID.json
 *   STUDY/archive/SSSS/       ingested IIIIIIII.trial.json + .result.json
 *   STUDY/quarantine/         refused files + NAME.reason
 *   STUDY/state/              snapshot-EEEEEE-GGGGGGGGGG.json, lease.json,
 *                             status.json, requests/
 *   STUDY/workers/            HOST.PID.WID.json (mtime = heartbeat)
 *   STUDY/progress/           IIIIIIII.aN.WID.json: a running attempt's
 *                             intermediate results (progress.h)
 *   STUDY/stop/               IIIIIIII.json: the optimiser stopped it
 *   STUDY/logs/SSSS/          IIIIIIII.aN.{out,err}
 *   STUDY/work/SSSS/IIIIIIII/ per-trial working directories
 *   STUDY/FINISHED            written when the study is complete
 *
 * PP = 99 - rung, so an ascending listing of pending/ puts higher rungs
 * first; IIIIIIII = trial id (8 digits); SSSS = id / 10000 (4 digits), so
 * no archive directory holds more than 20000 files; N = attempt.
 *
 * Every parser here validates the exact format, so a name that parses can
 * be joined to a path safely.  Error handling: builders return DEHBQ_OK or
 * DEHBQ_ETOOBIG; parsers DEHBQ_OK or DEHBQ_EINVAL.  Buffers are the
 * caller's.
 */
#ifndef DEHBQ_STUDY_H
#define DEHBQ_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "id.h"

#define STUDY_PATH_MAX	4096
#define STUDY_NAME_MAX	256
#define STUDY_PATH_BUF	STUDY_PATH_MAX
/* Longest claim name: 8 + 1 + 63 + 1 + 19 (pid) + 1 + 12 + 5 + NUL = 111 */
#define STUDY_CLAIM_MAX 128
#define STUDY_MAX_RUNG	99

/* The directories `dehbq init` creates, NULL-terminated. */
extern const char *const study_dirs[];

/* Create root and every study directory (mode 0777 & ~umask, see docs). */
int study_create_dirs(const char *root);

/* root + "/" + formatted relative path. */
int study_path(char *buf, size_t size, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* root + "/" + dir + "/" + name (name may be NULL: root/dir), without
 * printf: the per-trial paths.  DEHBQ_ETOOBIG (buf = "") if too long. */
int study_join(char *buf, size_t size, const char *root, const char *dir,
	       const char *name);

/* Shard directory number for a trial id. */
unsigned study_shard(uint64_t id);
/* "archive/SSSS", the archive shard of id, without printf. */
#define STUDY_ARCHIVE_DIR_LEN 13
void study_archive_dir(char out[STUDY_ARCHIVE_DIR_LEN], uint64_t id);
/* root/archive/SSSS/IIIIIIII.trial.json: a told trial's file, where the
 * orchestrator archives the claim that ran, once matched (protocol.md 6). */
int study_trial_archive_path(char *buf, size_t size, const char *root,
			     uint64_t id);
/*
 * The archive's files of trial id, every name built here: attempt 0 gives
 * root/archive/SSSS/IIIIIIII.KIND.json (the current file); attempt N > 0
 * gives root/archive/SSSS/IIIIIIII.aN.KIND.json (an earlier attempt's,
 * kept by a requeue).  KIND: "trial" or "result".
 */
int study_archive_file(char *buf, size_t size, const char *root, uint64_t id,
		       int attempt, const char *kind);
/* root/logs/SSSS/IIIIIIII.aN.STREAM, STREAM "out" or "err"; root "" gives
 * the path relative to the study, for messages. */
int study_log_path(char *buf, size_t size, const char *root, uint64_t id,
		   int attempt, const char *stream);

/* The trial id an archive entry is named for: IIIIIIII.*, or a stale copy
 * claimed.IIIIIIII@... or pending.PP-IIIIIIII...  DEHBQ_EINVAL if none. */
int study_archive_name_id(const char *name, uint64_t *id);

/* staging/IIIIIIII.json */
int study_staging_name(char *buf, size_t size, uint64_t id);
int study_parse_staging(const char *name, uint64_t *id);

int study_pending_name(char *buf, size_t size, int rung, uint64_t id);
int study_parse_pending(const char *name, int *rung, uint64_t *id);

struct study_claim {
	uint64_t id;		    /* trial id */
	char host[ID_HOST_LEN];	    /* claiming host (sanitised) */
	long pid;		    /* claiming pid on that host */
	char worker[ID_WORKER_LEN]; /* random worker id */
};
int study_claim_name(char *buf, size_t size, const struct study_claim *c);
int study_parse_claim(const char *name, struct study_claim *c);

int study_result_name(char *buf, size_t size, uint64_t id, int attempt,
		      const char *worker);
int study_parse_result(const char *name, uint64_t *id, int *attempt,
		       char worker[ID_WORKER_LEN]);

/*
 * state/requests/ACTION-MS-PID.json (dehbq stop, requeue, extend): 1 when
 * name is a request that runs a finished study again (extend, requeue,
 * requeue-failed: the orchestrator removes FINISHED when it takes one, and
 * the request file after), else 0.
 */
int study_request_resumes(const char *name);

/* workers/HOST.PID.WID.json */
int study_worker_name(char *buf, size_t size, const char *host, long pid,
		      const char *worker);
int study_parse_worker(const char *name, char host[ID_HOST_LEN], long *pid,
		       char worker[ID_WORKER_LEN]);

#endif
