/*
 * dehb_names.c - owns the names of the DEHB engine's enums, and parsing them
 */
#include "dehb.h"

#include "dehb_impl.h"
#include "err.h"
#include "hb.h"
#include "trial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
static const char *const opt_names[] = {"dehb", "sh", "hyperband", "de", NULL};
const char *const dehb_mutation_names[] = {
	"rand1", "rand2", "best1", "currenttobest1", "randtobest1", NULL};
const char *const dehb_crossover_names[] = {"bin", "exp", NULL};
const char *const dehb_boundary_names[] = {"random", "clip", NULL};
#define mut_names   dehb_mutation_names
#define cx_names    dehb_crossover_names
#define bound_names dehb_boundary_names

static const char *name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "unknown";
}

static int parse_name(const char *const *names, int n, const char *s, int *v)
{
	int i;

	for (i = 0; s && i < n; i++) {
		if (!strcmp(s, names[i])) {
			*v = i;
			return DEHBQ_OK;
		}
	}
	return DEHBQ_EINVAL;
}

#define NAMES(a) a, (int)(sizeof(a) / sizeof(a[0])) - 1

const char *dehb_optimizer_name(enum dehb_optimizer o)
{
	return name_of(NAMES(opt_names), (int)o);
}

int dehb_optimizer_parse(const char *s, enum dehb_optimizer *o)
{
	int v, rc = parse_name(NAMES(opt_names), s, &v);

	if (rc == DEHBQ_OK)
		*o = (enum dehb_optimizer)v;
	return rc;
}

const char *dehb_mutation_name(enum dehb_mutation m)
{
	return name_of(NAMES(mut_names), (int)m);
}

int dehb_mutation_parse(const char *s, enum dehb_mutation *m)
{
	int v, rc = parse_name(NAMES(mut_names), s, &v);

	if (rc == DEHBQ_OK)
		*m = (enum dehb_mutation)v;
	return rc;
}

const char *dehb_crossover_name(enum dehb_crossover c)
{
	return name_of(NAMES(cx_names), (int)c);
}

int dehb_crossover_parse(const char *s, enum dehb_crossover *c)
{
	int v, rc = parse_name(NAMES(cx_names), s, &v);

	if (rc == DEHBQ_OK)
		*c = (enum dehb_crossover)v;
	return rc;
}

const char *dehb_boundary_name(enum dehb_boundary b)
{
	return name_of(NAMES(bound_names), (int)b);
}

int dehb_boundary_parse(const char *s, enum dehb_boundary *b)
{
	int v, rc = parse_name(NAMES(bound_names), s, &v);

	if (rc == DEHBQ_OK)
		*b = (enum dehb_boundary)v;
	return rc;
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
