/*
 * check_reload.c - the optimiser contract at every state: a run whose
 * optimiser is saved and loaded again after every ask, tell and requeue
 * goes exactly as the same run never reloaded, over every variant of
 * optvar.h, long enough (RELOAD_FEVALS results) to cross every refit,
 * rung, bracket, window and history boundary the variants have.
 */
#include "err.h"
#include "jsonbuf.h"
#include "optim.h"
#include "optvar.h"
#include "testutil.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define RELOAD_FEVALS 320

/*
 * o saved, loaded with the history so far and saved again: both texts
 * must equal want (the never-reloaded run's).  Returns the loaded copy;
 * o is freed.
 */
static struct optim *reload(struct optim *o, const struct jsonbuf *hist,
			    const char *want, int64_t step)
{
	char err[DEHBQ_ERRLEN], *ta = ov_save_text(o), *tb;
	struct optim_setup u;
	struct optim *b;
	cJSON *j = cJSON_Parse(ta);

	ck_assert_ptr_nonnull(j);
	ck_assert_msg(!strcmp(ta, want),
		      "%s, step %lld: the state differs "
		      "from the run never reloaded",
		      optim_name(o), (long long)step);
	ov_setup(&u, 31, RELOAD_FEVALS);
	ck_assert_msg(optim_load(j, &u, hist->p, hist->len, &b, err) ==
			      DEHBQ_OK,
		      "%s, step %lld: its own snapshot does not load: %s",
		      optim_name(o), (long long)step, err);
	tb = ov_save_text(b);
	ck_assert_msg(!strcmp(ta, tb),
		      "%s, step %lld: save -> load -> save changed the text",
		      optim_name(o), (long long)step);
	cJSON_Delete(j);
	free(ta);
	free(tb);
	optim_free(o);
	return b;
}

START_TEST(test_reload_after_every_step)
{
	/* the table, the compositions, then the sampled pairs */
	int v = _i < ov_table_len() + ov_composed_len()
			? _i
			: ov_table_len() + ov_composed_len() +
				  ov_sampled(_i - ov_table_len() -
					     ov_composed_len());
	struct optim *a = ov_open(v, 31, RELOAD_FEVALS);
	struct optim *b = ov_open(v, 31, RELOAD_FEVALS);
	struct jsonbuf hist, ignored;
	struct optim_counts c;
	struct drv da, db;
	int64_t step = 0;
	char *want;

	drv_init(&da, a, 6, 17);
	drv_init(&db, b, 6, 17);
	jsonbuf_init(&hist);
	jsonbuf_init(&ignored);
	while (drv_op(&da)) {
		ck_assert_int_eq(drv_op(&db), 1);
		ov_take_history(a, &ignored);
		ov_take_history(db.o, &hist);
		want = ov_save_text(a);
		db.o = reload(db.o, &hist, want, ++step);
		free(want);
	}
	ck_assert_int_eq(drv_op(&db), 0);
	tu_assert_same("reload", da.log.p, db.log.p);
	optim_counts(db.o, &c);
	ck_assert_int_eq(c.told, RELOAD_FEVALS);
	ck_assert_msg(da.requeues > 0, "no requeue in %lld steps",
		      (long long)step);
	/* an optimiser that stops trials was reloaded between reports and
	 * between its stops */
	ck_assert_msg(!optim_stops(a) || (da.reports > 100 && da.stops > 5),
		      "%s: %lld reports, %lld stops", optim_name(a),
		      (long long)da.reports, (long long)da.stops);
	jsonbuf_free(&hist);
	jsonbuf_free(&ignored);
	jsonbuf_free(&da.log);
	jsonbuf_free(&db.log);
	optim_free(a);
	optim_free(db.o);
}
END_TEST

Suite *reload_suite(void)
{
	static const char *const part[2] = {"part1", "part2"};
	Suite *s = suite_create("reload");
	int n = ov_table_len() + ov_composed_len() + ov_sampled_len(), i;

	/* in two parts, which make check runs side by side (tests/unit.sh
	 * takes reload:part1 ...) */
	for (i = 0; i < 2; i++) {
		TCase *c = tcase_create(part[i]);

		tcase_set_timeout(c, 600);
		tcase_add_checked_fixture(c, NULL, ov_done);
		tcase_add_loop_test(c, test_reload_after_every_step, n * i / 2,
				    n * (i + 1) / 2);
		suite_add_tcase(s, c);
	}
	return s;
}
