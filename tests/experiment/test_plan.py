"""A plan of rounds and hosts from a pilot: the spread it recovers and the rounds that meet the target."""

import pandas as pd
import pytest

from perfstudy.experiment.plan import plan_rounds


def test_plan_from_a_pilot_recovers_the_spread_and_meets_the_target():
    import numpy as np

    rng = np.random.default_rng(1)
    rows = []
    for r in range(40):
        host = f"h{r % 4}"
        for version, level in (("A", 1.0), ("B", 1.0)):
            rows.append(dict(version=version, round=r, value=level * rng.lognormal(0, 0.05), exit_status=0,
                             host=host, start=10.0 * r, end=10.0 * r + 4, warmup=False))  # fmt: skip
    plan = plan_rounds(pd.DataFrame(rows), threshold=0.05)
    # the SD of a round's log B/A is sqrt(2) x 5%, up to sampling error (40 rounds: about 11% relative)
    assert plan.round_sd == pytest.approx(0.05 * 2**0.5, rel=0.35)
    from perfstudy.comparison.sequential import _half_width

    one = plan.table.set_index("hosts").loc[1]
    n = int(one["rounds_per_host"])
    assert _half_width(n, (n - 1) * plan.round_sd**2, 0.05, 1.0) + 1.96 * plan.host_sd <= np.log1p(0.05)
    assert plan.round_time_s == pytest.approx(4.0)
