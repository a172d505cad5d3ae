/*
 * id.c - study, worker, trial and host identifiers
 */
#include "id.h"

#include "err.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <uuid.h>

void id_study_new(char out[ID_STUDY_LEN])
{
	uuid_t u;

	uuid_generate_random(u);
	uuid_unparse_lower(u, out);
}

void id_worker_new(char out[ID_WORKER_LEN])
{
	static const char hex[] = "0123456789abcdef";
	uuid_t u;
	int i;

	uuid_generate_random(u);
	for (i = 0; i < 6; i++) {
		out[2 * i] = hex[u[i] >> 4];
		out[2 * i + 1] = hex[u[i] & 15];
	}
	out[12] = 0;
}

uint64_t id_token_new(void)
{
	uint64_t t = 0;
	uuid_t u;
	int i;

	while (!t) {
		uuid_generate_random(u);
		for (i = 0; i < 8; i++)
			t = (t << 8) | u[i];
	}
	return t;
}

void id_token_format(uint64_t t, char out[ID_TOKEN_LEN])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	for (i = ID_TOKEN_LEN - 2; i >= 0; i--, t >>= 4)
		out[i] = hex[t & 15];
	out[ID_TOKEN_LEN - 1] = 0;
}

int id_trial_format(uint64_t n, char out[ID_TRIAL_LEN])
{
	if (n > ID_TRIAL_MAX)
		return DEHBQ_ETOOBIG;
	snprintf(out, ID_TRIAL_LEN, "%08llu", (unsigned long long)n);
	return DEHBQ_OK;
}

void id_host(char out[ID_HOST_LEN])
{
	char buf[256];
	size_t i;

	if (gethostname(buf, sizeof(buf)) < 0 || !buf[0]) {
		snprintf(out, ID_HOST_LEN, "unknown");
		return;
	}
	buf[sizeof(buf) - 1] = 0;
	for (i = 0; buf[i] && i < ID_HOST_LEN - 1; i++) {
		char c = buf[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '-';

		out[i] = ok ? c : '-';
	}
	out[i] = 0;
}

static int is_lower_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

int id_is_study(const char *s)
{
	int i;

	if (strlen(s) != 36)
		return 0;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!is_lower_hex(s[i])) {
			return 0;
		}
	}
	return 1;
}

int id_is_worker(const char *s)
{
	int i;

	for (i = 0; i < 12; i++)
		if (!is_lower_hex(s[i]))
			return 0;
	return s[12] == 0;
}

int id_token_parse(const char *s, uint64_t *t)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < ID_TOKEN_LEN - 1; i++) {
		if (!is_lower_hex(s[i]))
			return DEHBQ_EINVAL;
		v = (v << 4) |
		    (uint64_t)(s[i] <= '9' ? s[i] - '0' : s[i] - 'a' + 10);
	}
	if (s[i] || !v)
		return DEHBQ_EINVAL;
	*t = v;
	return DEHBQ_OK;
}

int id_is_host(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-'))
			return 0;
	}
	return i > 0 && i < ID_HOST_LEN;
}

int id_trial_parse(const char *s, uint64_t *n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		if (s[i] < '0' || s[i] > '9')
			return DEHBQ_EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (s[8])
		return DEHBQ_EINVAL;
	*n = v;
	return DEHBQ_OK;
}
