/*
 * ostate.h - the codec of optimiser state in snapshots, shared by optim.c,
 * every scheduler and every searcher
 *
 * Writers append compact JSON to a jsonbuf: numbers exact (%.17g or the
 * plain integer, which strtod() maps back to the identical double), +inf
 * as null (JSON has no infinity; NaN is never stored).  Readers check type
 * and range and name the key in err ("snapshot: 'k' ...").
 *
 * Ownership: nothing is allocated; readers borrow from the cJSON tree.
 */
#ifndef DEHBQ_OSTATE_H
#define DEHBQ_OSTATE_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct jsonbuf;
struct rng;

void ostate_put_dbls(struct jsonbuf *b, const double *v, size_t n);
void ostate_put_i64s(struct jsonbuf *b, const int64_t *v, size_t n);
void ostate_put_rng(struct jsonbuf *b, const struct rng *r);

/* Item k of object o, or NULL with err set ("missing 'k'"). */
const struct cJSON *ostate_get(const struct cJSON *o, const char *k, char *err);
int ostate_get_obj(const struct cJSON *o, const char *k, const struct cJSON **v,
		   char *err);
/* Array k; len >= 0 requires exactly len entries. */
int ostate_get_arr(const struct cJSON *o, const char *k, int len,
		   const struct cJSON **v, char *err);
/* A finite number item into *out; 0 when v is none or not finite. */
int ostate_num(const struct cJSON *v, double *out);
/* An integer item in lo..hi into *out; 0 when it is not one. */
int ostate_int(const struct cJSON *v, int64_t lo, int64_t hi, int64_t *out);
int ostate_get_dbl(const struct cJSON *o, const char *k, double *out,
		   char *err);
int ostate_get_i64(const struct cJSON *o, const char *k, int64_t lo, int64_t hi,
		   int64_t *out, char *err);
int ostate_get_int(const struct cJSON *o, const char *k, int lo, int hi,
		   int *out, char *err);
int ostate_get_str(const struct cJSON *o, const char *k, const char **out,
		   char *err);
int ostate_get_rng(const struct cJSON *o, const char *k, struct rng *r,
		   char *err);
/*
 * Array k of exactly n doubles into v.  inf_ok: null means +inf.  unit:
 * values must lie in [0, 1].
 */
int ostate_get_dbls(const struct cJSON *o, const char *k, size_t n, double *v,
		    int inf_ok, int unit, char *err);
int ostate_get_i64s(const struct cJSON *o, const char *k, size_t n, int64_t *v,
		    int64_t lo, int64_t hi, char *err);

/*
 * Readers of an optimiser's settings object (optim_ops.settings); in may
 * be NULL (every default).  Messages read "optimizer.KEY: ...".
 */
/* DEHBQ_EINVAL naming the first key of in that is not in keys[]. */
int ostate_set_keys(const struct cJSON *in, const char *const keys[],
		    const char *optimizer, char *err);
/* A string among names[] (NULL-terminated); *idx keeps its default. */
int ostate_set_choice(const struct cJSON *in, const char *k,
		      const char *const names[], int *idx, char *err);
/* A number in [lo, hi]; *v keeps its default. */
int ostate_set_num(const struct cJSON *in, const char *k, double lo, double hi,
		   double *v, char *err);
/* An integer in [lo, hi]; *v keeps its default. */
int ostate_set_int(const struct cJSON *in, const char *k, int lo, int hi,
		   int *v, char *err);
/* true or false, as 1 or 0; *v keeps its default. */
int ostate_set_bool(const struct cJSON *in, const char *k, int *v, char *err);

#endif
