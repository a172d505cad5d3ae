/*
 * wake.c - what wakes an idle worker: signals and inotify (wake.h)
 */
#include "wake.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "timeutil.h"

volatile sig_atomic_t wake_stop; /* SIGTERM/SIGINT seen */
static int pipe_w = -1;		 /* self-pipe write end */

static void on_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	if (sig == SIGTERM || sig == SIGINT)
		wake_stop = sig;
	if (pipe_w >= 0 && write(pipe_w, &c, 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = e;
}

static void drain_fd(int fd)
{
	char buf[4096];

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

void wake_init(struct wake *k)
{
	memset(k, 0, sizeof(*k));
	k->pipe_r = k->ino = k->ino_pending = -1;
	claim_list_init(&k->hints);
}

int wake_signals(struct wake *k)
{
	struct sigaction sa;
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	k->pipe_r = p[0];
	pipe_w = p[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGINT, &sa, NULL) < 0 ||
	    sigaction(SIGCHLD, &sa, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The inotify fd with the study root watched (FINISHED). */
int wake_inotify(struct wake *k, const char *root)
{
	int fd, e;

	if (study_path(k->pending, sizeof(k->pending), root, "pending")) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -1;
	if (inotify_add_watch(fd, root, IN_MOVED_TO | IN_CREATE) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	k->ino = fd;
	return 0;
}

/*
 * Every rename into pending/ queues an event for each watch on it, and
 * the renamer pays for that: a busy worker's watch would cost the
 * orchestrator a few microseconds per trial it publishes, for events
 * nobody reads.  So the watch is added before each listing of pending/ (a
 * trial published after the listing still wakes the worker) and removed
 * when a trial is claimed, with the events queued so far.  Without the
 * watch (inotify_add_watch failed), the worker polls.
 */
void wake_watch(struct wake *k, int on)
{
	if (k->ino < 0 || on == (k->ino_pending >= 0))
		return;
	if (!on) {
		inotify_rm_watch(k->ino, k->ino_pending);
		k->ino_pending = -1;
		k->hints.n = 0;
		drain_fd(k->ino);
	} else if ((k->ino_pending = inotify_add_watch(
			    k->ino, k->pending, IN_MOVED_TO | IN_CREATE)) < 0) {
		k->ino_pending = -1;
	}
}

/*
 * Read the inotify events: names moved into pending/ become hints, so a
 * woken worker tries exactly the announced trials instead of every idle
 * worker listing the directory at once (the thundering herd).  On a queue
 * overflow the hints are dropped and the next step lists pending/.
 */
static void read_hints(struct wake *k)
{
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n;

	while ((n = read(k->ino, buf, sizeof(buf))) > 0) {
		ssize_t off = 0;

		while (off + (ssize_t)sizeof(struct inotify_event) <= n) {
			const struct inotify_event *ev =
				(const struct inotify_event *)(buf + off);

			if (ev->mask & IN_Q_OVERFLOW)
				k->hints.n = 0;
			else if (ev->wd == k->ino_pending && ev->len &&
				 claim_list_add_hint(&k->hints, ev->name))
				k->hints.n =
					0; /* out of memory: list instead */
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
	}
}

int wake_wait(struct wake *k, double secs, void (*tick)(void *arg), void *arg,
	      const double *next_tick)
{
	struct pollfd fds[2];
	int n = 0, woke = 0;
	double until = timeutil_mono() + secs, now;

	while (!wake_stop && (now = timeutil_mono()) < until) {
		double t = until < *next_tick ? until : *next_tick;
		int ms = (int)((t - now) * 1000) + 1;

		n = 0;
		fds[n++] = (struct pollfd){k->pipe_r, POLLIN, 0};
		if (k->ino >= 0)
			fds[n++] = (struct pollfd){k->ino, POLLIN, 0};
		if (ms < 0)
			ms = 0;
		if (poll(fds, (nfds_t)n, ms) > 0) {
			drain_fd(k->pipe_r);
			if (n > 1 && fds[1].revents) {
				read_hints(k);
				woke = 1;
				break;
			}
		}
		if (timeutil_mono() >= *next_tick)
			tick(arg);
	}
	return woke;
}

void wake_close(struct wake *k)
{
	if (k->ino >= 0)
		close(k->ino);
	claim_list_release(&k->hints);
	k->ino = k->ino_pending = -1;
}
