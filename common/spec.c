/*
 * spec.c - parse, validate and render the study spec
 *
 * Invariant: a struct spec that spec_parse() returned passes spec_check(),
 * and rendering then parsing it gives the same values (doubles print with
 * cJSON's round-trip %.17g).
 */
#include "spec.h"

#include "err.h"
#include "fsutil.h"
#include "hb.h"
#include "jsonfile.h"
#include "space.h"
#include "study.h"
#include "timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spec_defaults(struct spec *s)
{
	memset(s, 0, sizeof(*s));
	s->eta = 3;
	snprintf(s->optimizer, sizeof(s->optimizer), "dehb");
	s->lease = 60;
	s->poll = 1;
	s->batch_interval = SPEC_BATCH_INTERVAL;
	s->stop_grace = SPEC_STOP_GRACE;
	s->max_attempts = 3;
	s->max_failures_in_a_row = 20;
	s->prefetch = 1;
	s->drain = 1;
	objectives_defaults(&s->obj);
}

void spec_release(struct spec *s)
{
	space_free(s->space);
	s->space = NULL;
	cJSON_Delete(s->settings);
	s->settings = NULL;
}

int spec_set_settings(struct spec *s, const cJSON *obj)
{
	cJSON *c = NULL;

	if (obj && cJSON_GetArraySize(obj) > 0 &&
	    !(c = cJSON_Duplicate(obj, 1)))
		return DEHBQ_ENOMEM;
	cJSON_Delete(s->settings);
	s->settings = c;
	return DEHBQ_OK;
}

static int get_intf(const struct jsonfile *jf, const cJSON *obj,
		    const char *key, int64_t min, int64_t max, int *dst,
		    char *err)
{
	int64_t v = *dst;
	int rc = jsonfile_get_int(jf, obj, key, JSONFILE_OPTIONAL, min, max, &v,
				  err);

	if (!rc)
		*dst = (int)v;
	return rc;
}

#define PATH_HINT                                                              \
	"give the path of a regular JSON file relative to the spec, or embed " \
	"the space object"

/*
 * Read the space file at path, named by item sp of jf.  Every error about
 * the path itself (empty, missing, unreadable, not a regular file, a
 * symbolic link, too big) is reported at the spec's field 'space' with
 * what to do; errors in the file's content point into the space file.
 */
static int load_space_file(const struct jsonfile *jf, const cJSON *sp,
			   const char *path, struct spec *s, char *err)
{
	struct jsonfile *sjf = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = fsutil_read_file(path, SPACE_FILE_CAP, &text, &len);
	if (rc == DEHBQ_ENOMEM)
		return dehbq_errf(err, rc, "%s: out of memory",
				  jsonfile_name(jf));
	if (rc == DEHBQ_ETOOBIG) {
		jsonfile_errf(jf, sp, err,
			      "field 'space': '%s' is larger than %u bytes, "
			      "the limit for a space file; check the path",
			      path, SPACE_FILE_CAP);
		return rc;
	}
	if (rc == DEHBQ_EINVAL)
		return jsonfile_errf(jf, sp, err,
				     "field 'space': '%s' is not a regular "
				     "file; " PATH_HINT,
				     path);
	if (rc == DEHBQ_ESYS && errno == ELOOP)
		return jsonfile_errf(jf, sp, err,
				     "field 'space': '%s' is a symbolic link "
				     "(refused); give the path of the file it "
				     "points to, relative to the spec",
				     path);
	if (rc)
		return jsonfile_errf(
			jf, sp, err,
			"field 'space': cannot read '%s': %s; " PATH_HINT, path,
			strerror(errno));
	rc = jsonfile_parse(path, text, len, &sjf, err);
	free(text);
	if (!rc)
		rc = space_from_json(sjf, jsonfile_root(sjf), &s->space, err);
	jsonfile_free(sjf);
	return rc;
}

