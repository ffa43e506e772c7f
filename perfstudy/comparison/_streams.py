"""A comparison's random streams: one root per comparison, one stream per benchmark and one per layout of
cluster counts, so that a benchmark's draws depend on the seed and its position, never on which other
benchmarks share its layout or on the executor (:mod:`perfstudy.comparison._suite` says why)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from perfstudy._lib.types import Seed

__all__ = ["benchmark_stream", "layout_stream"]


def _streams(rng: Seed) -> np.random.SeedSequence:
    """One child of ``rng``, the root of a comparison's streams (module docstring)."""
    return np.random.default_rng(rng).spawn(1)[0].bit_generator.seed_seq  # type: ignore[return-value]


def _descendant(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size)


def benchmark_stream(root: np.random.SeedSequence, index: int) -> np.random.SeedSequence:
    """Benchmark ``index``'s own stream."""
    return _descendant(root, 0, index)


def layout_stream(root: np.random.SeedSequence, clusters_a: int, clusters_b: int) -> np.random.SeedSequence:
    """The stream of the draws that the benchmarks of one layout share."""
    return _descendant(root, 1, clusters_a, clusters_b)
