/*
 * check_statusfile.c - state/status.json and FINISHED: what the writer
 * renders the reader gets back; missing fields read as zero; a field of
 * the wrong type is refused with its name
 */
#include "err.h"
#include "statusfile.h"

#include <check.h>
#include <stdio.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static void fill(struct statusfile *s)
{
	statusfile_init(s);
	memcpy(s->study, "1b4e28ba-2fa1-11d2-883f-0016d3cca427", 37);
	snprintf(s->held, sizeof(s->held), "20 results in a row failed");
	snprintf(s->updated, sizeof(s->updated), "2026-11-25T22:00:00.000Z");
	s->epoch = 3;
	snprintf(s->host, sizeof(s->host), "node7");
	s->pid = 4242;
	s->elapsed = 12.5;
	s->exhausted = 1;
	s->counts.issued = 40;
	s->counts.done = 38;
	s->counts.failed = 2;
	s->counts.inflight = 2;
	s->counts.brackets = 4;
	s->counts.total_cost = 0.1 + 0.2;
	s->live_workers = 5;
	s->best_max.valid = 1;
	s->best_max.loss = -1.5;
	s->best_max.fidelity = 27;
	snprintf(s->best_max.trial, sizeof(s->best_max.trial), "00000017");
	s->best_max.config = cJSON_Parse("{\"x\": 0.25, \"act\": \"relu\"}");
	s->optimizer = cJSON_Parse("{\"name\": \"asha\", \"configs\": 9}");
}

START_TEST(test_statusfile_round_trip)
{
	struct statusfile a, b;
	char err[DEHBQ_ERRLEN], *t, *t2;

	fill(&a);
	ck_assert_int_eq(statusfile_render(&a, &t), DEHBQ_OK);
	ck_assert(strstr(t, "\"format\":\t\"dehbq-status/1\""));
	ck_assert(strstr(t, "\"incumbent_any_fidelity\":\tnull"));
	ck_assert_int_eq(statusfile_parse("s.json", t, strlen(t), &b, err),
			 DEHBQ_OK);
	ck_assert(!b.finished && b.exhausted && !b.stopping);
	ck_assert_str_eq(b.held, a.held);
	ck_assert_str_eq(b.host, "node7");
	ck_assert_int_eq(b.pid, 4242);
	ck_assert_int_eq(b.counts.brackets, 4);
	ck_assert(b.counts.total_cost == 0.1 + 0.2);
	ck_assert(b.best_max.valid && b.best_max.loss == -1.5);
	ck_assert_str_eq(b.best_max.trial, "00000017");
	ck_assert(cJSON_Compare(a.best_max.config, b.best_max.config, 1));
	ck_assert(!b.best_any.valid);
	ck_assert(cJSON_Compare(a.optimizer, b.optimizer, 1));
	ck_assert_int_eq(statusfile_render(&b, &t2), DEHBQ_OK);
	ck_assert_str_eq(t, t2);
	free(t);
	free(t2);
	statusfile_release(&b);
	a.finished = 1;
	ck_assert_int_eq(statusfile_render(&a, &t), DEHBQ_OK);
	ck_assert_int_eq(statusfile_parse("F", t, strlen(t), &b, err),
			 DEHBQ_OK);
	ck_assert(b.finished);
	free(t);
	statusfile_release(&a);
	statusfile_release(&b);
}
END_TEST

START_TEST(test_statusfile_lenient_missing_strict_types)
{
	static const char *const bad[] = {
		"{\"format\": \"dehbq-status/1\", \"pid\": \"12\"}",
		"{\"format\": \"dehbq-status/1\", \"counts\": {\"done\": -1}}",
		"{\"format\": \"dehbq-status/1\", \"counts\": []}",
		"{\"format\": \"dehbq-status/1\", \"incumbent_max_fidelity\": "
		"3}",
		"{\"format\": \"dehbq-status/9\"}",
		"[1, 2]",
	};
	static const char *const field[] = {"pid",    "done",
					    "counts", "incumbent_max_fidelity",
					    "format", "object"};
	const char *ok = "{\"format\": \"dehbq-status/1\"}";
	struct statusfile s;
	char err[DEHBQ_ERRLEN];
	size_t i;

	ck_assert_int_eq(statusfile_parse("s", ok, strlen(ok), &s, err),
			 DEHBQ_OK);
	ck_assert(!s.best_max.valid && !s.optimizer && s.counts.done == 0);
	statusfile_release(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(statusfile_parse("s.json", bad[i],
						  strlen(bad[i]), &s, err),
				 DEHBQ_EINVAL);
		ck_assert_msg(strstr(err, field[i]) && strstr(err, "s.json"),
			      "%zu: %s", i, err);
		ck_assert_ptr_null(s.optimizer);
	}
}
END_TEST

Suite *statusfile_suite(void)
{
	Suite *s = suite_create("statusfile");
	TCase *c = tcase_create("core");

	tcase_add_test(c, test_statusfile_round_trip);
	tcase_add_test(c, test_statusfile_lenient_missing_strict_types);
	suite_add_tcase(s, c);
	return s;
}
