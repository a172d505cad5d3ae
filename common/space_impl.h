/*
 * space_impl.h - the search space's insides, shared by space.c (the
 * parameters), space_parse.c, space_codec.c, space_cond.c (conditions)
 * and space_forb.c (forbidden clauses).  Private to common/.
 */
#ifndef DEHBQ_SPACE_IMPL_H
#define DEHBQ_SPACE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "space.h"

struct cJSON;
struct jsonfile;
struct space_cond;
struct space_forb;

struct space_param {
	char *name;		     /* owned, unique */
	enum space_type type;	     /* what kind of parameter */
	int log;		     /* float/int: log scale */
	double lo;		     /* float: low bound */
	double hi;		     /* float: high bound */
	int64_t ilo;		     /* int: low bound */
	int64_t ihi;		     /* int: high bound */
	double a;		     /* log scale: ln(low) */
	double b;		     /* log scale: ln(high) - ln(low), int:
					ln(high + 1) - ln(low) */
	int n;			     /* number of choices; 1 for constant */
	struct space_value *choices; /* owned [n]; strings owned */
	int *order;		     /* owned [n], choice indices sorted by
					value (NULL for a constant) */
	int has_def;		     /* native "default" given */
	struct space_value def;	     /* default; strings borrowed from
					choices */
};

struct space {
	int dim;		  /* number of parameters */
	struct space_param *p;	  /* owned [dim], in file order */
	int *by_name;		  /* owned [dim], indices sorted by name */
	struct space_cond **cond; /* owned [dim]: each parameter's
				     condition, NULL: always active; the
				     array is NULL without conditions */
	int *topo;		  /* owned [dim]: parents before children */
	struct space_forb *forb;  /* owned [nforb]: forbidden clauses */
	int nforb;
};

/* JSON scalar -> value; strings are copied (space_value_release). */
int space_value_from_item(const struct cJSON *it, struct space_value *v);
void space_value_release(struct space_value *v);
/* Exact equality of two values of the same parameter. */
int space_value_eq(const struct space_value *x, const struct space_value *y);
/* v legal for p, converted to p's representation in *out (strings
 * borrowed from p); DEHBQ_EINVAL with a message otherwise. */
int space_check_value(const struct space_param *p, const struct space_value *v,
		      struct space_value *out, char *err);
struct cJSON *space_value_to_json(const struct space_value *v);
/* Total order for sorting values of one type (duplicates adjacent). */
int space_value_cmp(const struct space_value *x, const struct space_value *y);
/* 0 string, 1 number, 2 bool, -1 invalid: values compare within one. */
int space_value_class(const struct space_value *v);
/* Index of p's choice equal to v, -1 if none; O(log n). */
int space_find_choice(const struct space_param *p, const struct space_value *v);
/* Index of p's choice matching JSON scalar it (same JSON type), or -1. */
int space_find_choice_item(const struct space_param *p, const struct cJSON *it);
/* Describe a value for a message: "adam" in quotes, numbers bare. */
void space_value_describe(const struct space_value *v, char *buf, size_t size);

/* An entry of a uniqueness check: a value, or a name. */
struct space_sorted {
	const struct space_value *v; /* value compared */
	const char *name;	     /* or a name, when v is NULL */
	int idx;		     /* position in the input */
};
/*
 * Sort n entries; if two are equal set *first and *dup to the pair with the
 * smallest later index and return 1.  Entries sort by (value, index), so
 * a run of equal values starts with its earliest entry.
 */
int space_find_dup(struct space_sorted *s, int n, int *first, int *dup);

#define SPACE_MAX_NESTING 8 /* AND/OR depth of conditions and clauses */

/* space_cond.c */
/* The parameter named by member key of o: its index, or -1 (err says). */
int space_param_of(const struct jsonfile *jf, const struct cJSON *o,
		   const char *key, const struct space *sp, char *err);
/* A JSON value legal for p, as p's own value (strings borrowed). */
int space_item_value(const struct jsonfile *jf, const struct cJSON *it,
		     const struct space_param *p, struct space_value *out,
		     char *err);
/* Parse a "conditions" array into sp (its parameters parsed). */
int space_cond_parse(const struct jsonfile *jf, const struct cJSON *arr,
		     struct space *sp, char *err);
void space_cond_free(struct space *sp);
/* The conditions as a JSON array (ConfigSpace's shape); NULL on ENOMEM.
 * Only called when sp->cond is set. */
struct cJSON *space_cond_to_json(const struct space *sp);
/* space_forb.c: the same for a "forbiddens" array. */
int space_forb_parse(const struct jsonfile *jf, const struct cJSON *arr,
		     struct space *sp, char *err);
void space_forb_free(struct space *sp);
struct cJSON *space_forb_to_json(const struct space *sp);

#endif
