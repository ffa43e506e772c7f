"""``Seed`` names every kind of ``rng=`` that numpy's default_rng takes, and the same seed gives the same draws."""

import typing

import numpy as np

from perfstudy._lib.types import Seed


def test_every_kind_a_seed_may_be_is_one_default_rng_takes():
    examples = {
        int: 3,
        np.integer: np.int64(3),
        np.random.Generator: np.random.default_rng(3),
        np.random.SeedSequence: np.random.SeedSequence(3),
        np.random.BitGenerator: np.random.PCG64(3),
        type(None): None,
    }
    assert set(typing.get_args(Seed)) == set(examples)
    draws = {kind: np.random.default_rng(value).random() for kind, value in examples.items()}
    seeded = {draws[int], draws[np.integer], draws[np.random.SeedSequence], draws[np.random.BitGenerator]}
    assert len(seeded) == 1  # the same seed, given four ways, is one stream