static int parse_space(const struct jsonfile *jf, const cJSON *root,
		       int allow_path, struct spec *s, char *err)
{
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(root, "space");
	char dir[STUDY_PATH_BUF], path[STUDY_PATH_BUF];

	if (!sp)
		return jsonfile_errf(jf, root, err,
				     "missing required field 'space' (an "
				     "object, or a path to a space file)");
	if (cJSON_IsString(sp)) {
		if (!allow_path)
			return jsonfile_errf(jf, sp, err,
					     "field 'space': must be embedded "
					     "here, not a path");
		if (!sp->valuestring[0])
			return jsonfile_errf(
				jf, sp, err,
				"field 'space': empty path; " PATH_HINT);
		if (sp->valuestring[0] == '/') {
			if (fsutil_pathf(path, sizeof(path), "%s",
					 sp->valuestring))
				return jsonfile_errf(
					jf, sp, err,
					"field 'space': path too long (at most "
					"%d bytes)",
					STUDY_PATH_BUF - 1);
		} else if (fsutil_dirname(jsonfile_name(jf), dir,
					  sizeof(dir)) ||
			   fsutil_pathf(path, sizeof(path), "%s/%s", dir,
					sp->valuestring)) {
			return jsonfile_errf(jf, sp, err,
					     "field 'space': path too long "
					     "(at most %d bytes)",
					     STUDY_PATH_BUF - 1);
		}
		return load_space_file(jf, sp, path, s, err);
	}
	if (!cJSON_IsObject(sp))
		return jsonfile_errf(jf, sp, err,
				     "field 'space': expected an object or a "
				     "path, found %s",
				     jsonfile_type_name(sp));
	return space_from_json(jf, sp, &s->space, err);
}

static const char *const root_keys[] = {
	"format",     "study",		"name", "created",     "space",
	"fidelity",   "optimizer",	"seed", "termination", "runtime",
	"objectives", "multiobjective", NULL,
};
static const char *const fid_keys[] = {"min", "max", "eta", NULL};
/*
 * "optimizer": {"name": N, ...}.  The name is checked for form only (the
 * optimiser list lives in optim/); the other members are kept unread.
 */
static int get_optimizer(const struct jsonfile *jf, const cJSON *o,
			 struct spec *s, char *err)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, "name");
	cJSON *rest;
	size_t i;

	if (n) {
		if (!cJSON_IsString(n) || !n->valuestring[0] ||
		    strlen(n->valuestring) >= sizeof(s->optimizer) ||
		    strspn(n->valuestring,
			   "abcdefghijklmnopqrstuvwxyz"
			   "0123456789_-") != strlen(n->valuestring))
			return jsonfile_errf(jf, n, err,
					     "field 'optimizer.name': expected "
					     "an optimizer name such as "
					     "\"dehb\"");
		for (i = 0; n->valuestring[i]; i++)
			s->optimizer[i] = n->valuestring[i];
		s->optimizer[i] = 0;
	}
	if (!(rest = cJSON_Duplicate(o, 1)))
		return DEHBQ_ENOMEM;
	cJSON_DeleteItemFromObjectCaseSensitive(rest, "name");
	cJSON_Delete(s->settings);
	s->settings = NULL;
	if (cJSON_GetArraySize(rest) > 0)
		s->settings = rest;
	else
		cJSON_Delete(rest);
	return DEHBQ_OK;
}

static const char *const term_keys[] = {"fevals", "brackets", "walltime",
					"total_cost", NULL};
static const char *const run_keys[] = {
	"lease",	  "poll",
	"batch_interval", "max_attempts",
	"prefetch",	  "max_inflight",
	"drain",	  "max_failures_in_a_row",
	"stop_grace",	  NULL};

static int parse_fields(const struct jsonfile *jf, int allow_path,
			struct spec *s, char *err)
{
	const cJSON *root = jsonfile_root(jf), *o = NULL, *it;
	const char *str = NULL;
	int64_t v;
	int rc;

