/*
 * runenv.c - what a trainer is given for one attempt: paths, argv, and
 * environment (runenv.h)
 */
#include "runenv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "atomicfile.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "objectives.h"
#include "run.h"
#include "space.h"
#include "trial.h"
#include "workdir.h"

extern char **environ;

static const char *const placeholders[] = {
	"config",  "budget", "id",   "attempt",
	"workdir", "result", "seed", "parent_workdir",
};

static const char *var_value(const struct runenv_vars *v, size_t i)
{
	const char *const vals[] = {v->config,	v->budget,	  v->id,
				    v->attempt, v->workdir,	  v->result,
				    v->seed,	v->parent_workdir};

	return vals[i];
}

int runenv_subst(const char *in, const struct runenv_vars *v, char **out)
{
	size_t n = 0, cap = strlen(in) + 1, i, k;
	const char *p = in;
	char *s = malloc(cap), *t;

	*out = NULL;
	if (!s)
		return DEHBQ_ENOMEM;
	while (*p) {
		const char *add = p;
		size_t addlen = 1, skip = 1;

		if (*p == '{') {
			for (i = 0;
			     i < sizeof(placeholders) / sizeof(placeholders[0]);
			     i++) {
				k = strlen(placeholders[i]);
				if (!strncmp(p + 1, placeholders[i], k) &&
				    p[1 + k] == '}') {
					add = var_value(v, i);
					addlen = strlen(add);
					skip = k + 2;
					break;
				}
			}
		}
		if (n + addlen + 1 > cap) {
			cap = 2 * (n + addlen + 1);
			if (!(t = realloc(s, cap))) {
				free(s);
				return DEHBQ_ENOMEM;
			}
			s = t;
		}
		memcpy(s + n, add, addlen);
		n += addlen;
		p += skip;
	}
	s[n] = 0;
	*out = s;
	return DEHBQ_OK;
}

static int env_add(struct runenv *e, const char *name, const char *val)
{
	size_t len = strlen(name) + strlen(val) + 2;
	char *s;

	if (e->envn + 2 > e->envcap) {
		size_t cap = e->envcap * 2 + 32;
		char **v = realloc(e->envp, cap * sizeof(*v));

		if (!v)
			return DEHBQ_ENOMEM;
		e->envp = v;
		e->envcap = cap;
	}
	if (!(s = malloc(len)))
		return DEHBQ_ENOMEM;
	snprintf(s, len, "%s=%s", name, val);
	e->envp[e->envn++] = s;
	e->envp[e->envn] = NULL;
	return DEHBQ_OK;
}

static int ours(const char *entry)
{
	static const char *const names[] = {
		"DEHBQ_TRIAL_ID=", "DEHBQ_BUDGET=",	"DEHBQ_CONFIG=",
		"DEHBQ_RESULT=",   "DEHBQ_WORKDIR=",	"DEHBQ_STUDY=",
		"DEHBQ_ATTEMPT=",  "DEHBQ_SEED=",	"DEHBQ_PARENT_WORKDIR=",
		"DEHBQ_P_",	   "DEHBQ_OBJECTIVES=", "DEHBQ_GPUS=",
		"DEHBQ_STOP=",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(entry, names[i], strlen(names[i])))
			return 1;
	return 0;
}

static int env_build(struct runenv *e, const struct run_job *j)
{
	const struct trial *t = j->trial;
	char name[STUDY_NAME_MAX + 16], val[4096];
	size_t n = 0, i;
	int rc = DEHBQ_OK, k;

	while (environ[n])
		n++;
	e->envcap = n + 32 + (size_t)t->dim;
	if (!(e->envp = malloc(e->envcap * sizeof(*e->envp))))
		return DEHBQ_ENOMEM;
	for (i = 0; i < n; i++)
		if (!ours(environ[i]))
			e->envp[e->envn++] = environ[i];
	e->envp[e->envn] = NULL;
	e->envown = e->envn;
	if ((rc = env_add(e, "DEHBQ_TRIAL_ID", e->vars.id)) ||
	    (rc = env_add(e, "DEHBQ_BUDGET", e->vars.budget)) ||
	    (rc = env_add(e, "DEHBQ_CONFIG", e->vars.config)) ||
	    (rc = env_add(e, "DEHBQ_RESULT", e->vars.result)) ||
	    (rc = env_add(e, "DEHBQ_WORKDIR", e->vars.workdir)) ||
	    (rc = env_add(e, "DEHBQ_STUDY", j->root)) ||
	    (rc = env_add(e, "DEHBQ_ATTEMPT", e->vars.attempt)) ||
	    (rc = env_add(e, "DEHBQ_SEED", e->vars.seed)) ||
	    (rc = env_add(e, "DEHBQ_PARENT_WORKDIR", e->vars.parent_workdir)))
		return rc;
	/* the optimiser stopped the trial once this file exists (live.h) */
	if (study_path(val, sizeof(val), j->root, "stop/%s.json", e->id))
		return DEHBQ_ETOOBIG;
	if ((rc = env_add(e, "DEHBQ_STOP", val)))
		return rc;
	if (j->gpus && j->gpus[0] && (rc = env_add(e, "DEHBQ_GPUS", j->gpus)))
		return rc;
	if (j->obj && j->obj->n) {
		objectives_env(j->obj, val, sizeof(val));
		if ((rc = env_add(e, "DEHBQ_OBJECTIVES", val)))
			return rc;
	}
	for (k = 0; k < t->dim; k++) {
		if (space_env_name(space_param_name(j->space, k), name,
				   sizeof(name)) ||
		    space_value_format(&t->config[k], val, sizeof(val)))
			continue; /* cannot happen for a validated trial */
		if ((rc = env_add(e, name, val)))
			return rc;
	}
	return rc;
}

