"""Executor plumbing: one random stream per task, any ``concurrent.futures.Executor``.

Every task gets its own child stream, spawned from the caller's ``rng`` before anything runs, so the
same ``rng`` gives the same results in-process, on a ``ProcessPoolExecutor`` or on a Dask cluster
(``dask.distributed.Client(...).get_executor()``), whatever the number of workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, as_completed
from contextlib import contextmanager
from typing import cast

import numpy as np

from perfstudy._lib.checks import check_int
from perfstudy._lib.types import Seed

#: most streams (tasks) one call may spawn
MAX_STREAMS = 10_000_000

__all__ = ["spawn", "twin_streams", "map_tasks", "local_executor"]


def spawn(n: int, *, rng: Seed = None) -> list[np.random.Generator]:
    """``n`` independent child generators of ``rng``.

    Parameters
    ----------
    n : int
        How many streams.
    rng : None, int, SeedSequence or Generator
        The parent (``numpy.random.default_rng(rng).spawn(n)``).
    """
    n = check_int("n", n, minimum=0, maximum=MAX_STREAMS)
    return np.random.default_rng(rng).spawn(n)


def twin_streams(n: int, *, rng: Seed = None) -> list[np.random.SeedSequence]:
    """``n`` equal seed sequences, copies of one child of ``rng``.

    For common random numbers: two computations given twins draw the same numbers, so their
    difference is the computation's alone (e.g. two implementations of one bootstrap on the same
    simulated experiments). ``rng`` advances by one child, as with :func:`spawn`.

    Parameters
    ----------
    n : int
        How many copies.
    rng : None, int, SeedSequence or Generator
        The parent.
    """
    n = check_int("n", n, minimum=0, maximum=MAX_STREAMS)
    seq = cast(np.random.SeedSequence, np.random.default_rng(rng).spawn(1)[0].bit_generator.seed_seq)
    return [np.random.SeedSequence(seq.entropy, spawn_key=seq.spawn_key, pool_size=seq.pool_size) for _ in range(n)]


def map_tasks(
    fn: Callable,
    tasks: Sequence,
    *,
    rng: Seed = None,
    executor: Executor | None = None,
    progress: bool = False,
    desc: str | None = None,
) -> list:
    """Return ``[fn(task, child_rng) for task in tasks]``, possibly on an executor.

    Parameters
    ----------
    fn : callable
        ``fn(task, rng) -> result``; module-level (picklable) when an executor runs it elsewhere.
    tasks : sequence
        The work items, in the order of the results.
    rng : None, int, SeedSequence or Generator
        Parent of the per-task streams.
    executor : concurrent.futures.Executor, optional
        None runs in this process.
    progress : bool
        Show a progress bar over completed tasks.
    desc : str, optional
        Label of the progress bar.
    """
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(f"executor: expected a concurrent.futures.Executor, got {type(executor).__name__}")
    if not callable(fn):
        raise TypeError(f"fn={fn!r}: expected a callable fn(task, rng)")
    try:
        tasks = list(tasks)
    except TypeError:
        raise TypeError(f"tasks: expected a sequence of tasks, got {type(tasks).__name__}") from None
    streams = spawn(len(tasks), rng=rng)
    from tqdm.auto import tqdm  # 35 ms to import: only where tasks are mapped

    bar = tqdm(total=len(tasks), desc=desc, disable=not progress)
    results: list = [None] * len(tasks)
    try:
        if executor is None:
            for i, (task, stream) in enumerate(zip(tasks, streams)):
                results[i] = fn(task, stream)
                bar.update()
        else:
            futures = {executor.submit(fn, task, stream): i for i, (task, stream) in enumerate(zip(tasks, streams))}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                bar.update()
    finally:
        bar.close()
    return results


def local_executor(workers: int):
    """A context manager: a process pool of ``workers`` local processes (spawned, so notebooks and
    threads are safe), shut down on exit; ``None`` (run in-process) for ``workers == 1``. ``workers``
    is checked when this is called, not when the block is entered.

    Parameters
    ----------
    workers : int
        Processes, at least 1; 1 runs in this process.

    Examples
    --------
    >>> from perfstudy._lib.parallel import local_executor, map_tasks
    >>> with local_executor(1) as executor:
    ...     map_tasks(lambda task, rng: task * 2, [1, 2], executor=executor)
    [2, 4]
    """
    return _local_executor(check_int("workers", workers, maximum=4096))


@contextmanager
def _local_executor(workers: int) -> Iterator[Executor | None]:
    if workers == 1:
        yield None
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        yield executor
    finally:
        executor.shutdown()
