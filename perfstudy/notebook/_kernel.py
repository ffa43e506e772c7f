"""A Jupyter kernel client for batch runs that looks at its sockets again instead of waiting for a wake-up.

jupyter_client's asyncio channel waits for a message with one ``socket.poll(timeout)``: the asyncio loop
sleeps until the socket's file descriptor signals. ZeroMQ's descriptor is edge-triggered, and under CPU
load a signal is sometimes consumed before the loop sees it (measured on this project's explorer
notebooks on 2 busy cores: the ``execute_reply`` sat in the client's shell socket while the loop slept,
and papermill went on only when the poll's timeout fired and its final ``poll(0)`` found the reply; with
``execution_timeout=40`` every such cell took 40 s, with the report's 1800 s it looked like a hang; the
kernel had long been idle). :class:`PatientChannel` polls in slices of :data:`SLICE_S`, each ending with
the same ``poll(0)`` look at the socket, so a lost signal costs at most one slice. Nothing else about the
client changes; messages are read in the same order.

``kernel_manager_class=BatchKernelManager`` is passed to papermill (a trait of nbclient's
``NotebookClient``).
"""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous.client import AsyncKernelClient
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type

__all__ = ["SLICE_S", "PatientChannel", "BatchKernelClient", "BatchKernelManager"]

#: longest wait on a socket before looking at it again (seconds)
SLICE_S = 0.25


class PatientChannel(AsyncZMQSocketChannel):
    """An asyncio channel whose ``get_msg`` waits in slices, looking at the socket after each."""

    async def get_msg(self, timeout: float | None = None) -> dict:  # type: ignore[override]
        """The next message; ``Empty`` after ``timeout`` seconds (None: wait for ever).

        Parameters
        ----------
        timeout : float or None
            Seconds to wait in all.
        """
        assert self.socket is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = SLICE_S if deadline is None else min(SLICE_S, max(0.0, deadline - time.monotonic()))
            if await self.socket.poll(int(left * 1000)):
                return await self._recv()
            if deadline is not None and time.monotonic() >= deadline:
                raise Empty


class BatchKernelClient(AsyncKernelClient):
    """An asyncio kernel client whose shell and IOPub channels are :class:`PatientChannel`."""

    shell_channel_class = Type(PatientChannel)  # type: ignore[assignment]
    iopub_channel_class = Type(PatientChannel)  # type: ignore[assignment]


class BatchKernelManager(AsyncKernelManager):
    """nbclient's kernel manager, handing out :class:`BatchKernelClient`."""

    client_class = DottedObjectName("perfstudy.notebook._kernel.BatchKernelClient")
    client_factory = Type(BatchKernelClient, klass=AsyncKernelClient)  # AsyncKernelManager fixes its own default
