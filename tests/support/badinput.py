"""The machinery of tests/test_bad_input.py: batteries of bad values, and running each case in a
forked worker under a memory cap and a timeout.

A *case* is one public callable, called with a valid set of arguments in which one argument is
replaced by a value from the battery for its kind. A case runs in a worker process forked from the
test process (so nothing it does, allocates or hangs on can harm the run), on its own deep copy of
the arguments, under ``resource.setrlimit(RLIMIT_AS)`` of the worker's size plus ``CAP_BYTES``; the
parent kills the worker after ``TIMEOUT`` seconds of one case, and forks a fresh one for the cases left
after a hang, a death, a crash or a case that ran out of memory. A worker runs the cases of one call
of :func:`run_forked` one after another (a fork per case was most of this file's time). The worker
reports what happened as a small dict; :func:`verdict` judges it.

Outcomes that pass:

- the call raises ``ValueError`` or ``TypeError`` (``OSError`` for paths; documented subclasses
  included) whose message names the argument (or, for a frame, the column that was broken);
- it returns, with no warning from numpy and no NaN or infinity that the valid call did not have;
  when the battery put NaN, infinity or NaT into the input, a returned result must also have said so
  (a warning, or a non-zero ``dropped`` count).

An *invalid* value (NaN for a count, ``alpha=2``, a string for a number...) must be refused: a
result is a failure there, since the function went on with garbage.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import os
import pickle
import resource
import select
import signal
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

#: memory a case may take beyond its process's size when forked (bytes); more is "unbounded"
CAP_BYTES = 2 << 30
#: seconds a case may run before it counts as a hang
TIMEOUT = 30.0
#: the library's own allocation limit inside a case (perfstudy reads PERFSTUDY_MAX_BYTES)
CASE_MAX_BYTES = 1 << 30
HUGE = 10**12
#: names whose values may be negative or zero without being wrong
SIGNED = {
    "observation",  # a round's log-ratio
    "effect",
    "shift",
    "mu",
    "floor",
    "threshold",
    "margin",
    "lo",
    "statistic",
    "estimate",
    "ddof",
    "load",
    "null",
    "values_a",  # a paired comparison on the difference scale
    "values_b",
    "d",  # log-ratios
    "low",  # an interval's bounds
    "high",
    "estimate_a",  # a statistic on the difference scale
}
#: probabilities and fractions: 0, 1 and beyond are refused
FRACTIONS = {"alpha", "confidence", "objective_probability", "max_fraction", "target_accuracy", "region_width"}
#: fractions for which 1 is a valid value (a whole portion)
UP_TO_ONE = {"portion"}
PATHS = {"path", "source", "paths", "notebooks_dir", "out_dir", "figures_dir", "readme"}


@dataclasses.dataclass(frozen=True)
class Case:
    """One argument of one call replaced by one battery value."""

    param: str
    label: str
    value: object
    invalid: bool  # True: must be refused; False: refused (by name) or a sound result
    poisoned: bool = False  # the value carries NaN, inf or NaT that a result must account for
    names: tuple = ()  # extra words an error message may use to name what was broken (a column)


def _nan_like(x: np.ndarray, fill) -> np.ndarray:
    y = np.array(x, dtype=float, copy=True)
    y[len(y) // 2] = fill
    return y


def battery(param: str, value, annotation: str = "") -> list[Case]:
    """The bad values for one argument, chosen by the kind of its valid ``value``."""
    C = Case
    if param in {"rng", "executor", "progress", "self"}:
        return []  # rng: tests/test_vocabulary.py; executor, progress: presentation and plumbing
    if isinstance(value, (bool, np.bool_)):
        return [C(param, "str", "no", True)]
    if value is None:
        if "int" in annotation:
            return battery(param, 2, annotation)[:4]
        if "float" in annotation:
            return battery(param, 1.5, annotation)[:4]
        return []
    if isinstance(value, (int, np.integer)):
        cases = [C(param, "nan", math.nan, True), C(param, "inf", math.inf, True), C(param, "str", "x", True)]
        cases += [C(param, "2.5", 2.5, True), C(param, "zero", 0, False), C(param, "huge", HUGE, False)]
        cases += [C(param, "negative", -1, param not in SIGNED)]
        return cases
    if isinstance(value, (float, np.floating)):
        if param in FRACTIONS:
            return [C(param, v, float(v), True) for v in ("nan", "0", "1", "1.5", "-0.5")]
        if param in UP_TO_ONE:
            return [C(param, v, float(v), True) for v in ("nan", "0", "1.5", "-0.5")]
        cases = [C(param, "nan", math.nan, True), C(param, "inf", math.inf, True), C(param, "str", "x", True)]
        cases += [C(param, "zero", 0.0, param not in SIGNED and param in POSITIVE), C(param, "huge", 1e300, False)]
        cases += [C(param, "negative", -1.0, param not in SIGNED)]
        return cases
    if isinstance(value, str):
        if param in PATHS:
            return [C(param, "missing", "/proc/perfstudy-no-such-path/x.json", False), C(param, "int", 5, False)]
        return [C(param, "unknown", "no-such-name", False), C(param, "int", 5, False)]
    if isinstance(value, Path):
        return [C(param, "missing", Path("/proc/perfstudy-no-such-path/x.json"), False), C(param, "int", 5, False)]
    if isinstance(value, pd.DataFrame):
        return _frame_battery(param, value)
    if isinstance(value, np.ndarray) or (
        isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, float, np.number)) for v in value)
    ):
        x = np.asarray(value)
        if x.dtype.kind in "fiu" and x.ndim == 1:
            return _sample_battery(param, x, is_tuple=not isinstance(value, np.ndarray))
        return [C(param, "none", None, True)]
    if isinstance(value, (list, tuple)):
        cases = [C(param, "empty", type(value)(), False), C(param, "none", None, False)]
        if value and all(isinstance(v, str) for v in value):
            cases.append(C(param, "unknown", type(value)(["no-such-name"]), False))
        return cases
    if isinstance(value, dict):
        shapes = _json_battery(param, value) if _copyable(value) else []  # a dict of widgets cannot be copied
        return [C(param, "empty", {}, False), C(param, "none", None, False)] + shapes
    if callable(value) and not dataclasses.is_dataclass(value):
        return [C(param, "none", None, True), C(param, "int", 5, True)]
    return [C(param, "none", None, True), C(param, "int", 5, True)]


#: real-valued arguments that must be positive (zero is refused, not merely edge)
POSITIVE = {
    "bandwidth", "target_se", "runlength", "strawman_runlength", "step_hours", "disk_rate", "daemon_rate",
    "service_time", "timeout", "interval", "hours", "increment", "seed_load", "default_seed", "resolution",
}  # fmt: skip


def _sample_battery(param: str, x: np.ndarray, is_tuple: bool) -> list[Case]:
    C = Case
    wrap = (lambda a: tuple(a.tolist())) if is_tuple else (lambda a: a)
    cases = [
        C(param, "empty", wrap(x[:0]), False),
        C(param, "one", wrap(x[:1]), False),
        C(param, "constant", wrap(np.full_like(x, x[0])), False),
        C(param, "strings", ["a"] * len(x), True),
    ]
    if x.dtype.kind == "f" or not is_tuple:
        cases += [
            C(param, "nan", wrap(_nan_like(x, np.nan)), False, poisoned=True),
            C(param, "inf", wrap(_nan_like(x, np.inf)), False, poisoned=True),
        ]
    if not is_tuple:
        cases.append(C(param, "2-d", np.stack([x, x]), False))
    if x.dtype.kind in "iu" or is_tuple:
        cases.append(C(param, "negative", wrap(-np.abs(x) - 1), param not in SIGNED))
    return cases


def _frame_battery(param: str, frame: pd.DataFrame) -> list[Case]:
    C = Case
    cases = [C(param, "empty", frame.iloc[:0], False), C(param, "not-a-frame", 5, True)]
    for column in frame.columns:
        cases.append(C(param, f"no {column}", frame.drop(columns=column), False, names=(str(column),)))
        series = frame[column]
        if series.dtype.kind == "f":
            broken = frame.copy()
            broken.loc[broken.index[len(frame) // 2], column] = np.nan
            cases.append(C(param, f"NaN in {column}", broken, False, poisoned=True, names=(str(column),)))
            text = frame.copy()
            text[column] = text[column].astype(object)
            text.loc[text.index[0], column] = "x"
            cases.append(C(param, f"text in {column}", text, False, names=(str(column),)))
        elif series.dtype.kind == "M":
            broken = frame.copy()
            broken.loc[broken.index[len(frame) // 2], column] = pd.NaT
            cases.append(C(param, f"NaT in {column}", broken, False, poisoned=True, names=(str(column),)))
            text = frame.copy()
            text[column] = text[column].astype(str)
            cases.append(C(param, f"{column} as text", text, False, names=(str(column),)))
        elif series.dtype == object and series.map(lambda v: isinstance(v, str)).all() and len(frame):
            broken = frame.copy()
            broken[column] = broken[column].astype(object)
            broken.loc[broken.index[len(frame) // 2], column] = np.nan
            cases.append(C(param, f"NaN label in {column}", broken, False, poisoned=True, names=(str(column),)))
    return cases


def _copyable(node) -> bool:
    import copy

    try:
        copy.deepcopy(node)
    except Exception:  # ipywidgets refuse to be copied (NotImplementedError)
        return False
    return True


def _json_battery(param: str, data: dict, limit: int = 24) -> list[Case]:
    """Well-formed JSON with the wrong shapes: each field of the top level and of the first element of
    each list replaced by None, a number, a string, a list, a dict; numbers replaced by NaN."""
    import copy

    cases = []

    def visit(node, path):
        if len(cases) >= limit or len(path) > 4:
            return
        if isinstance(node, dict):
            for key in list(node)[:8]:
                for label, bad in (("None", None), ("5", 5), ("str", "x"), ("list", []), ("dict", {})):
                    mutated = copy.deepcopy(data)
                    _set(mutated, path + (key,), bad)
                    cases.append(Case(param, f"{'/'.join(map(str, path + (key,)))}={label}", mutated, False))
                visit(node[key], path + (key,))
        elif isinstance(node, list) and node:
            if isinstance(node[0], (int, float)) and not isinstance(node[0], bool):
                mutated = copy.deepcopy(data)
                _set(mutated, path + (0,), math.nan)
                cases.append(Case(param, f"{'/'.join(map(str, path))}[0]=NaN", mutated, False, poisoned=True))
            visit(node[0], path + (0,))

    visit(data, ())
    return cases[:limit]


def _set(node, path, value):
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


# ---- running one case in a child ------------------------------------------------------------------------------


def nonfinite(result, depth: int = 0) -> int:
    """Count of NaN/inf numbers anywhere in a result (dataclasses, frames, arrays, containers)."""
    if depth > 6:
        return 0
    if isinstance(result, (bool, np.bool_, str, bytes)) or result is None:
        return 0
    if isinstance(result, (float, np.floating, int, np.integer)):
        return 0 if np.isfinite(float(result)) else 1
    if isinstance(result, np.ndarray):
        return int((~np.isfinite(result)).sum()) if result.dtype.kind in "fc" else 0
    if isinstance(result, pd.DataFrame):
        numeric = result.select_dtypes("number")
        return int((~np.isfinite(numeric.to_numpy(dtype=float))).sum()) if numeric.size else 0
    if isinstance(result, pd.Series):
        return nonfinite(result.to_numpy(), depth + 1) if result.dtype.kind in "fc" else 0
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return sum(nonfinite(getattr(result, f.name), depth + 1) for f in dataclasses.fields(result))
    if isinstance(result, dict):
        return sum(nonfinite(v, depth + 1) for v in result.values())
    if isinstance(result, (list, tuple)):
        return sum(nonfinite(v, depth + 1) for v in result[:1000])
    return 0


def _dropped(result) -> int:
    for name in ("dropped",):
        value = getattr(result, name, None)
        if isinstance(value, (int, np.integer)):
            return int(value)
    if isinstance(result, pd.DataFrame):
        if "dropped" in result.columns:
            return int(pd.to_numeric(result["dropped"], errors="coerce").fillna(0).sum())
        return int(result.attrs.get("dropped", 0) or 0)
    return 0


def _perform(fn, args, kwargs) -> dict:
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
        except MemoryError as error:
            return dict(kind="memory", message=str(error))
        except BaseException as error:  # noqa: BLE001 - the point is to see every kind
            return dict(
                kind="raise",
                types=[t.__name__ for t in type(error).__mro__],
                message=str(error)[:2000],
                where=traceback.format_exc(limit=-3)[-1500:],
                code=getattr(error, "code", None),
            )
        finally:
            plt.close("all")
    numpy_warnings = [
        f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})"
        for w in caught
        if issubclass(w.category, RuntimeWarning) and "perfstudy" not in w.filename
    ]
    told = [str(w.message)[:200] for w in caught if "perfstudy" in w.filename or issubclass(w.category, UserWarning)]
    return dict(kind="return", nonfinite=nonfinite(result), dropped=_dropped(result), numpy=numpy_warnings, told=told)


def _vm_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _worker(jobs, orders: int, reports: int) -> None:
    """A forked worker's loop: read a case's index from ``orders``, run that job on its own deep copy of the
    arguments under the memory cap, write its outcome to ``reports`` (a length, then the pickle); stop at -1."""
    os.environ["PERFSTUDY_MAX_BYTES"] = str(CASE_MAX_BYTES)
    limit = _vm_bytes() + CAP_BYTES
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    while len(order := os.read(orders, 4)) == 4 and (index := int.from_bytes(order, "little", signed=True)) >= 0:
        fn, args, kwargs = jobs[index]
        try:
            try:
                args, kwargs = copy.deepcopy((args, kwargs))  # no case sees what another did to its input
            except Exception:  # noqa: BLE001 - widgets and the like cannot be copied; they are not mutated
                pass
            out = _perform(fn, args, kwargs)
        except BaseException as error:  # noqa: BLE001
            out = dict(kind="crash", message=repr(error))
        payload = pickle.dumps(out)
        message = memoryview(len(payload).to_bytes(8, "little") + payload)
        while message:
            message = message[os.write(reports, message) :]


def _read_report(fd: int) -> dict | None:
    """One outcome from a worker's ``reports`` pipe, or None at its end (the worker died)."""
    head = b""
    while len(head) < 8:
        chunk = os.read(fd, 8 - len(head))
        if not chunk:
            return None
        head += chunk
    size, body = int.from_bytes(head, "little"), bytearray()
    while len(body) < size:
        chunk = os.read(fd, min(size - len(body), 1 << 20))
        if not chunk:
            return None
        body.extend(chunk)
    return pickle.loads(bytes(body))