	if ((rc = jsonfile_check_format(jf, SPEC_FORMAT, err)) ||
	    (rc = jsonfile_check_keys(jf, root, root_keys, err)))
		return rc;
	if ((rc = jsonfile_get_string(jf, root, "study", JSONFILE_OPTIONAL,
				      &str, err)))
		return rc;
	if (str) {
		if (!id_is_study(str))
			return jsonfile_errf(
				jf,
				cJSON_GetObjectItemCaseSensitive(root, "study"),
				err,
				"field 'study': expected a "
				"lowercase UUID");
		memcpy(s->study, str, ID_STUDY_LEN);
	}
	str = NULL;
	if ((rc = jsonfile_get_string(jf, root, "name", JSONFILE_OPTIONAL, &str,
				      err)))
		return rc;
	if (str) {
		if (strlen(str) >= sizeof(s->name))
			return jsonfile_errf(
				jf,
				cJSON_GetObjectItemCaseSensitive(root, "name"),
				err,
				"field 'name': longer than "
				"127 bytes");
		memcpy(s->name, str, strlen(str) + 1);
	}
	str = NULL;
	if ((rc = jsonfile_get_string(jf, root, "created", JSONFILE_OPTIONAL,
				      &str, err)))
		return rc;
	if (str && timeutil_parse_iso(str, &s->created))
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(root, "created"),
			err,
			"field 'created': expected a UTC "
			"time like 2026-01-31T12:00:00.000Z");

	/* fidelity: none is a study of one fidelity, 1; min = max is one of
	 * that fidelity */
	o = NULL;
	s->min_fidelity = s->max_fidelity = 1;
	if ((rc = jsonfile_get_object(jf, root, "fidelity", JSONFILE_OPTIONAL,
				      &o, err)) ||
	    (o &&
	     ((rc = jsonfile_check_keys(jf, o, fid_keys, err)) ||
	      (rc = jsonfile_get_number(jf, o, "min", JSONFILE_REQUIRED, 1e-300,
					1e300, &s->min_fidelity, err)) ||
	      (rc = jsonfile_get_number(jf, o, "max", JSONFILE_REQUIRED, 1e-300,
					1e300, &s->max_fidelity, err)) ||
	      (rc = jsonfile_get_number(jf, o, "eta", JSONFILE_OPTIONAL,
					SPEC_ETA_MIN, SPEC_ETA_MAX, &s->eta,
					err)))))
		return rc == DEHBQ_ENOENT ? DEHBQ_EINVAL : rc;
	if (s->min_fidelity > s->max_fidelity)
		return jsonfile_errf(
			jf, cJSON_GetObjectItemCaseSensitive(o, "max"), err,
			"fidelity: 'min' (%g) must be <= 'max' (%g) (equal: a "
			"study of one fidelity)",
			s->min_fidelity, s->max_fidelity);

	if ((rc = objectives_parse(jf, root, &s->obj, err)))
		return rc;

	/* optimizer */
	o = NULL;
	if ((rc = jsonfile_get_object(jf, root, "optimizer", JSONFILE_OPTIONAL,
				      &o, err)))
		return rc;
	s->optimizer_named = o != NULL;
	if (o && (rc = get_optimizer(jf, o, s, err)))
		return rc;

	v = (int64_t)s->seed;
	if ((rc = jsonfile_get_int(jf, root, "seed", JSONFILE_OPTIONAL, 0,
				   INT64_C(9007199254740992), &v, err)))
		return rc;
	s->seed = (uint64_t)v;

	o = NULL;
	if ((rc = jsonfile_get_object(jf, root, "termination",
				      JSONFILE_OPTIONAL, &o, err)))
		return rc; /* absent: no limit (spec_check_limits) */
	if (o &&
	    ((rc = jsonfile_check_keys(jf, o, term_keys, err)) ||
	     (rc = jsonfile_get_int(jf, o, "fevals", JSONFILE_OPTIONAL, 0,
				    (int64_t)ID_TRIAL_MAX, &s->fevals, err)) ||
	     (rc = jsonfile_get_int(jf, o, "brackets", JSONFILE_OPTIONAL, 0,
				    SPEC_BRACKETS_MAX, &s->brackets, err)) ||
	     (rc = jsonfile_get_number(jf, o, "walltime", JSONFILE_OPTIONAL, 0,
				       SPEC_WALLTIME_MAX, &s->walltime, err)) ||
	     (rc = jsonfile_get_number(jf, o, "total_cost", JSONFILE_OPTIONAL,
				       0, 1e300, &s->total_cost, err))))
		return rc;

	o = NULL;
	if ((rc = jsonfile_get_object(jf, root, "runtime", JSONFILE_OPTIONAL,
				      &o, err)))
		return rc;
	if (o &&
	    ((rc = jsonfile_check_keys(jf, o, run_keys, err)) ||
	     (rc = jsonfile_get_number(jf, o, "lease", JSONFILE_OPTIONAL,
				       SPEC_LEASE_MIN, SPEC_LEASE_MAX,
				       &s->lease, err)) ||
	     (rc = jsonfile_get_number(jf, o, "poll", JSONFILE_OPTIONAL,
				       SPEC_POLL_MIN, SPEC_POLL_MAX, &s->poll,
				       err)) ||
	     (rc = jsonfile_get_number(jf, o, "batch_interval",
				       JSONFILE_OPTIONAL, 0, 10,
				       &s->batch_interval, err)) ||
	     (rc = jsonfile_get_number(jf, o, "stop_grace", JSONFILE_OPTIONAL,
				       0, 86400, &s->stop_grace, err)) ||
	     (rc = get_intf(jf, o, "max_attempts", 1, SPEC_ATTEMPTS_MAX,
			    &s->max_attempts, err)) ||
	     (rc = get_intf(jf, o, "max_failures_in_a_row", 0,
			    SPEC_FAILURES_MAX, &s->max_failures_in_a_row,
			    err)) ||
	     (rc = get_intf(jf, o, "prefetch", 0, 100000, &s->prefetch, err)) ||
	     (rc = get_intf(jf, o, "max_inflight", 0, 1000000, &s->max_inflight,
			    err)) ||
	     (rc = jsonfile_get_bool(jf, o, "drain", JSONFILE_OPTIONAL,
				     &s->drain, err))))
		return rc;
	s->prefetch_given =
		o && cJSON_GetObjectItemCaseSensitive(o, "prefetch") != NULL;
	if (o && (it = cJSON_GetObjectItemCaseSensitive(o, "poll")) &&
	    s->poll * 2 > s->lease)
		return jsonfile_errf(jf, it, err,
				     "runtime: 'poll' (%g s) must be at most "
				     "half of 'lease' (%g s)",
				     s->poll, s->lease);
	if ((rc = parse_space(jf, root, allow_path, s, err)))
		return rc;
	return spec_check(s, jsonfile_name(jf), err);
}

