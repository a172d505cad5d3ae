"""dehbq - Python helpers for dehbq studies.

    from dehbq import trial          # in a trainer: config, budget, report
    import dehbq
    rows = dehbq.load_study("study") # every evaluation (a DataFrame when
                                     # pandas is installed)
    cfg = dehbq.best("study")        # the best configuration, as a dict
    imp = dehbq.importance("study")  # {"lr": 0.61, ...}: which mattered

load_study(), best() and importance() run the dehbq command (dehbq export
--jsonl -, dehbq best, dehbq importance) without a shell, so they see exactly what the command sees and
need it: on PATH, in $DEHBQ_CLI, or given as cli=.  Pure Python, no
dependency; pandas is optional.
"""

import json
import os
import shutil
import subprocess

from . import trial

__version__ = "0.3.0"
__all__ = ["trial", "load_study", "best", "importance", "StudyError",
           "__version__"]


class StudyError(RuntimeError):
    """The dehbq command is missing or refused the study."""


def _cli(cli):
    exe = cli or os.environ.get("DEHBQ_CLI") or shutil.which("dehbq")
    if not exe:
        raise StudyError("the dehbq command is not on PATH: install dehbq, "
                         "or give its path as cli= or in DEHBQ_CLI")
    return exe


def _run(cli, args):
    exe = _cli(cli)
    try:
        p = subprocess.run([exe] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise StudyError("%s: %s" % (exe, e.strerror))
    if p.returncode != 0:
        msg = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise StudyError(msg[-1] if msg else "%s %s: exit %d"
                         % (exe, " ".join(args), p.returncode))
    return p.stdout.decode("utf-8")


def load_study(path, frame=None, cli=None):
    """Every evaluation of the study at path, one row each, with the
    columns of dehbq export: id, bracket, rung, fidelity, kind, parent
    (the trial whose work it continued, or None), one per parameter, loss,
    cost, status, attempt, worker, host, started, finished, wall_time,
    max_rss_kb, reached, info.<key> and state.<key> (the optimizer's: pbt's
    state.member, state.segment and state.donor).

    frame: None gives a pandas DataFrame when pandas is installed and a
    list of dicts otherwise; True requires pandas; False gives the list.
    Ids stay strings ("00000035"), as dehbq show takes them.
    """
    out = _run(cli, ["export", os.fspath(path), "--jsonl", "-"])
    rows = [json.loads(line) for line in out.splitlines() if line]
    if frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if frame:
            raise
        return rows
    df = pandas.DataFrame(rows)
    if "id" in df:
        df["id"] = df["id"].astype(str)
    return df


def best(path, any_fidelity=False, cli=None):
    """The best evaluation as a dict: id, fidelity, loss, cost, attempt
    and config (the lowest loss among the ok results at the maximum
    fidelity, or at any fidelity), and schedule when it continued other
    trials' work (pbt: the winner's configuration per segment, a list of
    {id, fidelity, config}).  StudyError when there is none yet."""
    args = ["best", os.fspath(path)]
    if any_fidelity:
        args.append("--any-fidelity")
    return json.loads(_run(cli, args))


def importance(path, fidelity=None, objective=None, detail=False, cli=None):
    """Each parameter's fANOVA importance at one fidelity, as a dict
    {parameter: fraction of the loss's variance it explains on its own},
    most important first (dehbq importance: a random forest of 64 trees
    with the study's seed, so the same study gives the same numbers).

    fidelity: None is the highest fidelity with enough ok results; a
    number is that fidelity; "all" is every fidelity with enough, and
    gives the rows (as detail=True does).  objective: which objective of
    a multi-objective study (default the first declared).  detail=True
    gives the rows instead: dicts with parameter, importance, std (over
    the trees), fidelity, results and trees.  StudyError when no fidelity
    has enough results."""
    args = ["importance", os.fspath(path), "--format", "jsonl"]
    if fidelity == "all":
        args += ["--fidelity", "all"]
        detail = True
    elif fidelity is not None:
        args += ["--fidelity", repr(float(fidelity))]
    if objective is not None:
        args += ["--objective", str(objective)]
    rows = [json.loads(line) for line in _run(cli, args).splitlines()
            if line]
    if detail:
        return rows
    return {r["parameter"]: r["importance"] for r in rows}
