"""Readers of the harnesses' own files beyond the first four (:mod:`perfstudy.io` has pyperf,
hyperfine, Google Benchmark and JMH), one module a format: ``go`` (``go test -bench`` text, the
format benchstat reads), ``criterion`` (criterion.rs), ``pytest_benchmark``, ``asv`` and
``benchmarkdotnet``. Each returns perfstudy's tidy schema (:data:`perfstudy.io.COLUMNS` first);
:func:`perfstudy.io.read` detects them.
"""

#: The readers are reached through :mod:`perfstudy.io` (``read``, ``read_go``, ...); nothing is defined here.
__all__: list[str] = []