/* "%s: SECTION: 'FIELD' (V) must be within [LO, HI]" unless it is. */
static int check_range(const char *name, const char *field, double v, double lo,
		       double hi, char *err)
{
	if (v >= lo && v <= hi)
		return DEHBQ_OK;
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "%s: %s (%g) must be within [%g, %g]", name, field, v,
			  lo, hi);
}

_Static_assert(SPEC_MAX_LEVELS == HB_MAX_LEVELS,
	       "the spec allows the levels the optimisers support");

int spec_levels(const struct spec *s)
{
	int levels;

	/* the optimisers' own count (hb.h); too many: one more than allowed */
	switch (hb_levels(s->min_fidelity, s->max_fidelity, s->eta, &levels)) {
	case DEHBQ_OK:
		return levels;
	case DEHBQ_ETOOBIG:
		return SPEC_MAX_LEVELS + 1;
	default:
		return 1;
	}
}

/* Objectives become export columns: no clash with a parameter or a
 * fixed column. */
static int check_objective_names(const struct spec *s, const char *name,
				 char *err)
{
	static const char *const fixed[] = {
		"id",	      "bracket", "rung",    "fidelity", "kind",
		"loss",	      "pareto",	 "cost",    "status",	"attempt",
		"worker",     "host",	 "started", "finished", "wall_time",
		"max_rss_kb", "config",	 NULL};
	int l, i;

	for (l = 0; l < s->obj.n; l++) {
		for (i = 0; fixed[i]; i++)
			if (!strcmp(s->obj.name[l], fixed[i]))
				return dehbq_errf(
					err, DEHBQ_EINVAL,
					"%s: objective '%s': the name "
					"of a column dehbq export "
					"writes; rename it",
					name, fixed[i]);
		for (i = 0; i < space_dim(s->space); i++)
			if (!strcmp(s->obj.name[l],
				    space_param_name(s->space, i)))
				return dehbq_errf(err, DEHBQ_EINVAL,
						  "%s: objective '%s' has the "
						  "name of a parameter; rename "
						  "it",
						  name, s->obj.name[l]);
	}
	return DEHBQ_OK;
}

