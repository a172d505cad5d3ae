/*
 * trial.c - parse, validate and render trial files
 *
 * Invariant: trial_parse() accepts only files that trial_render() could
 * have produced for this study's space.
 */
#include "trial.h"

#include "err.h"
#include "jsonbuf.h"
#include "jsonfile.h"
#include "space.h"
#include "timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The one list of kind names: trial files, snapshots and exports. */
static const char *const kind_names[] = {"trial", "promotion", "random",
					 "prior", NULL};

const char *trial_kind_name(enum trial_kind k)
{
	return (unsigned)k < TRIAL_KINDS ? kind_names[k] : "unknown";
}

int trial_kind_parse(const char *s, enum trial_kind *k)
{
	int i;

	for (i = 0; s && kind_names[i]; i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum trial_kind)i;
			return DEHBQ_OK;
		}
	return DEHBQ_EINVAL;
}

int trial_init(struct trial *t, int dim)
{
	memset(t, 0, sizeof(*t));
	t->parent = -1;
	t->attempt = 1;
	t->dim = dim;
	t->vec = calloc((size_t)(dim ? dim : 1), sizeof(*t->vec));
	t->config = calloc((size_t)(dim ? dim : 1), sizeof(*t->config));
	if (!t->vec || !t->config) {
		trial_release(t);
		return DEHBQ_ENOMEM;
	}
	return DEHBQ_OK;
}

void trial_release(struct trial *t)
{
	free(t->vec);
	free(t->config);
	t->vec = NULL;
	t->config = NULL;
}

static const char *const trial_keys[] = {
	"format",  "id",       "study",	 "epoch",     "bracket",
	"rung",	   "fidelity", "kind",	 "parent",    "attempt",
	"created", "seed",     "config", "vector",    "optimizer",
	"token",   "level",    "slot",	 "config_id", /* 0.3's, ignored */
	NULL,
};

