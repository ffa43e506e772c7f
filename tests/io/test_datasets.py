import io
import os
import re
import subprocess
import urllib.error
from pathlib import Path

import numpy as np
import pytest

from perfstudy.io import datasets
from perfstudy.io.datasets import DataUnavailableError, list_datasets, load, locate, registry

REPO = Path(__file__).resolve().parents[2]
# captured before any test isolates the environment
MIRROR = Path(os.environ.get("PERFSTUDY_DATA") or "/nonexistent")
needs_data = pytest.mark.skipif(not MIRROR.is_dir(), reason="PERFSTUDY_DATA does not point at the dataset mirror")


def test_registry_is_well_formed():
    entries = registry()
    # 6 Azure VM-noise files, 33 PT4Cloud configurations, 25 SAP HANA series and their labels,
    # the CWB suite, 2 Laaber Go projects
    assert len(entries) == 68
    assert len({d.path for d in entries.values()}) == 68
    for d in entries.values():
        assert re.fullmatch(r"[0-9a-f]{64}", d.sha256), d.name
        assert re.search(r"/[0-9a-f]{40}/", d.url), f"{d.name}: URL not pinned to a commit"
        assert d.rows > 0 and d.licence and d.citation
    frame = list_datasets()
    assert list(frame.columns) == ["name", "family", "description", "rows", "unit", "licence", "citation"]


@needs_data
def test_every_mirrored_file_is_registered_with_its_hash():
    sums = dict(line.split()[::-1] for line in (MIRROR / "SHA256SUMS").read_text().splitlines())
    registered = {f"./{d.path}": d.sha256 for d in registry().values()}
    assert registered == sums


@needs_data
@pytest.mark.parametrize("name", sorted(registry()))
def test_every_dataset_loads_verified(name):
    frame = load(name)
    d = registry()[name]
    if d.family == "sap-hana-details":
        assert len(frame) == d.rows
        return
    assert np.isfinite(frame.value).all()
    if d.family == "cwb":
        assert len(frame) == d.rows * len(d.metrics)  # long format: one row per VM iteration and metric
    else:
        assert len(frame) == d.rows
    if d.family == "pt4cloud":
        assert (frame.split == "sampled").sum() == d.split_row
        assert frame["index"].is_monotonic_increasing
    elif d.family == "azure-vm-noise":
        assert frame.groupby("host").timestamp.apply(lambda t: t.is_monotonic_increasing).all()
    elif d.family == "sap-hana":
        assert frame["index"].is_monotonic_increasing and frame.build.is_monotonic_increasing


@needs_data
def test_sap_labels_and_change_points():
    # metadata/dataset_details.csv: five series of each label; 0002 regresses after Index 54
    details = load("sap-hana-details")
    assert details.label.value_counts().to_dict() == {
        label: 5 for label in ["Stable", "Spike", "Regression", "High deviation", "Build-dependent"]
    }
    assert details.set_index("benchmark").change_point.dropna().to_dict() == {
        "0002": 54,
        "0011": 98,
        "0012": 88,
        "0013": 117,
        "0016": 155,
    }
    series = load("sap-hana-0002")
    assert (series.label == "Regression").all()
    assert series.loc[series.after_change, "index"].min() == 55
    assert series.after_change.sum() == 114 - 54  # 114 rows, Index 1..114
    assert not load("sap-hana-0017").after_change.any()  # Stable


@needs_data
def test_cwb_long_format():
    frame = load("cwb-aws-microbench")
    d = registry()["cwb-aws-microbench"]
    assert frame.benchmark.nunique() == len(d.metrics) == 56
    per_host = frame[frame.benchmark == "md-sim-duration"].groupby("host").batch.apply(tuple)
    assert set(per_host) == {(1, 2, 3)} and len(per_host) == 244  # 732 rows = 244 VMs x 3
    # region rule of cwb-data-interim.upstream.md: no prefix or "eu" -> eu-west-1a, "us" -> us-east-1a
    sources = frame.drop_duplicates("host")
    # "aws-us_" sources hold 99 + 105 + 3 + 3 + 3 + 3 = 216 rows = 72 VMs
    assert sources.region.value_counts().to_dict() == {"eu-west-1a": 172, "us-east-1a": 72}
    assert frame.loc[frame.benchmark == "md-sim-duration", "unit"].unique().tolist() == ["seconds"]
    assert frame[frame.config == "m3.medium"].host.nunique() == 96