int spec_check_limits(const struct spec *s, int ends_itself, const char *name,
		      char *err)
{
	if (ends_itself || s->fevals || s->brackets || s->walltime ||
	    s->total_cost)
		return DEHBQ_OK;
	return dehbq_errf(err, DEHBQ_EINVAL,
			  "%s: termination: set at least one of 'fevals', "
			  "'brackets', 'walltime', 'total_cost' (optimizer "
			  "'%s' does not end by itself)",
			  name, s->optimizer);
}

/*
 * The ranges the file parser checks field by field, again, for a spec
 * built from options (dehbq init), and the rules that join fields.
 */
int spec_check(const struct spec *s, const char *name, char *err)
{
	char msg[DEHBQ_ERRLEN];
	int levels, rc;

	if ((rc = check_range(name, "fidelity: 'eta'", s->eta, SPEC_ETA_MIN,
			      SPEC_ETA_MAX, err)) ||
	    (rc = check_range(name, "fidelity: 'max'", s->max_fidelity, 0,
			      1e300, err)) ||
	    (rc = check_range(name, "termination: 'brackets'",
			      (double)s->brackets, 0, SPEC_BRACKETS_MAX,
			      err)) ||
	    (rc = check_range(name, "termination: 'walltime'", s->walltime, 0,
			      SPEC_WALLTIME_MAX, err)) ||
	    (rc = check_range(name, "termination: 'total_cost'", s->total_cost,
			      0, 1e300, err)) ||
	    (rc = check_range(name, "runtime: 'lease'", s->lease,
			      SPEC_LEASE_MIN, SPEC_LEASE_MAX, err)) ||
	    (rc = check_range(name, "runtime: 'poll'", s->poll, SPEC_POLL_MIN,
			      SPEC_POLL_MAX, err)) ||
	    (rc = check_range(name, "runtime: 'max_attempts'", s->max_attempts,
			      1, SPEC_ATTEMPTS_MAX, err)) ||
	    (rc = check_range(name, "runtime: 'max_failures_in_a_row'",
			      s->max_failures_in_a_row, 0, SPEC_FAILURES_MAX,
			      err)))
		return rc;
	if (!(s->min_fidelity >= 1e-300) || s->max_fidelity < s->min_fidelity)
		return dehbq_errf(
			err, DEHBQ_EINVAL,
			"%s: fidelity: 'min' (%g) must be >= 1e-300 and <= "
			"'max' (%g) (equal: a study of one fidelity)",
			name, s->min_fidelity, s->max_fidelity);
	/* the rung is part of pending file names */
	levels = spec_levels(s);
	if (levels > SPEC_MAX_LEVELS)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: fidelity: max/min = %g gives more than "
				  "%d levels with eta %g; raise 'eta' or 'min'",
				  name, s->max_fidelity / s->min_fidelity,
				  SPEC_MAX_LEVELS, s->eta);
	if (objectives_check(&s->obj, msg))
		return dehbq_errf(err, DEHBQ_EINVAL, "%s: %s", name, msg);
	if (s->poll * 2 > s->lease)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: runtime: 'poll' (%g s) must be at most "
				  "half of 'lease' (%g s)",
				  name, s->poll, s->lease);
	if (!s->space)
		return dehbq_errf(err, DEHBQ_EINVAL, "%s: no search space",
				  name);
	return check_objective_names(s, name, err);
}

/* Parse a loaded document (freed here); a missing field is invalid. */
static int parse_doc(struct jsonfile *jf, int allow_space_path, struct spec *s,
		     char *err)
{
	int rc = parse_fields(jf, allow_space_path, s, err);

	jsonfile_free(jf);
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (rc)
		spec_release(s);
	return rc;
}

int spec_parse(const char *name, const char *text, size_t len,
	       int allow_space_path, struct spec *s, char *err)
{
	struct jsonfile *jf;
	int rc;

	spec_defaults(s);
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		return rc;
	return parse_doc(jf, allow_space_path, s, err);
}

