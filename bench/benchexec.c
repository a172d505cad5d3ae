/*
 * benchexec.c - run a command and report its wall time, CPU and peak RSS
 *
 * The shell cannot read a child's rusage, so the benchmark driver starts
 * the orchestrator through this wrapper: fork, exec, wait4(), then one
 * line "wall_s cpu_s maxrss_kb status" is written to OUTFILE (replaced
 * whole through a .tmp rename, so a reader never sees a partial line).
 * cpu_s is user + system time of the child alone, maxrss_kb is the
 * kernel's ru_maxrss (VmHWM at exit).  SIGTERM and SIGINT are passed on
 * to the child, so the driver's cleanup trap still stops it.
 *
 * Usage: benchexec OUTFILE CMD [ARGS...]
 * Exit codes: the child's exit status; 111 when it cannot be started.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t benchexec_child; /* the child, for the relay */

static void benchexec_relay(int sig)
{
	if (benchexec_child > 0)
		kill(benchexec_child, sig);
}

static double benchexec_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	struct sigaction sa;
	char tmp[4096];
	double t0, wall, cpu;
	int status = 0, code = 111;
	pid_t pid, w;
	FILE *f;

	if (argc < 3) {
		fputs("usage: benchexec OUTFILE CMD [ARGS...]\n", stderr);
		return 100;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = benchexec_relay;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	t0 = benchexec_mono();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "benchexec: fatal: fork: %s\n",
			strerror(errno));
		return 111;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "benchexec: fatal: unable to run '%s': %s\n",
			argv[2], strerror(errno));
		_exit(111);
	}
	benchexec_child = pid;
	do
		w = wait4(pid, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		fprintf(stderr, "benchexec: fatal: wait4: %s\n",
			strerror(errno));
		return 111;
	}
	wall = benchexec_mono() - t0;
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		code = 128 + WTERMSIG(status);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]) >= (int)sizeof(tmp))
		return 111;
	f = fopen(tmp, "w");
	if (!f ||
	    fprintf(f, "%.6f %.6f %ld %d\n", wall, cpu, ru.ru_maxrss, code) <
		    0 ||
	    fclose(f) != 0 || rename(tmp, argv[1])) {
		fprintf(stderr, "benchexec: fatal: unable to write '%s': %s\n",
			argv[1], strerror(errno));
		return 111;
	}
	return code;
}
