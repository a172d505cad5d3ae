/*
 * searcher.c - owns the table of searchers (searcher.h): the one list of
 * them, the lists computed from it for messages and help, and what
 * several searchers share (settings, the model's fidelity)
 */
#include "searcher.h"

#include "err.h"
#include "jsonbuf.h"

#include <cjson/cJSON.h>
#include <math.h>

#include <stdio.h>
#include <string.h>

extern const struct search_ops search_random_ops, search_halton_ops,
	search_tpe_ops, search_gp_ops, search_gcp_ops, search_kde_ops,
	search_cts_ops, search_re_ops, search_de_ops, search_dngo_ops;

const struct search_ops *const search_table[] = {
	&search_random_ops,
	&search_halton_ops,
	&search_tpe_ops,
	&search_gp_ops,
	&search_gcp_ops,
	&search_kde_ops,
	&search_cts_ops,
	&search_re_ops,
	&search_de_ops,
	&search_dngo_ops,
	NULL,
};

const struct search_ops *search_find(const char *name)
{
	int i;

	for (i = 0; name && search_table[i]; i++)
		if (!strcmp(search_table[i]->name, name))
			return search_table[i];
	return NULL;
}

const struct search_ops *search_named(const cJSON *settings)
{
	const struct search_ops *so = search_find(cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(settings, "searcher")));

	return so ? so : search_table[0];
}

int search_list(unsigned caps, const char *sep, char *buf, size_t size)
{
	size_t len = 0;
	int i, n;

	if (!size)
		return DEHBQ_ETOOBIG;
	buf[0] = 0;
	for (i = 0; search_table[i]; i++) {
		if ((search_table[i]->caps & caps) != caps)
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? sep : "",
			     search_table[i]->name);
		if (n < 0 || (size_t)n >= size - len)
			return DEHBQ_ETOOBIG;
		len += (size_t)n;
	}
	return DEHBQ_OK;
}

int search_settings(const struct search_ops *so, const cJSON *in,
		    struct jsonbuf *out, char *err)
{
	if (in && !cJSON_IsObject(in))
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.search: must be an object");
	if (so->settings)
		return so->settings(in, out, err);
	if (in && in->child)
		return dehbq_errf(err, DEHBQ_EINVAL,
				  "optimizer.search.%.60s: the %s searcher "
				  "has no settings; remove it",
				  in->child->string, so->name);
	return DEHBQ_OK;
}

int search_multiobjective(const struct search_ops *so)
{
	return !(so->caps & SEARCH_CAP_LEARNS) || so->rescore;
}

double search_model_level(const double *fid, const double *loss, size_t n,
			  double at, size_t need)
{
	double f = INFINITY, next;
	size_t i, cnt, fin;

	for (;;) { /* each fidelity above at, from the top down */
		next = at;
		for (i = 0; i < n; i++)
			if (fid[i] > next && fid[i] < f)
				next = fid[i];
		if (next == at)
			return at;
		f = next;
		for (i = cnt = fin = 0; i < n; i++)
			if (fid[i] == f) {
				cnt++;
				fin += isfinite(loss[i]) != 0;
			}
		if (cnt >= need && fin >= 2)
			return f;
	}
}
