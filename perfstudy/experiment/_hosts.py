"""Hosts of a run beyond this machine: Dask workers, each running its share of a round's batches."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass
from perfstudy.experiment.batches import time_batch


class _Hosts:
    """Rounds on Dask workers, each worker a host running one round at a time (its batches in the round's
    order, each batch a task pinned to the worker)."""

    #: seconds to wait for a scheduler to answer
    TIMEOUT = 10.0

    def __init__(self, client, cluster=None):
        self.client, self.cluster = client, cluster

    @classmethod
    def connect(cls, address: str) -> _Hosts:
        if not isinstance(address, str) or not address.strip():
            raise ValueError(f"scheduler={address!r}: expected a Dask scheduler address or 'local:N'")
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ImportError("scheduler: needs Dask (pip install 'perfstudy[dask]')") from None
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
        from distributed import as_completed

        workers = sorted(self.client.scheduler_info()["workers"])
        pending = as_completed()
        next_round = first
        state = {}  # future -> (worker, round, position, order, finished rows)

        from perfstudy.experiment._files import NAMES
        from perfstudy.experiment._rounds import _batch, _order

        def submit(worker, round_number, position, order, finished):
            version = NAMES[order[position]]
            batch = _batch(template, commands, version, round_number, position)
            future = self.client.submit(time_batch, batch, workers=[worker], allow_other_workers=False, pure=False)
            state[future] = (worker, round_number, position, order, finished)
            pending.add(future)

        started = 0
        for worker in workers:
            if started < wanted and not should_stop():
                submit(worker, next_round, 0, _order(seed, next_round), {})
                next_round, started = next_round + 1, started + 1
        for future in pending:
            worker, round_number, position, order, finished = state.pop(future)
            result = future.result()
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
