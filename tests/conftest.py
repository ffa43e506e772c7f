"""Shared helpers for the tests: slow, obvious reference implementations."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# As the Makefile does: the shared mirror beside the checkout, when the caller has not set one.
_SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
if not os.environ.get("PERFSTUDY_DATA") and _SHARED.is_dir():
    os.environ["PERFSTUDY_DATA"] = str(_SHARED)


def brute_force_variance(request, host, batch, version, sigmas) -> float:
    """``c' Sigma c`` with Sigma built observation by observation from the model of Eq. 3.

    Independent of perfstudy's level codes and duplication coefficients: two observations share
    an effect exactly when they share its key (request; host; request, host and batch; host and
    batch), and the noise is shared only with itself.
    """
    n = len(request)
    n1 = sum(version)
    n0 = n - n1
    c = np.array([1.0 / n1 if v == 1 else -1.0 / n0 for v in version])
    keys = {
        "request": list(zip(request)),
        "host": list(zip(host)),
        "request_batch": list(zip(request, host, batch)),
        "host_batch": list(zip(host, batch)),
    }
    cov = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for name, key in keys.items():
                if key[i] == key[j]:
                    cov[i, j] += sigmas[name] ** 2
            if i == j:
                cov[i, j] += sigmas["noise"] ** 2
    return float(c @ cov @ c)


@pytest.fixture(autouse=True)
def _close_figures():
    """Closes the figures a test drew: pyplot's state is global, and open figures pile up over a session."""
    import sys

    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def endpoint1():
    from perfstudy import PERFLAB_ENDPOINTS

    return PERFLAB_ENDPOINTS[1]


@pytest.fixture(scope="session")
def notebook_prefetch(request, tmp_path_factory):
    """Every notebook's quick run that the selected tests read, started ahead once for the session (the papermill
    tests and the browser tests read the same runs: tests/support/notebook_runs.py)."""
    from support.notebook_runs import prefetch, wanted_runs

    yield from prefetch(wanted_runs(request.session.items), tmp_path_factory)