def run_forked(jobs, *, parallel: int = 2, timeout: float = TIMEOUT) -> list[dict]:
    """Run ``jobs`` (``(fn, args, kwargs)`` triples) in ``parallel`` forked workers, a case at a time each;
    return the outcome dicts in order. A case that outlives ``timeout`` is killed with its worker (``hang``);
    a worker that dies, hangs or runs out of memory is replaced by a fresh fork for the cases left."""
    outcomes: list[dict | None] = [None] * len(jobs)
    pending = list(range(len(jobs)))
    workers: dict[int, list] = {}  # reports fd -> [pid, orders fd, index, start]

    def start_worker() -> int:
        orders_read, orders_write = os.pipe()
        reports_read, reports_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            os.close(orders_write)
            os.close(reports_read)
            try:
                _worker(jobs, orders_read, reports_write)
            finally:
                os._exit(0)
        os.close(orders_read)
        os.close(reports_write)
        workers[reports_read] = [pid, orders_write, None, 0.0]
        return reports_read

    def give(fd):
        worker = workers[fd]
        if pending:
            worker[2], worker[3] = pending.pop(0), time.monotonic()
            os.write(worker[1], worker[2].to_bytes(4, "little", signed=True))
        else:
            stop(fd, kill=False)

    def stop(fd, *, kill: bool):
        pid, orders, _, _ = workers.pop(fd)
        if kill:
            os.kill(pid, signal.SIGKILL)
        else:
            os.write(orders, (-1).to_bytes(4, "little", signed=True))
        os.close(orders)
        os.close(fd)
        os.waitpid(pid, 0)

    while pending or workers:
        while pending and len(workers) < parallel:
            give(start_worker())
        ready, _, _ = select.select(list(workers), [], [], 0.2)
        for fd in ready:
            index, start = workers[fd][2], workers[fd][3]
            outcome = _read_report(fd)
            if outcome is None:
                outcome = dict(kind="died", message="the case's process ended with no report")
            outcome["seconds"] = time.monotonic() - start
            outcomes[index] = outcome
            if outcome["kind"] in ("died", "memory", "crash"):
                stop(fd, kill=True)  # a fresh worker for what is left: nothing of this case's state carries on
            else:
                give(fd)
        now = time.monotonic()
        for fd, (_, _, index, start) in list(workers.items()):
            if now - start > timeout:
                stop(fd, kill=True)
                outcomes[index] = dict(kind="hang", message=f"still running after {timeout:.0f} s", seconds=timeout)
    return outcomes


