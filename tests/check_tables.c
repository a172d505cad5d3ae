/*
 * check_tables.c - the tables of optimisers and searchers, and what is
 * computed from them: the names every list, message and document gives,
 * and the capabilities
 */
#include "optim.h"
#include "searcher.h"
#include "testutil.h"

#include "err.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names as docs/protocol.md lists them: `a`, `b` or `c`. */
static void prose_list(char *buf, size_t size, const char *const *names)
{
	size_t len = 0;
	int i;

	for (i = 0; names[i]; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s`%s`",
					!i	       ? ""
					: names[i + 1] ? ", "
						       : " or ",
					names[i]);
}

/* A document of the source tree (README.md, docs/...), malloc'ed. */
static char *read_doc(const char *name)
{
	const char *data = getenv("DEHBQ_TESTDATA");
	char path[4096], *doc;

	snprintf(path, sizeof(path), "%s/../../%s", data ? data : "tests/data",
		 name);
	ck_assert_msg((doc = tu_read(path, NULL)) != NULL, "%s: unreadable",
		      path);
	return doc;
}

/* README.md and docs/protocol.md list the tables' names too. */
static void docs_list_the_tables(void)
{
	const char *names[64];
	char buf[700], list[512], *doc;
	int i;

	for (i = 0; optim_table[i]; i++)
		names[i] = optim_table[i]->name;
	names[i] = NULL;
	doc = read_doc("docs/protocol.md");
	prose_list(buf, sizeof(buf), names);
	ck_assert_msg(strstr(doc, buf), "docs/protocol.md does not list %s",
		      buf);
	for (i = 0; search_table[i]; i++)
		names[i] = search_table[i]->name;
	names[i] = NULL;
	prose_list(buf, sizeof(buf), names);
	ck_assert_msg(strstr(doc, buf), "docs/protocol.md does not list %s",
		      buf);
	free(doc);
	doc = read_doc("README.md");
	ck_assert_int_eq(
		optim_list(OPTIM_CAP_SEARCHER, "|", list, sizeof(list)),
		DEHBQ_OK);
	snprintf(buf, sizeof(buf), "`--scheduler %s`", list);
	ck_assert_msg(strstr(doc, buf), "README.md does not list %s", buf);
	ck_assert_int_eq(search_list(0, "|", list, sizeof(list)), DEHBQ_OK);
	snprintf(buf, sizeof(buf), "`--searcher %s`", list);
	ck_assert_msg(strstr(doc, buf), "README.md does not list %s", buf);
	free(doc);
}

/* The names every message and help text lists are the table's, and the
 * man page lists the same. */
START_TEST(test_optim_names_are_the_tables)
{
	char buf[600], list[512], *man;
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; optim_table[i]; i++) {
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "|" : "", optim_table[i]->name);
		ck_assert_ptr_eq(optim_find(optim_table[i]->name),
				 optim_table[i]);
	}
	ck_assert_int_eq(optim_list(0, "|", list, sizeof(list)), DEHBQ_OK);
	ck_assert_str_eq(buf, list);
	ck_assert_int_eq(optim_list(0, "|", list, 8), DEHBQ_ETOOBIG);
	ck_assert_ptr_null(optim_find("GP"));
	ck_assert_uint_eq(optim_caps("GP"), 0);
	/* the man page lists the same names */
	man = read_doc("docs/dehbq.1");
	ck_assert_msg(strstr(man, buf), "docs/dehbq.1 does not list %s", buf);
	/* and the schedulers that take a searcher, and the searchers */
	ck_assert_int_eq(
		optim_list(OPTIM_CAP_SEARCHER, "|", list, sizeof(list)),
		DEHBQ_OK);
	snprintf(buf, sizeof(buf), "scheduler \" %s\"", list);
	ck_assert_msg(strstr(man, buf), "docs/dehbq.1 does not list %s", buf);
	for (i = 0, len = 0; search_table[i]; i++) {
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i ? "|" : "", search_table[i]->name);
		ck_assert_ptr_eq(search_find(search_table[i]->name),
				 search_table[i]);
	}
	ck_assert_int_eq(search_list(0, "|", buf, sizeof(buf)), DEHBQ_OK);
	ck_assert_str_eq(buf, list);
	ck_assert_int_eq(search_list(0, "|", buf, 4), DEHBQ_ETOOBIG);
	ck_assert_ptr_null(search_find("Halton"));
	snprintf(buf, sizeof(buf), "searcher \" %s\"", list);
	ck_assert_msg(strstr(man, buf), "docs/dehbq.1 does not list %s", buf);
	free(man);
	docs_list_the_tables();
}
END_TEST

/* Each capability is what the optimiser does. */
START_TEST(test_optim_caps_are_true)
{
	cJSON *mf = cJSON_Parse("{\"multi_fidelity\":\"asha\"}"), *out;
	char err[DEHBQ_ERRLEN];
	int i, k;

	for (i = 0; optim_table[i]; i++) {
		const char *name = optim_table[i]->name;
		unsigned c = optim_caps(name);
		int asha = !optim_settings(name, mf, &out, err);

		cJSON_Delete(asha ? out : NULL);
		ck_assert_msg(!(c & OPTIM_CAP_ASHA) == !asha, "%s", name);
		ck_assert(!(c & OPTIM_CAP_NEEDS_TRANSFER) ||
			  (c & OPTIM_CAP_TRANSFER));
		ck_assert(!(c & OPTIM_CAP_ONE_BRACKET) ||
			  (c & OPTIM_CAP_BRACKETS));
		ck_assert(!(c & OPTIM_CAP_BRACKETS) ||
			  (optim_table[i]->preset
				   ? optim_find(optim_table[i]->under)->brackets
				   : optim_table[i]->brackets));
		/* a preset is a searcher under a scheduler, and no more */
		ck_assert(!optim_table[i]->preset ||
			  (search_find(optim_table[i]->preset) &&
			   !optim_table[i]->open && !optim_table[i]->settings));
		ck_assert(!(c & OPTIM_CAP_MULTIOBJECTIVE) ==
			  !(optim_table[i]->preset
				    ? search_multiobjective(search_find(
					      optim_table[i]->preset))
				    : optim_table[i]->rescore != NULL));
		/* a scheduler that takes a searcher takes every one */
		for (k = 0; search_table[k]; k++) {
			cJSON *sr = cJSON_CreateObject();
			int ok;

			cJSON_AddStringToObject(sr, "searcher",
						search_table[k]->name);
			ok = !optim_settings(name, sr, &out, err);
			cJSON_Delete(ok ? out : NULL);
			cJSON_Delete(sr);
			ck_assert_msg(!(c & OPTIM_CAP_SEARCHER) == !ok, "%s %s",
				      name, search_table[k]->name);
		}
	}
	cJSON_Delete(mf);
}
END_TEST

Suite *tables_suite(void)
{
	Suite *s = suite_create("tables");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_optim_names_are_the_tables);
	tcase_add_test(tc, test_optim_caps_are_true);
	suite_add_tcase(s, tc);
	return s;
}
