import io
import os
import re
import subprocess
import urllib.error
from pathlib import Path

import numpy as np
import pytest

from perfstudy import datasets
from perfstudy.datasets import DataUnavailableError, list_datasets, load, locate, registry

REPO = Path(__file__).resolve().parent.parent
# captured before any test isolates the environment
MIRROR = Path(os.environ.get("PERFSTUDY_DATA") or "/nonexistent")
needs_data = pytest.mark.skipif(not MIRROR.is_dir(), reason="PERFSTUDY_DATA does not point at the dataset mirror")


def test_registry_is_well_formed():
    entries = registry()
    assert len(entries) == 39  # 6 Azure VM-noise files + 33 PT4Cloud configurations
    for d in entries.values():
        assert re.fullmatch(r"[0-9a-f]{64}", d.sha256), d.name
        assert re.search(r"/[0-9a-f]{40}/", d.url), f"{d.name}: URL not pinned to a commit"
        assert d.rows > 0 and d.licence and d.citation
    frame = list_datasets()
    assert list(frame.columns) == ["name", "family", "description", "rows", "unit", "licence", "citation"]


@needs_data
@pytest.mark.parametrize("name", sorted(registry()))
def test_every_dataset_loads_verified(name):
    frame = load(name)
    d = registry()[name]
    assert len(frame) == d.rows and np.isfinite(frame.value).all()
    if d.family == "pt4cloud":
        assert (frame.split == "sampled").sum() == d.split_row
        assert frame["index"].is_monotonic_increasing
    else:
        assert frame.groupby("vm").timestamp.apply(lambda t: t.is_monotonic_increasing).all()


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
