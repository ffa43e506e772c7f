"""perfstudy.io.criterion against criterion.rs itself, built with Debian's cargo and its packaged crates (offline):
the folder, sample.json and raw.csv read alike and agree with criterion's own estimates."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfstudy.io import read


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600, **kwargs)


# --- criterion.rs, built with Debian's cargo and its packaged crates (offline) -------------------

_REGISTRY = Path("/usr/share/cargo/registry")
needs_criterion = pytest.mark.skipif(
    shutil.which("cargo") is None or not any(_REGISTRY.glob("criterion-0*")),
    reason="cargo or Debian's criterion crate is missing (packages 'cargo', 'librust-criterion-dev'; .ci/run installs them)",
)


@pytest.fixture(scope="module")
def criterion_dir(tmp_path_factory):
    if shutil.which("cargo") is None or not any(_REGISTRY.glob("criterion-0*")):
        pytest.skip("cargo or Debian's criterion crate is missing")
    root = tmp_path_factory.mktemp("criterion")
    (root / "src").mkdir()
    (root / "benches").mkdir()
    (root / ".cargo").mkdir()
    (root / "Cargo.toml").write_text(
        '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2018"\n\n'
        '[dev-dependencies]\ncriterion = { version = "0.3", default-features = false }\n\n'
        '[[bench]]\nname = "demo"\nharness = false\n\n'
        # unoptimised: the files are what is tested, not the code's speed (the build takes 30 s, not 2 min)
        "[profile.bench]\nopt-level = 0\ndebug = false\nincremental = false\n"
    )
    (root / "src" / "lib.rs").write_text("\n")
    (root / "benches" / "demo.rs").write_text(
        textwrap.dedent(
            """\
            use criterion::{black_box, criterion_group, criterion_main, Criterion};
            fn sum(n: u64) -> u64 { (0..n).sum() }
            fn bench(c: &mut Criterion) {
                let mut g = c.benchmark_group("sum");
                g.sample_size(10);
                g.bench_function("n1000", |b| b.iter(|| sum(black_box(1000))));
                g.bench_function("n10", |b| b.iter(|| sum(black_box(10))));
                g.finish();
            }
            criterion_group!(benches, bench);
            criterion_main!(benches);
            """
        )
    )
    (root / ".cargo" / "config.toml").write_text(
        f'[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "{_REGISTRY}"\n[net]\noffline = true\n'
    )
    env = dict(os.environ, CARGO_HOME=str(root / ".cargo"))
    _run(
        ["cargo", "bench", "--bench", "demo", "--", "--warm-up-time", "1", "--measurement-time", "1"], cwd=root, env=env
    )
    return root / "target" / "criterion"


@pytest.mark.slow  # builds a criterion.rs benchmark with cargo (a minute)
@needs_criterion
def test_criterion_folder_sample_and_raw_csv_agree_with_criterions_estimates(criterion_dir):
    frame = read(criterion_dir)
    assert frame.attrs["format"] == "criterion" and sorted(frame.benchmark.unique()) == ["sum/n10", "sum/n1000"]
    for name in ("n10", "n1000"):
        folder = criterion_dir / "sum" / name / "new"
        rows = frame[frame.benchmark == f"sum/{name}"]
        estimates = json.loads((folder / "estimates.json").read_text())
        assert rows.value.mean() == pytest.approx(estimates["mean"]["point_estimate"], rel=1e-9)
        assert len(rows) == 10 and rows.batch.tolist() == list(range(10))
        # raw.csv, which has a value column, is criterion's, not a tidy CSV
        raw = read(folder / "raw.csv")
        assert raw.attrs["format"] == "criterion" and np.allclose(raw.value, rows.value, rtol=1e-12)
        single = read(folder / "sample.json")
        assert single.benchmark.unique().tolist() == [f"sum/{name}"]
