"""perfstudy._lib.quantiles against numpy.quantile: the bootstrap percentiles that compare takes without
importing numpy.ma, to the last bit."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from perfstudy._lib.quantiles import linear_quantiles

PROBABILITIES = [0.0, 0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 0.7, 0.95, 0.975, 0.995, 1.0]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 399, 400, 2000])
def test_the_quantiles_are_numpys_bit_for_bit(n):
    rng = np.random.default_rng(n)
    x = rng.lognormal(0.0, 0.3, size=(n, 5)) - 1.0
    x[:, 4] = np.round(x[:, 4], 1)  # ties
    assert np.array_equal(linear_quantiles(x, PROBABILITIES), np.quantile(x, PROBABILITIES, axis=0))
    assert np.array_equal(linear_quantiles(x[:, 0], PROBABILITIES), np.quantile(x[:, 0], PROBABILITIES))


def test_a_column_with_nan_gives_nan_and_the_others_are_untouched():
    x = np.arange(30.0).reshape(10, 3)
    x[4, 1] = np.nan
    got = linear_quantiles(x, [0.025, 0.975])
    assert np.isnan(got[:, 1]).all()
    assert np.array_equal(got[:, [0, 2]], np.quantile(x[:, [0, 2]], [0.025, 0.975], axis=0))


@pytest.mark.parametrize("probabilities", [[1.5], [-0.1], [[0.5]]])
def test_probabilities_outside_zero_to_one_are_refused(probabilities):
    with pytest.raises(ValueError, match="probabilities in \\[0, 1\\]"):
        linear_quantiles(np.ones(4), probabilities)


def test_compare_of_two_go_files_does_not_import_numpy_ma(tmp_path):
    base, new = tmp_path / "base.txt", tmp_path / "new.txt"
    for path, ns in ((base, 100.0), (new, 105.0)):
        lines = [f"BenchmarkX-2 \t1000\t{ns + k % 3:.1f} ns/op\n" for k in range(40)]  # 40 batches: the bootstrap
        path.write_text("goos: linux\n" + "".join(lines) + "PASS\n")
    code = (
        "import sys\nfrom perfstudy.cli import main\n"
        f"try:\n    main(['compare', {str(base)!r}, {str(new)!r}])\nexcept SystemExit:\n    pass\n"
        "print('numpy.ma' in sys.modules, 'pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "\nX-2 " in out and "Welch" not in out
    assert out.strip().splitlines()[-1] == "False False"