ALLOWED = ("ValueError", "TypeError")


def verdict(case: Case | None, outcome: dict, baseline_nonfinite: int, allowed=ALLOWED) -> str | None:
    """None if the outcome is acceptable for the case, else a one-line reason."""
    kind = outcome["kind"]
    if kind in ("hang", "memory", "died", "crash"):
        return f"{kind}: {outcome.get('message', '')[:300]}"
    if kind == "raise":
        types = outcome["types"]
        if case is None:
            return f"valid call raised {types[0]}: {outcome['message'][:300]}"
        ok = set(allowed) | ({"OSError"} if case.param in PATHS else set())
        if not ok & set(types):
            return f"internal {types[0]}: {outcome['message'][:200]} | {outcome['where'][-300:]!r}"
        message = outcome["message"]
        # the argument's name, or its value when that is distinctive ("no-such-name", 1000000000000)
        value = repr(case.value) if isinstance(case.value, (str, int, float)) else ""
        named = (case.param,) + case.names + ((value, value.strip("'")) if len(value) >= 4 else ())
        if not any(name in message for name in named):
            return f"{types[0]} does not name {case.param!r}: {message[:200]}"
        return None
    # returned
    if outcome["numpy"]:
        return f"numpy warning: {outcome['numpy'][0][:200]}"
    if case is None:
        return None
    if case.invalid:
        return "returned a result for an invalid value"
    if baseline_nonfinite == 0 and outcome["nonfinite"] and not outcome["told"]:
        return f"silent NaN/inf: {outcome['nonfinite']} non-finite numbers in the result"
    if case.poisoned and not outcome["told"] and not outcome["dropped"] and not outcome["nonfinite"]:
        return "NaN/inf/NaT in the input vanished without a word"
    return None
