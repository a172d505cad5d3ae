/*
 * workdir.c - owns the names of the trials' work directories (workdir.h)
 */
#include "workdir.h"

#include "err.h"
#include "id.h"
#include "study.h"
#include "trial.h"

int workdir_of(const char *root, uint64_t id, uint64_t tok, char *out,
	       size_t size)
{
	char idt[ID_TRIAL_LEN], tt[ID_TOKEN_LEN];
	unsigned sh = study_shard(id);

	if (id_trial_format(id, idt))
		return DEHBQ_ETOOBIG;
	if (!tok)
		return study_path(out, size, root, "work/%04u/%s", sh, idt);
	id_token_format(tok, tt);
	return study_path(out, size, root, "work/%04u/%s-%s", sh, idt, tt);
}

int workdir_find(const char *root, const struct space *sp, uint64_t id,
		 char *out, size_t size)
{
	char p[STUDY_PATH_MAX], err[DEHBQ_ERRLEN];
	uint64_t tok = 0;
	struct trial t;
	int rc;

	if ((rc = study_trial_archive_path(p, sizeof(p), root, id)))
		return rc;
	if (!trial_load(p, sp, &t, err)) {
		if (t.id == id)
			tok = t.token;
		trial_release(&t);
	}
	return workdir_of(root, id, tok, out, size);
}