static int paths(struct runenv *p, const struct run_job *j, char *err)
{
	const struct trial *t = j->trial;
	unsigned sh = study_shard(t->id);
	cJSON *cfg = NULL;
	char *txt = NULL;
	int rc;

	id_trial_format(t->id, p->id);
	snprintf(p->attempt, sizeof(p->attempt), "%d", t->attempt);
	jsonfile_fmt_double(p->budget, sizeof(p->budget), t->fidelity);
	snprintf(p->seed, sizeof(p->seed), "%llu", (unsigned long long)t->seed);
	if (workdir_of(j->root, t->id, t->token, p->workdir,
		       sizeof(p->workdir)) ||
	    fsutil_pathf(p->config, sizeof(p->config), "%s/config.json",
			 p->workdir) ||
	    fsutil_pathf(p->report, sizeof(p->report), "%s/result.json",
			 p->workdir) ||
	    study_path(p->logdir, sizeof(p->logdir), j->root, "logs/%04u",
		       sh) ||
	    study_log_path(p->out, sizeof(p->out), j->root, t->id, t->attempt,
			   "out") ||
	    study_log_path(p->err, sizeof(p->err), j->root, t->id, t->attempt,
			   "err"))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "study path too long");
	if (t->parent >= 0 &&
	    workdir_find(j->root, j->space, (uint64_t)t->parent, p->parent,
			 sizeof(p->parent)))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "study path too long");
	if (fsutil_mkdir_p(p->workdir, 0777))
		return dehbq_errf(err, DEHBQ_ESYS, "mkdir(%s): %s", p->workdir,
				  strerror(errno));
	if (fsutil_mkdir_p(p->logdir, 0777))
		return dehbq_errf(err, DEHBQ_ESYS, "mkdir(%s): %s", p->logdir,
				  strerror(errno));
	if (unlink(p->report) < 0 && errno != ENOENT)
		return dehbq_errf(err, DEHBQ_ESYS, "unlink(%s): %s", p->report,
				  strerror(errno));
	if (!(cfg = space_config_to_json(j->space, t->config)) ||
	    !(txt = cJSON_Print(cfg))) {
		rc = dehbq_errf(err, DEHBQ_ENOMEM, "out of memory");
		goto out;
	}
	/* No fsync: a crash re-runs the attempt, which rewrites it. */
	rc = atomicfile_write(p->config, txt, strlen(txt), 0666,
			      ATOMICFILE_NOSYNC);
	if (rc)
		dehbq_errf(err, rc, "write(%s): %s", p->config,
			   strerror(errno));
out:
	cJSON_free(txt);
	cJSON_Delete(cfg);
	return rc;
}

/* The attempt's argv: the operator's, each element substituted. */
static int argv_build(struct runenv *e, char *const *tmpl)
{
	size_t n = 0, i;

	while (tmpl[n])
		n++;
	if (!(e->argv = calloc(n + 1, sizeof(*e->argv))))
		return DEHBQ_ENOMEM;
	e->argc = n;
	for (i = 0; i < n; i++)
		if (runenv_subst(tmpl[i], &e->vars, &e->argv[i]))
			return DEHBQ_ENOMEM;
	return DEHBQ_OK;
}

int runenv_prepare(struct runenv *e, char *const *argv_template,
		   const struct run_job *j, char *err)
{
	int rc;

	memset(e, 0, sizeof(*e));
	if ((rc = paths(e, j, err)))
		return rc;
	e->vars = (struct runenv_vars){
		.config = e->config,
		.budget = e->budget,
		.id = e->id,
		.attempt = e->attempt,
		.workdir = e->workdir,
		.result = e->report,
		.seed = e->seed,
		.parent_workdir = e->parent,
	};
	if ((rc = argv_build(e, argv_template)) || (rc = env_build(e, j)))
		return dehbq_errf(err, rc, "out of memory");
	return DEHBQ_OK;
}

void runenv_release(struct runenv *e)
{
	size_t i;

	if (e->argv)
		for (i = 0; i < e->argc; i++)
			free(e->argv[i]);
	free(e->argv);
	if (e->envp)
		for (i = e->envown; i < e->envn; i++)
			free(e->envp[i]);
	free(e->envp);
	memset(e, 0, sizeof(*e));
}
