"""Executor plumbing: one random stream per task, any ``concurrent.futures.Executor``.

Every task gets its own child stream, spawned from the caller's ``rng`` before anything runs, so the
same ``rng`` gives the same results in-process, on a ``ProcessPoolExecutor`` or on a Dask cluster
(``dask.distributed.Client(...).get_executor()``), whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager

import numpy as np
from tqdm.auto import tqdm

__all__ = ["spawn", "map_tasks", "local_executor"]


def spawn(n: int, *, rng=None) -> list[np.random.Generator]:
    """``n`` independent child generators of ``rng``.

    Parameters
    ----------
    n : int
        How many streams.
    rng : None, int, SeedSequence or Generator
        The parent (``numpy.random.default_rng(rng).spawn(n)``).
    """
    return np.random.default_rng(rng).spawn(n)


def map_tasks(
    fn: Callable,
    tasks: Sequence,
    *,
    rng=None,
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
    tasks = list(tasks)
    streams = spawn(len(tasks), rng=rng)
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


@contextmanager
def local_executor(workers: int) -> Iterator[Executor | None]:
    """A process pool of ``workers`` local processes (spawned, so notebooks and threads are safe),
    shut down on exit; ``None`` (run in-process) for ``workers <= 1``.

    Parameters
    ----------
    workers : int
        Processes; 1 or less runs in this process.

    Examples
    --------
    >>> from perfstudy.parallel import local_executor, map_tasks
    >>> with local_executor(1) as executor:
    ...     map_tasks(lambda task, rng: task * 2, [1, 2], executor=executor)
    [2, 4]
    """
    if isinstance(workers, bool) or not isinstance(workers, int):
        raise TypeError(f"workers={workers!r}: expected an integer")
    if workers <= 1:
        yield None
        return
    executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        yield executor
    finally:
        executor.shutdown()
