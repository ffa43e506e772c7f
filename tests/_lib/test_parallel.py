from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest

from perfstudy._lib.parallel import map_tasks
from perfstudy.design.model import PERFLAB_ENDPOINTS
from perfstudy.design.simulated_errors import standard_error_sweep


def _draw(task, rng):
    return task, rng.standard_normal(3)


def test_map_tasks_keeps_order_and_streams():
    serial = map_tasks(_draw, range(5), rng=42)
    with ThreadPoolExecutor(3) as pool:
        threaded = map_tasks(_draw, range(5), rng=42, executor=pool)
    assert [t for t, _ in serial] == list(range(5))
    for (ta, a), (tb, b) in zip(serial, threaded):
        assert ta == tb and np.array_equal(a, b)
    # the streams are distinct
    assert not np.array_equal(serial[0][1], serial[1][1])


def test_map_tasks_rejects_non_executors():
    with pytest.raises(TypeError, match="executor"):
        map_tasks(_draw, range(2), executor=object())


def test_sweep_is_identical_on_a_process_pool():
    kwargs = dict(hosts=(4,), requests=(16, 32), experiments=50, rng=9)
    serial = standard_error_sweep(PERFLAB_ENDPOINTS[2], **kwargs)
    with ProcessPoolExecutor(2) as pool:
        pooled = standard_error_sweep(PERFLAB_ENDPOINTS[2], executor=pool, **kwargs)
    assert np.array_equal(serial.empirical_se, pooled.empirical_se)


def test_sweep_bad_input():
    with pytest.raises(ValueError, match="designs="):
        standard_error_sweep(PERFLAB_ENDPOINTS[1], designs=["x"], experiments=10)
    with pytest.raises(ValueError, match="experiments"):
        standard_error_sweep(PERFLAB_ENDPOINTS[1], experiments=1)
    with pytest.raises(ValueError, match="hosts"):
        standard_error_sweep(PERFLAB_ENDPOINTS[1], hosts=(3,), experiments=10)


def test_twin_streams_draw_the_same_numbers_and_advance_the_parent_once():
    import numpy as np

    from perfstudy._lib.parallel import twin_streams

    parent = np.random.default_rng(5)
    a, b = (np.random.default_rng(s).normal(size=4) for s in twin_streams(2, rng=parent))
    assert np.array_equal(a, b)
    following = np.random.default_rng(twin_streams(1, rng=parent)[0]).normal(size=4)
    assert not np.array_equal(a, following)  # the parent moved on: the next twins differ
    again = np.random.default_rng(twin_streams(1, rng=5)[0]).normal(size=4)
    assert np.array_equal(a, again)  # and a seed reproduces them
