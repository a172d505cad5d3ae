/*
 * dehb_names.c - owns the names of the DEHB engine's optimizers and kinds,
 * and parsing them (the DE operators' names are de.c's)
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "trial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
static const char *const opt_names[] = {"dehb", "sh", "hyperband", NULL};
#define NOPT ((int)(sizeof(opt_names) / sizeof(opt_names[0])) - 1)

const char *dehb_optimizer_name(enum dehb_optimizer o)
{
	return (int)o >= 0 && (int)o < NOPT ? opt_names[o] : "unknown";
}

int dehb_optimizer_parse(const char *s, enum dehb_optimizer *o)
{
	int i;

	for (i = 0; s && i < NOPT; i++)
		if (!strcmp(s, opt_names[i])) {
			*o = (enum dehb_optimizer)i;
			return DEHBQ_OK;
		}
	return DEHBQ_EINVAL;
}

/* The engine's kinds are the trial files' (common/trial.c, the one list
 * of their names). */
_Static_assert((int)DEHB_KIND_TRIAL == (int)TRIAL_KIND_TRIAL &&
		       (int)DEHB_KIND_PROMOTION == (int)TRIAL_KIND_PROMOTION &&
		       (int)DEHB_KIND_RANDOM == (int)TRIAL_KIND_RANDOM &&
		       (int)DEHB_KIND_PRIOR == (int)TRIAL_KIND_PRIOR &&
		       TRIAL_KINDS == 4,
	       "dehb_kind is trial_kind");

const char *dehb_kind_name(enum dehb_kind k)
{
	return trial_kind_name((enum trial_kind)k);
}

int dehb_kind_parse(const char *s, enum dehb_kind *k)
{
	enum trial_kind t;

	if (trial_kind_parse(s, &t))
		return DEHBQ_EINVAL;
	*k = (enum dehb_kind)t;
	return DEHBQ_OK;
}
