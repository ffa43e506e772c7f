"""Names for what many public signatures take, so that an annotation says the same thing everywhere.

- :data:`Seed`: ``rng=`` (DESIGN.md, "Vocabulary"): None, an int, a SeedSequence, a BitGenerator or a
  Generator, passed to :func:`numpy.random.default_rng`.
- :data:`Executor`: ``executor=``: any :class:`concurrent.futures.Executor`, or None to run here.
"""

from __future__ import annotations

import concurrent.futures

import numpy as np

__all__ = ["Seed", "Executor"]

Seed = int | np.integer | np.random.Generator | np.random.SeedSequence | np.random.BitGenerator | None
Executor = concurrent.futures.Executor | None
