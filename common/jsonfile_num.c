/*
 * jsonfile_num.c - how dehbq writes numbers into JSON (jsonfile.h): the
 * shortest text that reads back to the same double, integers without an
 * exponent, -0 kept, and documents rendered with them
 */
#include "jsonfile.h"

#include "err.h"
#include "utf8.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An integral |d| < 2^53 in decimal, without printf; 0 if d is not one. */
static int int_text(double d, char *buf)
{
	char t[24];
	unsigned long long u;
	int n = 0;

	if (!(fabs(d) < 9007199254740992.0) || d != (double)(int64_t)d)
		return 0;
	u = (unsigned long long)(d < 0 ? -d : d);
	do
		t[n++] = (char)('0' + u % 10);
	while ((u /= 10));
	if (d < 0)
		*buf++ = '-';
	while (n)
		*buf++ = t[--n];
	*buf = 0;
	return 1;
}

/* -0.0 and integers, the cheap cases; 0 when d is neither. */
static int plain_text(double d, char *buf, size_t size)
{
	if (d == 0 && signbit(d)) {
		snprintf(buf, size, "-0.0");
		return 1;
	}
	return int_text(d, buf);
}

void jsonfile_fmt_double(char *buf, size_t size, double d)
{
	char t[40];

	if (isfinite(d) && plain_text(d, buf, size))
		return;
	/*
	 * 17 digits always read back.  16 first: when they do not, 15 do not
	 * either, as the nearest 16-digit decimal is at least as near as the
	 * nearest 15-digit one (random vectors need 17 half the time).  Only
	 * just above a power of two, where the doubles below are closer, could
	 * 15 read back and 16 not; that d is written with 17 digits: exact,
	 * not the shortest.
	 */
	snprintf(buf, size, "%.16g", d);
	if (strtod(buf, NULL) != d) {
		snprintf(buf, size, "%.17g", d);
		return;
	}
	snprintf(t, sizeof(t), "%.15g", d);
	if (strtod(t, NULL) == d)
		snprintf(buf, size, "%s", t);
}

/* A raw item holding text, with valuedouble/valueint set for readers. */
static cJSON *raw_number(const char *text, double d)
{
	cJSON *it = cJSON_CreateRaw(text);

	if (it) {
		it->valuedouble = d;
		it->valueint = d >= INT_MAX   ? INT_MAX
			       : d <= INT_MIN ? INT_MIN
					      : (int)d;
	}
	return it;
}

cJSON *jsonfile_number(double d)
{
	char buf[40];

	if (!isfinite(d))
		return NULL;
	jsonfile_fmt_double(buf, sizeof(buf), d);
	return raw_number(buf, d);
}

void jsonfile_fmt_exact(char *buf, size_t size, double d)
{
	if (!plain_text(d, buf, size))
		snprintf(buf, size, "%.17g", d);
}

/* Every number item under it and its siblings becomes a raw item with
 * its exact text. */
static int make_exact(cJSON *it)
{
	for (; it; it = it->next)
		if (jsonfile_exact_numbers(it))
			return -1;
	return 0;
}

int jsonfile_exact_numbers(cJSON *it)
{
	char buf[40], *txt;

	if (!it || !cJSON_IsNumber(it) || !isfinite(it->valuedouble))
		return it ? make_exact(it->child) : 0;
	jsonfile_fmt_double(buf, sizeof(buf), it->valuedouble);
	if (!(txt = strdup(buf)))
		return -1;
	it->type = cJSON_Raw | (it->type & cJSON_StringIsConst);
	it->valuestring = txt;
	return 0;
}

char *jsonfile_print_exact(const cJSON *item)
{
	cJSON *copy = cJSON_Duplicate(item, 1);
	char *txt = NULL;

	if (copy && !make_exact(copy))
		txt = cJSON_PrintUnformatted(copy);
	cJSON_Delete(copy);
	return txt;
}

int jsonfile_render(cJSON *o, int built, char **out)
{
	char *txt = NULL;
	size_t n;

	if (built && o)
		txt = cJSON_Print(o);

	*out = NULL;
	cJSON_Delete(o);
	if (!txt)
		return DEHBQ_ENOMEM;
	n = strlen(txt);
	if (utf8_check(txt, n) != n) { /* raw bytes from outside: repair */
		char *fixed = utf8_repair(txt, n, &n);

		cJSON_free(txt);
		if (!fixed)
			return DEHBQ_ENOMEM;
		txt = fixed;
		*out = realloc(fixed, n + 2);
		if (!*out) {
			free(fixed);
			return DEHBQ_ENOMEM;
		}
		(*out)[n] = '\n';
		(*out)[n + 1] = 0;
		return DEHBQ_OK;
	}
	*out = malloc(n + 2);
	if (*out) {
		memcpy(*out, txt, n);
		(*out)[n] = '\n';
		(*out)[n + 1] = 0;
	}
	cJSON_free(txt);
	return *out ? DEHBQ_OK : DEHBQ_ENOMEM;
}

int jsonfile_add_number(cJSON *obj, const char *key, double d)
{
	cJSON *n = jsonfile_number(d);

	if (!n || !cJSON_AddItemToObject(obj, key, n)) {
		cJSON_Delete(n);
		return -1;
	}
	return 0;
}
