/*
 * space.h - search spaces: parse, validate, unit-cube encode/decode
 *
 * A search space is an ordered list of parameters.  Parameter i is
 * dimension i of the optimiser's vector in [0,1]^D; the order is the order
 * of the file and never changes for the life of a study.  See
 * docs/space.md for the file formats and the exact encoding.
 *
 * Calling sequence:
 *   struct space *sp;
 *   if (space_load("space.json", &sp, err)) ... report err ...
 *   d = space_dim(sp);
 *   space_decode(sp, vec, vals);            vec[d] in [0,1] -> vals[d]
 *   space_value_format(&vals[i], buf, n);   text for env vars and CSV
 *   space_encode(sp, vals, vec, err);       vals[d] -> vec[d]
 *   space_free(sp);
 * A study spec that embeds the space parses it with space_from_json() on
 * its own jsonfile, so messages point into the spec file.
 *
 * Two input formats are accepted, told apart by their keys: the native
 * {"format": "dehbq-space/1", "parameters": [...]} and the JSON written by
 * ConfigSpace 0.6 to 1.x ({"hyperparameters": [...], ...}).  Conditions,
 * forbidden clauses and normal/beta distributions are refused with
 * DEHBQ_EUNSUP.
 *
 * Error handling: functions return DEHBQ_OK or a code.  Parsers write one
 * line into err (DEHBQ_ERRLEN bytes) of the form
 *   space.json:12:9: parameter 'lr': 'low' (0.1) must be < 'high' (0.01)
 * Codes: DEHBQ_EINVAL (bad input), DEHBQ_EUNSUP (valid ConfigSpace feature
 * this version cannot handle), DEHBQ_ETOOBIG (more than SPACE_MAX_PARAMS
 * parameters or SPACE_MAX_CHOICES choices; file over 4 MiB),
 * DEHBQ_ENOMEM, DEHBQ_ESYS (space_load: reading failed, errno set).  A
 * failed call leaves its outputs untouched, except that *out is NULL.
 *
 * Ownership: the caller frees a space with space_free().  Names and
 * SPACE_V_STRING values (space_param_name, space_decode, ...) are borrowed
 * from the space and valid until space_free().  The space keeps no
 * pointer into the jsonfile it was parsed from.  cJSON objects returned by
 * space_to_json() and space_config_to_json() belong to the caller
 * (cJSON_Delete); their strings are copies.  Their numbers are cJSON_Raw
 * items holding the shortest text that reads back exactly (cJSON itself
 * prints only 15 digits when that is within an ulp), with valuedouble and
 * valueint also set: read them with ->valuedouble, not cJSON_IsNumber.  A space
 * is immutable after parsing, so several threads may decode and encode with one
 * space.
 */
#ifndef DEHBQ_SPACE_H
#define DEHBQ_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "jsonfile.h"

struct space; /* opaque; defined in space.c */

enum space_type {
	SPACE_FLOAT,	   /* real in [low, high], linear or log scale */
	SPACE_INT,	   /* integer in [low, high], linear or log scale */
	SPACE_CATEGORICAL, /* one of K unordered choices */
	SPACE_ORDINAL,	   /* one of K ordered values */
	SPACE_CONSTANT	   /* a single value; its vector entry is ignored */
};

enum space_vtype {
	SPACE_V_FLOAT,	 /* member f */
	SPACE_V_INT,	 /* member i */
	SPACE_V_STRING,	 /* member s */
	SPACE_V_BOOL,	 /* member b */
	SPACE_V_INACTIVE /* a conditional parameter whose condition does not
			    hold: no value; left out of configurations */
};

struct space_value {	       /* a decoded parameter value */
	enum space_vtype type; /* which member is valid */
	double f;	       /* SPACE_V_FLOAT */
	int64_t i;	       /* SPACE_V_INT */
	const char *s;	       /* SPACE_V_STRING, borrowed from the space */
	int b;		       /* SPACE_V_BOOL: 0 or 1 */
};

#define SPACE_MAX_PARAMS  4096		  /* parameters per space */
#define SPACE_MAX_CHOICES 10000		  /* choices of a categorical/ordinal */
#define SPACE_MAX_STRLEN  1024		  /* bytes of one string choice */
#define SPACE_FILE_CAP	  (4u << 20)	  /* space_load() size cap: 4 MiB */
#define SPACE_FORMAT	  "dehbq-space/1" /* native "format" value */
#define SPACE_ENV_PREFIX  "DEHBQ_P_"	  /* see space_env_name() */
/* space_env_name() buffer that holds any valid name's variable */
#define SPACE_ENV_LEN	  137

/*
 * Entry i of a unit-cube vector, v, moved to a neighbour in the
 * parameter's own units (PBT's explore): a float's value times factor,
 * clamped to its bounds (on a log scale that is a step of ln(factor)); an
 * int's value, and an ordinal's choice, one step up (factor > 1) or down,
 * clamped; a categorical's choice floor(u K), for u in [0, 1); a
 * constant's unchanged.  Returns the new entry as space_encode() encodes
 * the new value.  A float at 0 stays there.
 */
