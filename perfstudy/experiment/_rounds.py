"""The rounds of a run on this machine: interleaved (:func:`_local_rounds`) or side by side (:func:`_duet_rounds`),
each version's place in a round drawn from the seed (:func:`_order`), and one version's batch of a round
(:func:`_batch`). A scheduler's rounds (:mod:`perfstudy.experiment._hosts`) use the same order and batches."""

from __future__ import annotations

import numpy as np

from perfstudy.experiment._files import NAMES
from perfstudy.experiment.batches import Batch, time_batch
from perfstudy.experiment.settings import _cpus

__all__ = ["_batch", "_duet_rounds", "_local_rounds", "_order", "_padding"]


def _order(seed: int, round_number: int) -> list[int]:
    """The versions' order in a round: a permutation drawn from ``(seed, round)`` (the same on resume)."""
    return list(np.random.default_rng([seed, round_number]).permutation(len(NAMES)))


def _local_rounds(*, commands, template, seed, first, wanted, should_stop):
    """Rounds on this machine, one after the other: yields ``(None, BatchResult)`` after each batch and
    ``({version: rows}, None)`` after each round."""
    for round_number in range(first, first + wanted):
        if should_stop():
            return
        finished = {}
        for position, index in enumerate(_order(seed, round_number)):
            version = NAMES[index]
            result = time_batch(_batch(template, commands, version, round_number, position, seed))
            yield None, result
            finished[version] = list(result.rows)
            if should_stop(within=True) and position < len(NAMES) - 1:
                return
        yield finished, None


def _duet_rounds(*, commands, template, seed, first, wanted, should_stop):
    """Duet rounds on this machine (:func:`perfstudy.experiment.batches.time_duet`): A and B at once, in two
    halves with their places swapped, so that each version's batch holds runs from both.

    A place (slot 0 or 1) is everything that could favour one side: its CPU, its thread, and with it who is
    first through the barrier. On this project's 2-vCPU VM the slot that ran a loop in 35 ms alone ran it in
    53 ms beside the other: a slot effect of +-40% on every round's B/A, which drawn at random is fair but
    leaves the rounds bimodal and the sign rule without power. So a round runs the duet twice, the places
    swapped between the halves (a crossover), and each version's batch is its runs in both places: the slot
    effect falls on A and B alike. Which half comes first is drawn for the round from ``seed`` (the order of
    :func:`_order`), so that under A/A the round's B/A is symmetric about 0. ``position`` records each run's
    slot."""
    from perfstudy.experiment.batches import time_duet

    pair = tuple(_cpus()[:2])
    for round_number in range(first, first + wanted):
        if should_stop():
            return
        order = _order(seed, round_number)  # the first half's slots: order[i] is the version in slot i
        halves = []
        for versions in ([NAMES[i] for i in order], [NAMES[i] for i in reversed(order)]):
            batches = [
                _batch(template, commands, v, round_number, position, seed) for position, v in enumerate(versions)
            ]
            results = time_duet(batches[0], batches[1], cpus=(pair[0], pair[1]))  # type: ignore[arg-type]
            halves.append(dict(zip(versions, results)))
            if any(result.status != 0 for result in results) or should_stop(within=True):
                break
        merged = {version: _joined([half[version] for half in halves]) for version in NAMES}
        for version in NAMES:
            yield None, merged[version]
        yield {version: list(merged[version].rows) for version in NAMES}, None


def _joined(results: list):
    """A version's batch of a duet round: the runs of its halves, one batch (its first failure's status)."""
    from perfstudy.experiment.batches import BatchResult

    if len(results) == 1:
        return results[0]
    failed = next((r for r in results if r.status != 0), None)
    start, end = min(r.start for r in results), max(r.end for r in results)
    rows = tuple({**row, "start": start, "end": end} for r in results for row in r.rows)
    return BatchResult(
        rows=rows,
        status=failed.status if failed else 0,
        stderr=failed.stderr if failed else "",
        start=start,
        end=end,
        host=results[0].host,
    )


def _batch(template: Batch, commands, version: str, round_number: int, position: int, seed: int) -> Batch:
    """The batch of ``version`` in a round: the run's template with the version's command and place, and with
    layout randomised (``template.layout`` not None) its padding (:func:`_padding`)."""
    import dataclasses

    command = commands[version]
    return dataclasses.replace(
        template,
        version=version,
        command=command,
        round=round_number,
        position=position,
        startup=template.startup if not callable(command) else 0.0,
        cpu_startup=template.cpu_startup if not callable(command) else 0.0,
        layout=None if template.layout is None or callable(command) else _padding(seed, round_number, version),
    )


#: the largest padding of a batch's environment, in bytes: a page, so that every offset of the stack's start within
#: a page, and every alignment, is drawn
MOST_PADDING = 4095


def _padding(seed: int, round_number: int, version: str) -> int:
    """A batch's padding of its environment (0 to :data:`MOST_PADDING` bytes), drawn from ``(seed, round,
    version)``: the same on resume and on any host, independent between A and B and from round to round."""
    return int(np.random.default_rng([seed, round_number, NAMES.index(version), 1]).integers(0, MOST_PADDING + 1))
