/*
 * check_main.c - the one Check runner for every unit suite
 *
 * Suites come from tests/check_<module>.c, each exporting
 * `Suite *<module>_suite(void)`.  The Makefile generates suites.h from the
 * file names.  Run one suite with CK_RUN_SUITE=<module>.
 */
#include <check.h>
#include <stdlib.h>

#include "gp.h"

#define SUITE(name) Suite *name##_suite(void);
#include "suites.h"
#undef SUITE

int main(void)
{
	SRunner *sr = srunner_create(NULL);
	int failed;

	gp_blas_single_thread();
#define SUITE(name) srunner_add_suite(sr, name##_suite());
#include "suites.h"
#undef SUITE
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