double space_move(const struct space *sp, int i, double v, double factor,
		  double u);

/*
 * Read a space file (native or ConfigSpace JSON, auto-detected) of at most
 * SPACE_FILE_CAP bytes.  *out is NULL on failure.
 */
int space_load(const char *path, struct space **out, char *err);

/*
 * Parse obj, an item of jf: a native space object (also when a study
 * spec embeds it) or a ConfigSpace object.  Messages are positioned in
 * jf.  *out is NULL on failure.
 */
int space_from_json(const struct jsonfile *jf, const cJSON *obj,
		    struct space **out, char *err);

void space_free(struct space *sp); /* NULL is fine */

int space_dim(const struct space *sp);
/* Parameter i (0 <= i < dim); NULL if i is out of range. */
const char *space_param_name(const struct space *sp, int i);
/* Type of parameter i; SPACE_CONSTANT if i is out of range. */
enum space_type space_param_type(const struct space *sp, int i);
/*
 * Choices of parameter i for an optimiser: K for a categorical or ordinal
 * of K choices (bin k is [k/K, (k+1)/K)), 0 for a float or an integer.
 */
int space_param_choices(const struct space *sp, int i);
/* Index of the parameter called name, -1 if there is none. */
int space_param_find(const struct space *sp, const char *name);

/*
 * The environment variable a trainer gets parameter name in: "DEHBQ_P_" +
 * name uppercased, every byte that is not [A-Za-z0-9] turned into '_'
 * (lr -> DEHBQ_P_LR, data.set-v2 -> DEHBQ_P_DATA_SET_V2).  The parsers
 * refuse a space in which two names give the same variable.  Writes the
 * NUL-terminated variable into buf (size bytes; SPACE_ENV_LEN fits every
 * valid name); DEHBQ_ETOOBIG, buf untouched, if it does not fit.
 */
int space_env_name(const char *name, char *buf, size_t size);

/*
 * 1 if a and b describe the same search (same parameters in the same
 * order, same types, bounds, scales and choices), else 0.  Defaults are
 * not compared: they do not change what is searched.
 */
int space_equal(const struct space *a, const struct space *b);

/*
 * vec[dim] -> vals[dim].  Entries are clamped to [0,1] (NaN counts as 0),
 * so any vector decodes to a legal configuration.  Always DEHBQ_OK.
 */
int space_decode(const struct space *sp, const double *vec,
		 struct space_value *vals);

/*
 * vals[dim] -> vec[dim], the exact inverse of space_decode on its
 * results: space_decode(space_encode(x)) == x (for int ranges of up to
 * about 2^52 values; docs/space.md gives the limits).  Values must be legal:
 * in range, one of the choices, equal to a constant; a float parameter
 * also takes SPACE_V_INT and an int parameter an integral SPACE_V_FLOAT.
 * DEHBQ_EINVAL (err names the parameter) otherwise, vec untouched.
 */
int space_encode(const struct space *sp, const struct space_value *vals,
		 double *vec, char *err);

/*
 * Conditions (docs/space.md): active[i] = 1 when parameter i's condition
 * holds for vals (its parents active, and their values satisfying it),
 * 0 otherwise; 1 for every unconditional parameter.  A parent whose value
 * in vals is SPACE_V_INACTIVE counts as inactive.  space_decode() already
 * marks inactive parameters SPACE_V_INACTIVE.
 */
void space_active(const struct space *sp, const struct space_value *vals,
		  unsigned char *active);
/* 1 when the space has conditions. */
int space_has_conditions(const struct space *sp);
/*
 * Forbidden clauses (docs/space.md): 1 when vals (decoded, inactive
 * parameters marked) is a configuration that must never run.
 */
int space_forbidden(const struct space *sp, const struct space_value *vals);
int space_has_forbidden(const struct space *sp);

/* Native "dehbq-space/1" object; NULL on ENOMEM. */
cJSON *space_to_json(const struct space *sp);

/* {"name": value, ...} in parameter order; NULL on ENOMEM. */
cJSON *space_config_to_json(const struct space *sp,
			    const struct space_value *vals);

/*
 * Parse a configuration object {"name": value, ...} of jf into vals[dim].
 * Strict: every parameter present, no others, JSON type matching the
 * parameter, value in range or one of the choices.  SPACE_V_STRING
 * values point into the space, not into jf.
 */
int space_config_from_json(const struct jsonfile *jf, const cJSON *obj,
			   const struct space *sp, struct space_value *vals,
			   char *err);

/*
 * Text of a value for environment variables and CSV: floats in the
 * shortest of %.15g/%.16g/%.17g that reads back exactly, ints as %lld, strings
 * raw, bools true/false.  DEHBQ_ETOOBIG if it does not fit in size bytes
 * (with the NUL), DEHBQ_EINVAL for a bad type.
 */
int space_value_format(const struct space_value *v, char *buf, size_t size);

#endif