int spec_load(const char *path, int allow_space_path, struct spec *s, char *err)
{
	struct jsonfile *jf;
	int rc;

	spec_defaults(s);
	if ((rc = jsonfile_load(path, SPEC_CAP, &jf, err)))
		return rc;
	return parse_doc(jf, allow_space_path, s, err);
}

int spec_load_study(const char *root, struct spec *s, char *err)
{
	char path[STUDY_PATH_BUF];
	int rc;

	if (fsutil_pathf(path, sizeof(path), "%s/study.json", root))
		return dehbq_errf(err, DEHBQ_ETOOBIG, "%s: path too long",
				  root);
	if ((rc = spec_load(path, 0, s, err)))
		return rc;
	if (!s->study[0]) {
		spec_release(s);
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "%s: missing field 'study' (was this file "
				  "written by dehbq init?)",
				  path);
	}
	return DEHBQ_OK;
}

int spec_render(const struct spec *s, char **out)
{
	char created[TIMEUTIL_ISO_LEN];
	cJSON *o = cJSON_CreateObject(), *f, *opt, *t, *r, *sp;
	int bad = !o;

	*out = NULL;
	if (!o)
		return DEHBQ_ENOMEM;
	timeutil_iso(s->created, created);
	bad |= !cJSON_AddStringToObject(o, "format", SPEC_FORMAT);
	if (s->study[0])
		bad |= !cJSON_AddStringToObject(o, "study", s->study);
	if (s->name[0])
		bad |= !cJSON_AddStringToObject(o, "name", s->name);
	if (s->created > 0)
		bad |= !cJSON_AddStringToObject(o, "created", created);
	bad |= !(f = cJSON_AddObjectToObject(o, "fidelity"));
	if (!bad)
		bad |= jsonfile_add_number(f, "min", s->min_fidelity) |
		       jsonfile_add_number(f, "max", s->max_fidelity) |
		       jsonfile_add_number(f, "eta", s->eta);
	bad |= !(opt = cJSON_AddObjectToObject(o, "optimizer"));
	if (!bad)
		bad |= !cJSON_AddStringToObject(opt, "name", s->optimizer);
	if (!bad && s->settings) {
		const cJSON *it;

		cJSON_ArrayForEach(it, s->settings)
		{
			cJSON *c = cJSON_Duplicate(it, 1);

			if (!c || !cJSON_AddItemToObject(opt, it->string, c)) {
				cJSON_Delete(c);
				bad = 1;
				break;
			}
		}
	}
	bad |= !cJSON_AddNumberToObject(o, "seed", (double)s->seed);
	bad |= !(t = cJSON_AddObjectToObject(o, "termination"));
	if (!bad)
		bad |= !cJSON_AddNumberToObject(t, "fevals",
						(double)s->fevals) |
		       !cJSON_AddNumberToObject(t, "brackets",
						(double)s->brackets) |
		       jsonfile_add_number(t, "walltime", s->walltime) |
		       jsonfile_add_number(t, "total_cost", s->total_cost);
	bad |= !(r = cJSON_AddObjectToObject(o, "runtime"));
	if (!bad)
		bad |= jsonfile_add_number(r, "lease", s->lease) |
		       jsonfile_add_number(r, "poll", s->poll) |
		       jsonfile_add_number(r, "batch_interval",
					   s->batch_interval) |
		       jsonfile_add_number(r, "stop_grace", s->stop_grace) |
		       !cJSON_AddNumberToObject(r, "max_attempts",
						s->max_attempts) |
		       !cJSON_AddNumberToObject(r, "max_failures_in_a_row",
						s->max_failures_in_a_row) |
		       !cJSON_AddNumberToObject(r, "prefetch", s->prefetch) |
		       !cJSON_AddNumberToObject(r, "max_inflight",
						s->max_inflight) |
		       !cJSON_AddBoolToObject(r, "drain", s->drain);
	if (!bad && objectives_render(&s->obj, o))
		bad = 1;
	sp = s->space ? space_to_json(s->space) : NULL;
	if (!sp || !cJSON_AddItemToObject(o, "space", sp)) {
		cJSON_Delete(sp);
		bad = 1;
	}
	return jsonfile_render(o, !bad, out);
}
