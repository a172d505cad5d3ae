/*
 * registry.c - this worker's entry in workers/: HOST.PID.WID.json
 *
 * Protocol (docs/protocol.md, sections 2 and 4.5):
 *   - Format "dehbq-worker/1": worker, host, pid, started, trial (id or
 *     null), slurm_job_id, slurm_array_job_id, slurm_array_task_id (string
 *     or null), command (argv[0] of the trainer).
 *   - Only this worker writes it, always whole (atomicfile), when the
 *     current trial changes.  Its mtime is the heartbeat: utime(2) every
 *     lease / 4, idle or busy.  A clean exit removes it; the orchestrator
 *     may remove entries older than 10 x lease.
 */
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <utime.h>

#include <cjson/cJSON.h>

#include "atomicfile.h"
#include "err.h"
#include "jsonfile.h"
#include "fsutil.h"
#include "timeutil.h"

int registry_init(struct registry *rg, const char *root, const char *host,
		  long pid, const char *worker, const char *command)
{
	char name[STUDY_NAME_MAX];
	int rc;

	memset(rg, 0, sizeof(*rg));
	if ((rc = study_worker_name(name, sizeof(name), host, pid, worker)) ||
	    (rc = study_path(rg->path, sizeof(rg->path), root, "workers/%s",
			     name)) ||
	    (rc = fsutil_pathf(rg->root, sizeof(rg->root), "%s", root)))
		return rc;
	snprintf(rg->host, sizeof(rg->host), "%s", host);
	snprintf(rg->worker, sizeof(rg->worker), "%s", worker);
	snprintf(rg->command, sizeof(rg->command), "%s", command);
	rg->pid = pid;
	rg->slot = -1;
	rg->started = timeutil_now();
	return DEHBQ_OK;
}

/* Add SLURM variable env as key: string, or null when unset. */
static int add_env(cJSON *o, const char *key, const char *env)
{
	const char *v = getenv(env);

	if (v && *v)
		return !cJSON_AddStringToObject(o, key, v);
	return !cJSON_AddNullToObject(o, key);
}

int registry_render(const struct registry *rg, char **out)
{
	char started[TIMEUTIL_ISO_LEN];
	cJSON *o = cJSON_CreateObject();
	int bad = !o;

	*out = NULL;
	if (!o)
		return DEHBQ_ENOMEM;
	timeutil_iso(rg->started, started);
	bad |= !cJSON_AddStringToObject(o, "format", REGISTRY_FORMAT) |
	       !cJSON_AddStringToObject(o, "worker", rg->worker) |
	       !cJSON_AddStringToObject(o, "host", rg->host) |
	       jsonfile_add_number(o, "pid", (double)rg->pid) |
	       !cJSON_AddStringToObject(o, "started", started);
	if (rg->trial[0])
		bad |= !cJSON_AddStringToObject(o, "trial", rg->trial);
	else
		bad |= !cJSON_AddNullToObject(o, "trial");
	if (rg->slot >= 0)
		bad |= jsonfile_add_number(o, "slot", rg->slot) |
		       jsonfile_add_number(o, "parent_pid", (double)rg->parent);
	if (rg->gpus && rg->gpus[0])
		bad |= !cJSON_AddStringToObject(o, "gpus", rg->gpus);
	bad |= add_env(o, "slurm_job_id", "SLURM_JOB_ID") |
	       add_env(o, "slurm_array_job_id", "SLURM_ARRAY_JOB_ID") |
	       add_env(o, "slurm_array_task_id", "SLURM_ARRAY_TASK_ID") |
	       !cJSON_AddStringToObject(o, "command", rg->command);
	return jsonfile_render(o, !bad, out);
}

int registry_write(struct registry *rg, const char *trial)
{
	char *txt;
	int rc;

	if (trial != rg->trial)
		snprintf(rg->trial, sizeof(rg->trial), "%s",
			 trial ? trial : "");
	if ((rc = registry_render(rg, &txt)))
		return rc;
	/* No fsync: the entry is advisory and rewritten after a crash. */
	rc = atomicfile_write(rg->path, txt, strlen(txt), 0666,
			      ATOMICFILE_NOSYNC);
	free(txt);
	return rc;
}

int registry_touch(struct registry *rg)
{
	if (utime(rg->path, NULL) == 0)
		return DEHBQ_OK;
	if (errno == ENOENT)
		return registry_write(rg, rg->trial);
	return DEHBQ_ESYS;
}

int registry_remove(struct registry *rg)
{
	if (unlink(rg->path) < 0 && errno != ENOENT)
		return DEHBQ_ESYS;
	return DEHBQ_OK;
}
