"""dehbq.trial - the trainer's side of the dehbq trainer contract.

dehbq-worker runs the trainer with the trial in its environment
(docs/protocol.md, "The trainer contract"):

    from dehbq import trial

    cfg = trial.config()                 # {"lr": 0.001, "layers": 3, ...}
    epochs = round(trial.budget())       # the fidelity
    ck = trial.parent_workdir()          # a promotion's lower-fidelity
                                         # work directory, or None
    ...train, saving checkpoints in trial.checkpoint_dir()...
    trial.report(val_error, cost=seconds, accuracy=acc)

A trainer that reports as it trains (live trials, docs/protocol.md 4.6):

    for epoch in range(1, epochs + 1):
        ...train one epoch...
        trial.intermediate(val_error, epoch)   # one line on stdout
        if trial.should_stop():                # the optimiser stopped it
            break

A stopped trial counts as done, with its last intermediate result; its
trainer has runtime.stop_grace seconds to end by itself before SIGTERM.

report() writes $DEHBQ_RESULT atomically (a temporary file in the same
directory, fsync, rename).  Run by hand, without $DEHBQ_RESULT, it prints
the report as the last line of stdout, which the worker also accepts.

Everything raises TrialError (a RuntimeError) with a one-line message
naming the variable or value at fault.
"""

import json
import math
import os
import sys

__all__ = [
    "TrialError", "config", "budget", "parent_workdir", "checkpoint_dir",
    "trial_id", "seed", "objectives", "report", "intermediate",
    "should_stop",
]


class TrialError(RuntimeError):
    """A missing or malformed DEHBQ_* variable, or a bad report."""


def _env(name):
    v = os.environ.get(name)
    if v is None or v == "":
        raise TrialError("%s is not set: run this under dehbq-worker, or "
                         "set it by hand to try the trainer" % name)
    return v


def config():
    """The configuration: a dict of parameter name to value.  A parameter
    of a conditional space whose condition does not hold is left out."""
    path = _env("DEHBQ_CONFIG")
    try:
        with open(path) as f:
            cfg = json.load(f)
    except OSError as e:
        raise TrialError("DEHBQ_CONFIG %s: %s" % (path, e.strerror))
    except ValueError as e:
        raise TrialError("DEHBQ_CONFIG %s: not JSON: %s" % (path, e))
    if not isinstance(cfg, dict):
        raise TrialError("DEHBQ_CONFIG %s: not a JSON object" % path)
    return cfg


def budget():
    """The fidelity to train at, a positive float (epochs, samples...)."""
    v = _env("DEHBQ_BUDGET")
    try:
        b = float(v)
    except ValueError:
        b = float("nan")
    if not math.isfinite(b) or b <= 0:
        raise TrialError("DEHBQ_BUDGET %r: not a positive number" % v)
    return b


def parent_workdir():
    """For a promoted configuration, the work directory of the same
    configuration at the lower fidelity (to resume from its checkpoint);
    None otherwise."""
    return os.environ.get("DEHBQ_PARENT_WORKDIR") or None


def checkpoint_dir():
    """Where to save checkpoints: the trial's own work directory, which
    a promotion of this configuration receives as parent_workdir().  The
    current directory when run by hand."""
    return os.environ.get("DEHBQ_WORKDIR") or os.getcwd()


def trial_id():
    """The trial id, 8 digits ("00000035"), or None when run by hand."""
    return os.environ.get("DEHBQ_TRIAL_ID") or None


def seed():
    """A per-trial seed for the trainer's own random numbers (0 by hand)."""
    v = os.environ.get("DEHBQ_SEED") or "0"
    try:
        return int(v)
    except ValueError:
        raise TrialError("DEHBQ_SEED %r: not an integer" % v)


def _number(what, v):
    # ints, floats and numpy scalars; not bools, not text
    if isinstance(v, (bool, str, bytes)) or not hasattr(v, "__float__"):
        raise TrialError("%s %r: not a number" % (what, v))
    v = float(v)
    if not math.isfinite(v):
        raise TrialError("%s %r: not finite (to fail the trial, raise or "
                         "exit non-zero instead)" % (what, v))
    return v


def objectives():
    """The objectives a multi-objective study declares ([] otherwise)."""
    v = os.environ.get("DEHBQ_OBJECTIVES") or ""
    return [n for n in v.split(",") if n]


def _render(loss, cost, info, objs=None):
    rep = {}
    if loss is None and not objs:
        raise TrialError("report: give a loss, or objectives={name: value}")
    if loss is not None:
        rep["loss"] = _number("loss", loss)
    if objs:
        if not isinstance(objs, dict):
            raise TrialError("objectives %r: give a dict {name: value}"
                             % (objs,))
        rep["objectives"] = {str(k): _number("objective %s" % k, v)
                             for k, v in objs.items()}
    if cost is not None:
        rep["cost"] = _number("cost", cost)
        if rep["cost"] < 0:
            raise TrialError("cost %r: negative" % cost)
    if info:
        rep["info"] = info
    try:
        return json.dumps(rep, allow_nan=False, default=_jsonable)
    except (TypeError, ValueError) as e:
        raise TrialError("info: %s (give numbers, strings, lists and "
                         "dicts)" % e)


def _jsonable(v):
    """numpy scalars and arrays, by their Python equivalents."""
    for conv in ("tolist", "item"):
        f = getattr(v, conv, None)
        if callable(f):
            return f()
    raise TypeError("%r is not JSON serialisable" % (v,))


def report(loss=None, cost=None, objectives=None, **info):
    """Report the trial's loss (lower is better).

    cost: what the evaluation cost (default: the worker's wall seconds).
    objectives: in a multi-objective study, {name: value} for every
    declared objective (names: objectives()); the loss may then be left out.
    info: anything else to keep, as info.<key> columns in dehbq export.
    Call it once, at the end.  Returns the report's JSON text.
    """
    text = _render(loss, cost, info, objectives)
    path = os.environ.get("DEHBQ_RESULT")
    if not path:
        print(text)
        sys.stdout.flush()
        return text
    tmp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with open(tmp, "w") as f:
            f.write(text + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise TrialError("DEHBQ_RESULT %s: %s" % (path, e.strerror))
    return text


def intermediate(loss, fidelity, cost=None, **info):
    """Report an intermediate result: loss after `fidelity` units of
    training (epochs, in the study's fidelity units; each call's must be
    above the last).  Prints one JSON line on stdout, which the worker
    passes on to the optimiser.  Returns the line."""
    f = _number("fidelity", fidelity)
    if f <= 0:
        raise TrialError("fidelity %r: must be above 0" % (fidelity,))
    rep = json.loads(_render(loss, cost, info))
    line = json.dumps(dict({"fidelity": f}, **rep), allow_nan=False,
                      default=_jsonable)
    print(line)
    sys.stdout.flush()
    return line


def should_stop():
    """True once the optimiser has stopped this trial: the trainer should
    save what it needs and exit (its last intermediate result counts).
    Always False outside a worker, or under an optimiser that stops none."""
    path = os.environ.get("DEHBQ_STOP")
    return bool(path) and os.path.exists(path)
