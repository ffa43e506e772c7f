"""Hosts of a run beyond this machine: Dask workers, each running its share of a round's batches."""

from __future__ import annotations

import time
import warnings
from datetime import UTC, datetime
from typing import Any

from perfstudy.experiment.batches import time_batch


class _Hosts:
    """Rounds on Dask workers, each worker a host running one round at a time (its batches in the round's
    order, each batch a task pinned to the worker)."""

    #: seconds to wait for a scheduler to answer
    TIMEOUT = 10.0

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster
        self.lost: list[dict] = []  # each host lost during the run: host, round, at (ISO 8601, UTC)

    @classmethod
    def connect(cls, address: str) -> _Hosts:
        if not isinstance(address, str) or not address.strip():
            raise ValueError(f"scheduler={address!r}: expected a Dask scheduler address or 'local:N'")
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            from perfstudy._lib.extras import install_hint

            raise ImportError(f"scheduler: needs Dask: {install_hint('dask')}") from None
        if address.startswith("local:"):
            count = address.split(":", 1)[1]
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"scheduler={address!r}: expected local:N with N workers, e.g. local:2")
            # dashboard_address=None turns the dashboard off (distributed's annotation says str)
            settings: dict[str, Any] = dict(dashboard_address=None, silence_logs=40)
            cluster = LocalCluster(n_workers=int(count), threads_per_worker=1, processes=True, **settings)
            return cls(Client(cluster), cluster)
        try:
            client = Client(address, timeout=cls.TIMEOUT)
        except (OSError, TimeoutError) as error:
            raise ConnectionError(
                f"scheduler={address!r}: no Dask scheduler answered within {cls.TIMEOUT:g} s ({error})"
            ) from None
        return cls(client)

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def rounds(self, *, commands, template, seed, first, wanted, should_stop):
        """Rounds on the workers (module text), as :func:`perfstudy.experiment._rounds._local_rounds` yields them.

        A worker that leaves (killed, its machine gone) costs its round: the batch pinned to it is cancelled (or, ended
        but its result not yet fetched, waited for at most :data:`_POLL` seconds, then dropped alike), the
        round dropped whole (A and B stay balanced), the loss said and kept in :attr:`lost`; the other workers go
        on, and with none left the run stops with a :class:`ConnectionError` naming them. Once the run is asked to
        stop, the batches in flight are waited for at most :func:`_grace` seconds, then cancelled."""
        from distributed import wait

        from perfstudy.experiment._files import NAMES
        from perfstudy.experiment._rounds import _batch, _order

        workers = sorted(self.client.scheduler_info()["workers"])
        next_round = first
        state = {}  # future -> (worker, round, position, order, finished rows)
        longest = 0.0  # the longest batch so far, in seconds
        asked = None  # when the run was asked to stop

        def submit(worker, round_number, position, order, finished):
            version = NAMES[order[position]]
            batch = _batch(template, commands, version, round_number, position, seed)
            future = self.client.submit(time_batch, batch, workers=[worker], allow_other_workers=False, pure=False)
            state[future] = (worker, round_number, position, order, finished, time.monotonic())

        started = 0
        for worker in workers:
            if started < wanted and not should_stop():
                submit(worker, next_round, 0, _order(seed, next_round), {})
                next_round, started = next_round + 1, started + 1
        looked = time.monotonic()
        while state:
            try:
                done, _ = wait(list(state), timeout=_POLL, return_when="FIRST_COMPLETED")  # pyright: ignore[reportGeneralTypeIssues]  # a sync client: a pair of sets
            except TimeoutError:
                done = set()
            if time.monotonic() - looked >= _POLL:  # while the others end batches too
                looked = time.monotonic()
                started -= self._drop_lost(state, workers)  # a dropped round is run again on another host
            if not done:
                if asked is None and should_stop():
                    asked = time.monotonic()
                if asked is not None and time.monotonic() - asked > _grace(longest):
                    self._end_in_flight(state)  # the run was asked to stop: it does, within a bounded time
                continue
            for future in done:
                if future not in state:  # dropped with its worker just now, by _drop_lost above
                    continue
                try:  # a batch that ended on a worker lost before its result was fetched never yields it
                    result = future.result(timeout=_POLL)
                except TimeoutError:
                    continue  # pending again (its worker gone): _drop_lost drops its round once the scheduler knows
                worker, round_number, position, order, finished, submitted = state.pop(future)
                longest = max(longest, time.monotonic() - submitted)
                yield None, result
                finished[NAMES[order[position]]] = list(result.rows)
                if position + 1 < len(NAMES) and result.status == 0:
                    submit(worker, round_number, position + 1, order, finished)
                    continue
                if len(finished) == len(NAMES):
                    yield finished, None
                if started < wanted and not should_stop():
                    submit(worker, next_round, 0, _order(seed, next_round), {})
                    next_round, started = next_round + 1, started + 1

    def _end_in_flight(self, state: dict) -> None:
        """End the batches in flight: their commands' process groups on every worker
        (:func:`perfstudy.experiment.batches.stop_running`), then their tasks."""
        from perfstudy.experiment.batches import stop_running

        self.client.run(stop_running, on_error="ignore")  # a worker lost meanwhile has nothing to stop
        for future in list(state):
            future.cancel()
            state.pop(future)

    def _drop_lost(self, state: dict, workers: list) -> int:
        """Cancel the batches of workers the scheduler no longer has, saying so (:attr:`lost`), and return how many
        rounds were dropped; refuse to go on when no worker of the run is left."""
        live = set(self.client.scheduler_info()["workers"])
        dropped = 0
        for future, (worker, round_number, *_rest) in list(state.items()):
            if worker in live:
                continue
            future.cancel()
            state.pop(future)
            dropped += 1
            when = datetime.now(UTC).isoformat(timespec="seconds")
            self.lost.append(dict(host=worker, round=round_number, at=when))
            warnings.warn(
                f"host {worker} was lost at {when}: its round {round_number} is dropped (and run again), and the run goes on with "
                f"{len(set(workers) & live)} host(s)",
                RuntimeWarning,
                stacklevel=2,
            )
        if not set(workers) & live:
            lost = ", ".join(sorted({entry["host"] for entry in self.lost}))
            raise ConnectionError(
                f"scheduler: every host of the run was lost ({lost}); the rounds that ended are in the run's file, "
                "and --resume continues it once workers are back"
            )
        return dropped


#: seconds between looks at the batches in flight and the workers
_POLL = 1.0


def _grace(longest: float) -> float:
    """How long a run asked to stop waits for its batches in flight: twice the longest batch so far, at least 10 s
    and at most 120 s."""
    return min(max(10.0, 2 * longest), 120.0)