static const cJSON *member(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int parse_fields(const struct jsonfile *jf, const struct space *sp,
			struct trial *t, char *err)
{
	const cJSON *root = jsonfile_root(jf), *vec = NULL, *cfg = NULL, *e;
	const char *s;
	int64_t v;
	int i, rc;

	if ((rc = jsonfile_check_format(jf, TRIAL_FORMAT, err)) ||
	    (rc = jsonfile_check_keys(jf, root, trial_keys, err)) ||
	    (rc = jsonfile_get_string(jf, root, "id", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (id_trial_parse(s, &t->id))
		return jsonfile_errf(jf, member(root, "id"), err,
				     "field 'id': expected 8 digits");
	if ((rc = jsonfile_get_string(jf, root, "study", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (!id_is_study(s))
		return jsonfile_errf(
			jf, member(root, "study"), err,
			"field 'study': expected a lowercase UUID");
	memcpy(t->study, s, ID_STUDY_LEN);
	if ((rc = jsonfile_get_int(jf, root, "epoch", JSONFILE_REQUIRED, 1,
				   INT32_MAX, &t->epoch, err)) ||
	    (rc = jsonfile_get_int(jf, root, "bracket", JSONFILE_REQUIRED, 0,
				   INT32_MAX, &t->bracket, err)) ||
	    (rc = jsonfile_get_int(jf, root, "rung", JSONFILE_REQUIRED, 0, 99,
				   &v, err)))
		return rc;
	t->rung = (int)v;
	if ((rc = jsonfile_get_number(jf, root, "fidelity", JSONFILE_REQUIRED,
				      1e-300, 1e300, &t->fidelity, err)) ||
	    (rc = jsonfile_get_string(jf, root, "kind", JSONFILE_REQUIRED, &s,
				      err)))
		return rc;
	if (trial_kind_parse(s, &t->kind))
		return jsonfile_errf(jf, member(root, "kind"), err,
				     "field 'kind': expected trial, promotion, "
				     "random or prior");
	e = member(root, "parent");
	if (e && !cJSON_IsNull(e)) {
		uint64_t p;

		if (!cJSON_IsString(e) || id_trial_parse(e->valuestring, &p))
			return jsonfile_errf(jf, e, err,
					     "field 'parent': expected null or "
					     "a trial id");
		t->parent = (int64_t)p;
	}
	if ((rc = jsonfile_get_int(jf, root, "attempt", JSONFILE_REQUIRED, 1,
				   1000000, &v, err)))
		return rc;
	t->attempt = (int)v;
	s = NULL;
	if ((rc = jsonfile_get_string(jf, root, "token", JSONFILE_OPTIONAL, &s,
				      err)))
		return rc;
	if (s && id_token_parse(s, &t->token))
		return jsonfile_errf(jf, member(root, "token"), err,
				     "field 'token': expected 16 lowercase "
				     "hex digits");
	if ((rc = jsonfile_get_string(jf, root, "created", JSONFILE_REQUIRED,
				      &s, err)))
		return rc;
	if (timeutil_parse_iso(s, &t->created))
		return jsonfile_errf(jf, member(root, "created"), err,
				     "field 'created': expected a UTC time");
	if ((rc = jsonfile_get_int(jf, root, "seed", JSONFILE_REQUIRED, 0,
				   INT64_C(9007199254740992), &v, err)))
		return rc;
	t->seed = (uint64_t)v;
	/* the optimiser's state, handed back to it by `dehbq requeue` */
	s = NULL;
	if ((rc = jsonfile_get_string(jf, root, "optimizer", JSONFILE_OPTIONAL,
				      &s, err)))
		return rc;
	if (s && strlen(s) >= sizeof(t->optimizer))
		return jsonfile_errf(jf, member(root, "optimizer"), err,
				     "field 'optimizer': longer than %zu "
				     "bytes",
				     sizeof(t->optimizer) - 1);
	snprintf(t->optimizer, sizeof(t->optimizer), "%s", s ? s : "");
	if ((rc = jsonfile_get_array(jf, root, "vector", JSONFILE_REQUIRED,
				     &vec, err)))
		return rc;
	if (cJSON_GetArraySize(vec) != t->dim)
		return jsonfile_errf(
			jf, vec, err,
			"field 'vector': %d entries, the space has "
			"%d parameters",
			cJSON_GetArraySize(vec), t->dim);
	i = 0;
	cJSON_ArrayForEach(e, vec)
	{
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) ||
		    e->valuedouble > 1)
			return jsonfile_errf(jf, e, err,
					     "field 'vector': entry %d must be "
					     "a number in [0, 1]",
					     i);
		t->vec[i++] = e->valuedouble;
	}
	if ((rc = jsonfile_get_object(jf, root, "config", JSONFILE_REQUIRED,
				      &cfg, err)))
		return rc;
	return space_config_from_json(jf, cfg, sp, t->config, err);
}

static int parse_jf(const struct jsonfile *jf, const struct space *sp,
		    struct trial *t, char *err)
{
	int rc;

	if ((rc = trial_init(t, space_dim(sp))))
		return dehbq_errf(err, rc, "%s: out of memory",
				  jsonfile_name(jf));
	rc = parse_fields(jf, sp, t, err);
	if (rc == DEHBQ_ENOENT)
		rc = DEHBQ_EINVAL;
	if (rc)
		trial_release(t);
	return rc;
}

int trial_parse(const char *name, const char *text, size_t len,
		const struct space *sp, struct trial *t, char *err)
{
	struct jsonfile *jf;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = jsonfile_parse(name, text, len, &jf, err)))
		return rc;
	rc = parse_jf(jf, sp, t, err);
	jsonfile_free(jf);
	return rc;
}

int trial_load(const char *path, const struct space *sp, struct trial *t,
	       char *err)
{
	struct jsonfile *jf;
	int rc;

	memset(t, 0, sizeof(*t));
	if ((rc = jsonfile_load(path, TRIAL_CAP, &jf, err)))
		return rc;
	rc = parse_jf(jf, sp, t, err);
	jsonfile_free(jf);
	return rc;
}

/*
 * The trial file is written as text, in cJSON_Print()'s layout (a tab per
 * level, "key":<tab>value, arrays as [a, b]); tests/check_trial.c checks
 * the bytes against cJSON's.  Numbers as jsonfile_number() writes them
 * (the shortest exact form), the vector exact (jsonfile_fmt_exact).  Keys
 * need no escaping: ours, and parameter names (space.h's character set).
 */
static void put_key(struct jsonbuf *b, const char *indent, const char *key)
{
	jsonbuf_puts(b, indent);
	jsonbuf_put(b, "\"", 1);
	jsonbuf_puts(b, key);
	jsonbuf_put(b, "\":\t", 3);
}

static void put_num(struct jsonbuf *b, const char *key, double d)
{
	char t[40];

	put_key(b, ",\n\t", key);
	jsonfile_fmt_double(t, sizeof(t), d);
	jsonbuf_puts(b, t);
}

static void put_str(struct jsonbuf *b, const char *key, const char *s)
{
	put_key(b, ",\n\t", key);
	jsonbuf_str(b, s);
}

static void put_null(struct jsonbuf *b, const char *key)
{
	put_key(b, ",\n\t", key);
	jsonbuf_puts(b, "null");
}

static void put_value(struct jsonbuf *b, const struct space_value *v)
{
	char t[40];

	switch (v->type) {
	case SPACE_V_FLOAT:
	case SPACE_V_INT:
		jsonfile_fmt_double(t, sizeof(t),
				    v->type == SPACE_V_FLOAT ? v->f
							     : (double)v->i);
		jsonbuf_puts(b, t);
		break;
	case SPACE_V_STRING:
		jsonbuf_str(b, v->s);
		break;
	case SPACE_V_BOOL:
		jsonbuf_puts(b, v->b ? "true" : "false");
		break;
	case SPACE_V_INACTIVE:
		break;
	}
}

int trial_render(const struct trial *t, const struct space *sp, char **out)
{
	char id[ID_TRIAL_LEN], parent[ID_TRIAL_LEN], created[TIMEUTIL_ISO_LEN];
	char x[40];
	struct jsonbuf b;
	int i, k, dim = space_dim(sp);

	*out = NULL;
	if (id_trial_format(t->id, id) || !isfinite(t->fidelity) ||
	    dim != t->dim)
		return DEHBQ_EINVAL;
	for (i = 0; i < dim; i++) /* JSON has no inf or nan */
		if (!isfinite(t->vec[i]) ||
		    (t->config[i].type == SPACE_V_FLOAT &&
		     !isfinite(t->config[i].f)))
			return DEHBQ_EINVAL;
	timeutil_iso(t->created, created);
	jsonbuf_init(&b);
	put_key(&b, "{\n\t", "format");
	jsonbuf_str(&b, TRIAL_FORMAT);
	put_str(&b, "id", id);
	put_str(&b, "study", t->study);
	put_num(&b, "epoch", (double)t->epoch);
	put_num(&b, "bracket", (double)t->bracket);
	put_num(&b, "rung", t->rung);
	put_num(&b, "fidelity", t->fidelity);
	put_str(&b, "kind", trial_kind_name(t->kind));
	if (t->parent >= 0 && !id_trial_format((uint64_t)t->parent, parent))
		put_str(&b, "parent", parent);
	else
		put_null(&b, "parent");
	put_num(&b, "attempt", t->attempt);
	if (t->token) {
		char tok[ID_TOKEN_LEN];

		id_token_format(t->token, tok);
		put_str(&b, "token", tok);
	}
	put_str(&b, "created", created);
	put_num(&b, "seed", (double)t->seed);
	if (t->optimizer[0])
		put_str(&b, "optimizer", t->optimizer);
	put_key(&b, ",\n\t", "config");
	jsonbuf_put(&b, "{", 1);
	for (i = 0, k = 0; i < dim; i++) {
		if (t->config[i].type == SPACE_V_INACTIVE)
			continue; /* left out: its condition does not hold */
		put_key(&b, k++ ? ",\n\t\t" : "\n\t\t",
			space_param_name(sp, i));
		put_value(&b, &t->config[i]);
	}
	put_key(&b, "\n\t},\n\t", "vector");
	jsonbuf_put(&b, "[", 1);
	for (i = 0; i < dim; i++) {
		if (i)
			jsonbuf_put(&b, ", ", 2);
		jsonfile_fmt_exact(x, sizeof(x), t->vec[i]);
		jsonbuf_puts(&b, x);
	}
	jsonbuf_puts(&b, "]\n}\n");
	if (jsonbuf_failed(&b)) {
		jsonbuf_free(&b);
		return DEHBQ_ENOMEM;
	}
	*out = jsonbuf_take(&b);
	return *out ? DEHBQ_OK : DEHBQ_ENOMEM;
}
