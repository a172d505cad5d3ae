/*
 * noop_trainer.c - the cheapest possible trainer, for overhead benchmarks
 *
 * Prints {"loss": L} on stdout and exits 0.  With an argument S it first
 * sleeps S seconds (fixed-duration trials for the utilisation benchmark);
 * with a second argument it uses that as the loss.  No allocation, no
 * file access: whatever a trial costs beyond this is dehbq's overhead.
 *
 * Usage: noop_trainer [SECONDS [LOSS]]
 * Exit codes: 0 always, 100 on a malformed argument.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int noop_parse(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno != 0 || end == s || *end != '\0' || *v < 0;
}

int main(int argc, char **argv)
{
	double secs = 0, loss = 0;
	struct timespec ts;

	if (argc > 1 && noop_parse(argv[1], &secs)) {
		fputs("noop_trainer: fatal: bad SECONDS\n", stderr);
		return 100;
	}
	if (argc > 2 && noop_parse(argv[2], &loss)) {
		fputs("noop_trainer: fatal: bad LOSS\n", stderr);
		return 100;
	}
	if (secs > 0) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	printf("{\"loss\": %.17g}\n", loss);
	return 0;
}
