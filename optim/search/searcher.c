/*
 * searcher.c - owns the table of searchers (searcher.h): the one list of
 * them and the lists computed from it for messages and help
 */
#include "searcher.h"

#include "err.h"

#include <stdio.h>
#include <string.h>

extern const struct search_ops search_random_ops, search_halton_ops;

const struct search_ops *const search_table[] = {
	&search_random_ops,
	&search_halton_ops,
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