@needs_data
def test_laaber_repetitions():
    frame = load("laaber-golang-snappy")
    counts = frame.groupby("benchmark").batch.nunique()
    assert len(counts) == 14 and counts.min() >= 142  # ~140 repetitions per benchmark (mirror README)
    lru = load("laaber-hashicorp-golang-lru")
    assert lru.benchmark.nunique() == 6 and (lru.batch.diff().fillna(1) != 0).all()


@needs_data
def test_pt4cloud_matches_the_mirror_readme():
    # ../shared/datasets/README.md: AWS-EP-L mean 48.5079, CoV 1.13%
    frame = load("pt4cloud-AWS-EP-L")
    assert frame.value.mean() == pytest.approx(48.5079, abs=5e-4)
    assert frame.value.std(ddof=0) / frame.value.mean() == pytest.approx(0.0113, abs=5e-5)


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFSTUDY_DATA", str(tmp_path / "mirror"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def _offline(*args, **kwargs):
    raise urllib.error.URLError("network unreachable")


def test_offline_and_missing_says_what_to_set(isolated, monkeypatch):
    monkeypatch.setattr(datasets.urllib.request, "urlopen", _offline)
    with pytest.raises(DataUnavailableError, match="Set PERFSTUDY_DATA"):
        load("pt4cloud-AWS-EP-L")
    with pytest.raises(DataUnavailableError, match="PERFSTUDY_DATA"):
        locate("pt4cloud-AWS-EP-L", download=False)


@needs_data
def test_a_file_with_the_wrong_hash_is_refused(isolated):
    d = registry()["pt4cloud-Chameleon-IMA-L"]
    source = MIRROR / d.path
    target = isolated / "mirror" / d.path
    target.parent.mkdir(parents=True)
    target.write_bytes(source.read_bytes().replace(b"1", b"2", 1))
    with pytest.raises(ValueError, match="refused"):
        load(d.name)


@needs_data
def test_download_verifies_and_caches(isolated, monkeypatch):
    d = registry()["pt4cloud-Chameleon-IMA-L"]
    payload = (MIRROR / d.path).read_bytes()
    calls = []

    def serve(url, timeout):
        calls.append(url)
        return io.BytesIO(payload)

    monkeypatch.setattr(datasets.urllib.request, "urlopen", serve)
    assert len(load(d.name)) == d.rows
    assert calls == [d.url]
    assert (isolated / "cache" / "perfstudy" / d.path).exists()
    load(d.name)
    assert len(calls) == 1  # second load from the cache

    monkeypatch.setattr(datasets.urllib.request, "urlopen", lambda url, timeout: io.BytesIO(b"<html>rate limited"))
    other = registry()["pt4cloud-Chameleon-IMA-M"]
    with pytest.raises(ValueError, match="refused"):
        load(other.name)
    assert not (isolated / "cache" / "perfstudy" / other.path).exists()


def test_load_family():
    with pytest.raises(ValueError, match="no such family"):
        datasets.load_family("sap")


@needs_data
def test_load_family_concatenates():
    frame = datasets.load_family("laaber-go")
    assert frame.groupby("dataset").size().to_dict() == {
        "laaber-golang-snappy": 1990,
        "laaber-hashicorp-golang-lru": 3178,
    }


def test_unknown_dataset():
    with pytest.raises(ValueError, match="did you mean azure-redis-get-long"):
        load("redis-get-long")
    with pytest.raises(ValueError, match="no such dataset"):
        load("zzz")


def test_no_dataset_file_is_in_the_repository():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    hashes = {d.sha256 for d in registry().values()}
    import hashlib

    for name in filter(None, tracked.stdout.split("\0")):
        path = REPO / name
        if path.is_file():
            assert hashlib.sha256(path.read_bytes()).hexdigest() not in hashes, name
