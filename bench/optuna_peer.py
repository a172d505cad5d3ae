#!/usr/bin/python3
"""optuna_peer.py - Optuna with JournalFileStorage, the peer for throughput

K processes share one journal file, as Optuna documents for multi-process
optimisation without a database.  The objective costs nothing (it samples
one float and returns 0), so the figure is Optuna's coordination overhead:
trials/s over the wall time from the moment all K processes have imported
Optuna and loaded the study (a pipe barrier) until the last one finishes.

Optuna 3.1's journal reader can read another process's half-written line
and raise JSONDecodeError (optuna/optuna#5138); such a process dies.  That
is the peer's own failure, so it is reported (FAILED = processes that died)
and the throughput counts only the COMPLETE trials in the journal.

Usage: optuna_peer.py JOURNAL K TRIALS_PER_PROCESS
Output: one line "optuna K TRIALS trials W s R trials/s FAILED failed"
Exit codes: 0 ran (even with failed processes), 100 usage, 111 no trial
completed.
"""
import os
import sys
import time
import warnings


def main():
    if len(sys.argv) != 4:
        sys.stderr.write("usage: optuna_peer.py JOURNAL K TRIALS\n")
        return 100
    path, k, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    warnings.simplefilter("ignore")
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.JournalStorage(
        optuna.storages.JournalFileStorage(path))
    optuna.create_study(study_name="bench", storage=storage)

    def objective(trial):
        trial.suggest_float("x", 0.0, 1.0)
        return 0.0

    go_r, go_w = os.pipe()
    pids = []
    for _ in range(k):
        pid = os.fork()
        if pid == 0:
            os.close(go_w)
            # A fresh storage per process: JournalStorage names its
            # trials' owner with a per-instance id, so a forked copy of the
            # parent's instance would make every child the same owner.
            mine = optuna.storages.JournalStorage(
                optuna.storages.JournalFileStorage(path))
            st = optuna.load_study(study_name="bench", storage=mine)
            os.read(go_r, 1)
            try:
                st.optimize(objective, n_trials=n)
            except Exception as e:  # the peer's own bug, see above
                sys.stderr.write("optuna_peer: child: %r\n" % (e,))
                os._exit(1)
            os._exit(0)
        pids.append(pid)
    os.close(go_r)
    time.sleep(1.0 + 0.05 * k)  # let every child import and load
    t0 = time.monotonic()
    os.write(go_w, b"x" * k)
    bad = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        bad += status != 0
    dt = time.monotonic() - t0
    st = optuna.load_study(study_name="bench", storage=optuna.storages.JournalStorage(
        optuna.storages.JournalFileStorage(path)))
    done = sum(1 for t in st.trials if t.state == optuna.trial.TrialState.COMPLETE)
    if done == 0:
        sys.stderr.write("optuna_peer: fatal: no trial completed\n")
        return 111
    print("optuna %d %d trials %.3f s %.1f trials/s %d failed"
          % (k, done, dt, done / dt, bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
