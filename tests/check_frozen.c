/*
 * check_frozen.c - snapshots of an older dehbq still load and go on as
 * that dehbq went on
 *
 * tests/data/frozen/vNNN.json each hold one contract variant (optvar.h)
 * as an older build ran it: the driver's first FROZEN_STEPS operations,
 * the optimiser's snapshot and history records at that point, and a
 * fingerprint of the driver's log (every job asked, vector bits
 * included) before the snapshot and at the end of the run.  This build
 * runs the same variant to the same point, and must ask the very same
 * jobs; then it loads the older snapshot and history in place of its own
 * optimiser, and must ask the very same jobs to the end.  So an optimiser
 * rebuilt on the searcher x scheduler seam (tpe as a searcher under fifo
 * or asha) proves both that it proposes what it did, bit for bit, and
 * that the studies already running resume.
 *
 * With DEHBQ_FROZEN_WRITE=DIR, the suite writes those files for every
 * variant of this build instead (tests/data/frozen/README says which
 * build wrote them).
 */
#include "err.h"
#include "jsonbuf.h"
#include "optim.h"
#include "optvar.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FROZEN_FEVALS 120
#define FROZEN_STEPS  60
#define FROZEN_SEED   31

/* Variant i's run to FROZEN_STEPS: the driver, and its history so far. */
static void run_to_snapshot(int i, struct drv *d, struct jsonbuf *hist)
{
	int k;

	drv_init(d, ov_open(i, FROZEN_SEED, FROZEN_FEVALS), 6, 17);
	jsonbuf_init(hist);
	for (k = 0; k < FROZEN_STEPS; k++) {
		ck_assert_int_eq(drv_op(d), 1);
		ov_take_history(d->o, hist);
	}
}

static void finish(struct drv *d)
{
	while (drv_op(d))
		;
}

static void write_one(const char *dir, int i)
{
	char path[4096], *label = ov_label(i), *snap;
	struct jsonbuf hist, out;
	uint64_t before;
	struct drv d;
	FILE *f;

	run_to_snapshot(i, &d, &hist);
	snap = ov_save_text(d.o);
	before = ov_hash(d.log.p, d.log.len);
	finish(&d);
	jsonbuf_init(&out);
	jsonbuf_puts(&out, "{\"label\":");
	jsonbuf_str(&out, label);
	jsonbuf_printf(&out,
		       ",\"log_before\":\"%016" PRIx64
		       "\",\"log_after\":\"%016" PRIx64 "\",\"history\":",
		       before, ov_hash(d.log.p, d.log.len));
	jsonbuf_str(&out, hist.len ? hist.p : "");
	jsonbuf_puts(&out, ",\"snapshot\":");
	jsonbuf_puts(&out, snap);
	jsonbuf_puts(&out, "}\n");
	ck_assert_int_eq(jsonbuf_failed(&out), DEHBQ_OK);
	snprintf(path, sizeof(path), "%s/v%03d.json", dir, i);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(fwrite(out.p, 1, out.len, f), out.len);
	ck_assert_int_eq(fclose(f), 0);
	optim_free(d.o);
	jsonbuf_free(&d.log);
	jsonbuf_free(&hist);
	jsonbuf_free(&out);
	free(snap);
	free(label);
	ov_done();
}

/* The variant of this build whose label is label, or -1. */
static int find_variant(const char *label)
{
	int i, found = -1;

	for (i = 0; found < 0 && i < ov_count(); i++) {
		char *l = ov_label(i);

		if (!strcmp(l, label))
			found = i;
		free(l);
	}
	return found;
}

static uint64_t hex(const cJSON *j, const char *k)
{
	const char *s =
		cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, k));

	ck_assert_ptr_nonnull(s);
	return strtoull(s, NULL, 16);
}

/*
 * One frozen file: 0 when this build asks what it recorded; else 1, with
 * a line on stderr that gives this build's fingerprints.
 */
static int check_one(const char *path, const cJSON *j)
{
	const char *label = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(j, "label"));
	const char *h = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(j, "history"));
	const cJSON *snap = cJSON_GetObjectItemCaseSensitive(j, "snapshot");
	char err[DEHBQ_ERRLEN];
	struct optim_setup u;
	struct jsonbuf hist;
	struct optim *b;
	struct drv d;
	uint64_t before, after;
	int i;

	ck_assert_msg(label && h && cJSON_IsObject(snap), "%s: damaged", path);
	i = find_variant(label);
	ck_assert_msg(i >= 0,
		      "%s: no variant '%s' any more (regenerate the frozen "
		      "files, and say why)",
		      path, label);
	run_to_snapshot(i, &d, &hist);
	before = ov_hash(d.log.p, d.log.len);
	ov_setup(&u, FROZEN_SEED, FROZEN_FEVALS);
	ck_assert_msg(optim_load(snap, &u, h, strlen(h), &b, err) == DEHBQ_OK,
		      "%s (%s): its snapshot does not load: %s", path, label,
		      err);
	optim_free(d.o);
	d.o = b;
	finish(&d);
	after = ov_hash(d.log.p, d.log.len);
	optim_free(d.o);
	jsonbuf_free(&d.log);
	jsonbuf_free(&hist);
	ov_done();
	if (before == hex(j, "log_before") && after == hex(j, "log_after"))
		return 0;
	fprintf(stderr,
		"%s (%s): %s other jobs than the build that wrote it "
		"(this build: log_before %016" PRIx64 ", log_after %016" PRIx64
		")\n",
		path, label,
		before == hex(j, "log_before") ? "after its snapshot, asks"
					       : "asks",
		before, after);
	return 1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct jsonbuf b;
	char buf[65536];
	size_t n;

	if (!f) {
		ck_assert_int_eq(errno, ENOENT);
		return NULL;
	}
	jsonbuf_init(&b);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		jsonbuf_put(&b, buf, n);
	ck_assert(!ferror(f));
	fclose(f);
	ck_assert_int_eq(jsonbuf_failed(&b), DEHBQ_OK);
	return jsonbuf_take(&b);
}

START_TEST(test_frozen_snapshots_resume)
{
	const char *w = getenv("DEHBQ_FROZEN_WRITE");
	const char *dir = getenv("DEHBQ_TESTDATA");
	char path[4096], *text;
	int k, i, bad = 0;

	if (w) {
		for (i = 0; i < ov_count(); i++)
			write_one(w, i);
		return;
	}
	for (k = 0;; k++) {
		cJSON *j;

		snprintf(path, sizeof(path), "%s/frozen/v%03d.json",
			 dir ? dir : "tests/data", k);
		if (!(text = slurp(path)))
			break;
		ck_assert_msg((j = cJSON_Parse(text)) != NULL, "%s: not JSON",
			      path);
		bad += check_one(path, j);
		cJSON_Delete(j);
		free(text);
	}
	ck_assert_msg(k > 0, "no frozen snapshots in %s/frozen",
		      dir ? dir : "tests/data");
	ck_assert_msg(!bad,
		      "%d of %d frozen snapshots ask other jobs than the "
		      "builds that wrote them (stderr names them)",
		      bad, k);
}
END_TEST

Suite *frozen_suite(void)
{
	Suite *s = suite_create("frozen");
	TCase *tc = tcase_create("older");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_frozen_snapshots_resume);
	suite_add_tcase(s, tc);
	return s;
}
