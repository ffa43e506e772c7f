"""The accuracy of two KDEs' overlap: a wider bandwidth smooths, and the binned and exact KDEs agree."""

import numpy as np
import pytest


def test_bandwidth_factor_smooths_and_both_kdes_agree():
    from perfstudy.stability.pt4cloud import accuracy

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=800), rng.normal(0.3, 1.2, size=900)
    assert accuracy(a, b) == accuracy(a, b, bandwidth_factor=1.0)
    wide = accuracy(a, b, bandwidth_factor=2.0)
    assert wide > accuracy(a, b)
    assert wide == pytest.approx(accuracy(a, b, bandwidth_factor=2.0, method="exact"), abs=2e-3)
    with pytest.raises(ValueError, match="bandwidth_factor=0"):
        accuracy(a, b, bandwidth_factor=0)
