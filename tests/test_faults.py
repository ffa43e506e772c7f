"""Faults: an unwritable cache, a download cut halfway, two processes filling one cache,
a report interrupted or pointed at a folder it cannot write, a corrupt notebook, a refused record.

The network is never used: ``urllib.request.urlopen`` is replaced by a fake that serves the real
file of a dataset from the shared mirror, whole, cut halfway, or slowly.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfstudy.io import datasets
from perfstudy.io.datasets import DataUnavailableError
from perfstudy.notebook.records import Recorder, load_records

NAME = "pt4cloud-AWS-EP-L"  # a small registered file (a few hundred kB)
MIRROR = os.environ.get("PERFSTUDY_DATA", "")  # read before any test takes it away


def _source() -> Path:
    mirror = MIRROR
    path = Path(mirror) / datasets.registry()[NAME].path if mirror else None
    if path is None or not path.is_file():
        pytest.skip("the shared dataset mirror ($PERFSTUDY_DATA) is needed to serve the fake download")
    return path


class _Response(io.BytesIO):
    """A fake HTTP response: ``fail_after`` bytes then a reset connection, or ``delay`` s per block."""

    def __init__(self, data: bytes, fail_after: int | None = None, delay: float = 0.0, interrupt: bool = False):
        super().__init__(data)
        self.fail_after, self.delay, self.interrupt = fail_after, delay, interrupt

    def read(self, size=-1):
        if self.fail_after is not None and self.tell() >= self.fail_after:
            if self.interrupt:
                raise KeyboardInterrupt
            raise ConnectionResetError(104, "Connection reset by peer")
        time.sleep(self.delay)
        return super().read(min(size, 1 << 16) if size and size > 0 else 1 << 16)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """No mirror, an empty cache of this test's own."""
    monkeypatch.delenv("PERFSTUDY_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "perfstudy"


def _serve(monkeypatch, data: bytes, **kwargs):
    monkeypatch.setattr(datasets.urllib.request, "urlopen", lambda url, timeout=None: _Response(data, **kwargs))


def _leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.rglob("*") if p.is_file()) if cache.exists() else []


def test_an_unwritable_cache_is_refused_with_a_message(tmp_path, monkeypatch):
    source = _source()
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be")  # unwritable even for root
    monkeypatch.delenv("PERFSTUDY_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    _serve(monkeypatch, source.read_bytes())
    with pytest.raises(DataUnavailableError, match="cannot be written"):
        datasets.locate(NAME)


@pytest.mark.parametrize("interrupt", [False, True], ids=["connection reset", "KeyboardInterrupt"])
def test_a_download_cut_halfway_is_never_taken_for_the_dataset(empty_cache, monkeypatch, interrupt):
    data = _source().read_bytes()
    _serve(monkeypatch, data, fail_after=len(data) // 2, interrupt=interrupt)
    with pytest.raises(KeyboardInterrupt if interrupt else DataUnavailableError):
        datasets.locate(NAME)
    assert _leftovers(empty_cache) == []  # no dataset file, and no .part left behind
    # the next attempt, whole, is verified by sha256 and kept
    _serve(monkeypatch, data)
    path = datasets.locate(NAME)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == datasets.registry()[NAME].sha256
    assert _leftovers(empty_cache) == [path.name]


def test_a_corrupt_download_is_refused_and_removed(empty_cache, monkeypatch):
    data = bytearray(_source().read_bytes())
    data[100] ^= 0xFF
    _serve(monkeypatch, bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        datasets.locate(NAME)
    assert _leftovers(empty_cache) == []


def _load_in_child(queue):
    try:
        frame = datasets.load(NAME)
        queue.put(("ok", len(frame)))
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        queue.put(("error", repr(error)))


def test_two_processes_fill_an_empty_cache_at_once(empty_cache, monkeypatch):
    data = _source().read_bytes()
    _serve(monkeypatch, data, delay=0.02)  # slow enough that both downloads overlap
    context = multiprocessing.get_context("fork")  # the children inherit the fake urlopen
    queue = context.Queue()
    children = [context.Process(target=_load_in_child, args=(queue,)) for _ in range(2)]
    for child in children:
        child.start()
    results = [queue.get(timeout=120) for _ in children]
    for child in children:
        child.join(timeout=60)
    rows = datasets.registry()[NAME].rows
    assert results == [("ok", rows), ("ok", rows)], results
    path = datasets.locate(NAME, download=False)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == datasets.registry()[NAME].sha256
    assert _leftovers(empty_cache) == [path.name]


# ---- the report and the command line ---------------------------------------------------------------------------


def _notebook(folder: Path, name: str, code: str, declared: str = "") -> Path:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    parameters = nbformat.v4.new_code_cell("quick = False\nout_dir = 'build'" + declared)
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters, nbformat.v4.new_code_cell(code)]
    path = folder / f"{name}.ipynb"
    nbformat.write(notebook, path)
    return path


def test_a_corrupt_notebook_fails_alone(tmp_path):
    from perfstudy.notebook.report import execute_notebooks

    folder = tmp_path / "notebooks"
    folder.mkdir()
    _notebook(folder, "01_good", "x = 1")
    (folder / "02_corrupt.ipynb").write_text("{ this is not a notebook")
    _notebook(folder, "03_good", "y = 2")
    runs = execute_notebooks(
        notebooks_dir=folder, out_dir=tmp_path / "out", figures_dir=tmp_path / "fig", html=False, progress=False
    )
    assert [(r.name, r.status) for r in runs] == [("01_good", "ok"), ("02_corrupt", "failed"), ("03_good", "ok")]
    assert "02_corrupt.ipynb" in runs[1].error
    assert [r["status"] for r in json.loads((tmp_path / "out" / "report.json").read_text())] == ["ok", "failed", "ok"]


@pytest.mark.slow  # over 3 s on 2 cores
def test_an_unwritable_out_exits_2_with_one_line_before_anything_runs(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _notebook(folder, "01_marker", f"open({str(tmp_path / 'ran')!r}, 'w').write('ran')")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = subprocess.run(
        [sys.executable, "-m", "perfstudy", "report", "--notebooks", str(folder), "--out", str(blocker / "out"),
         "--no-progress", "--no-html"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("perfstudy report: out_dir=") and "cannot write there" in lines[0]
    assert not (tmp_path / "ran").exists()  # refused before the notebook ran


def _interactive_sigint():
    """In the child before exec: SIGINT as an interactive shell gives it (default action, unblocked). A
    process inherits an ignored SIGINT (POSIX), and Python then leaves Ctrl-C ignored; in the full suite
    this pytest process was found with SIGINT ignored at the OS level after earlier tests (not yet traced;
    Python's signal.getsignal does not show it), so the child would have ignored the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


@pytest.mark.slow  # over 3 s on 2 cores
def test_a_report_interrupted_by_sigint_leaves_no_half_written_report(tmp_path):
    folder = tmp_path / "notebooks"
    folder.mkdir()
    started = tmp_path / "started"
    # a cell of ten minutes: the report must stop within the two minutes below, not wait for the cell to end
    _notebook(folder, "01_slow", f"open({str(started)!r}, 'w').write('1')\nimport time\ntime.sleep(600)")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.json").write_text('[{"name": "earlier", "status": "ok"}]')
    process = subprocess.Popen(
        [sys.executable, "-m", "perfstudy", "report", "--notebooks", str(folder), "--out", str(out), "--no-progress",
         "--no-html"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_interactive_sigint,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert started.exists(), "the notebook never started"
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=120)
    assert process.returncode != 0
    # the earlier report is whole (or the new one would be): never a truncated file, no temporary left
    assert json.loads((out / "report.json").read_text()) == [{"name": "earlier", "status": "ok"}]
    assert not list(out.glob("*.tmp"))


def test_the_atomic_write_keeps_the_old_file_when_interrupted(tmp_path, monkeypatch):
    from perfstudy.notebook import records, report

    target = tmp_path / "report.json"
    target.write_text("old")

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(records.os, "replace", interrupted)  # report.json and the records share one writer
    with pytest.raises(KeyboardInterrupt):
        report._write_atomically(target, "new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_a_refused_value_does_not_poison_the_recorder(tmp_path):
    record = Recorder("r", out_dir=tmp_path)
    record("a", 1.5)
    with pytest.raises(ValueError, match="bad: cannot record"):
        record("bad", math.inf)
    with pytest.raises(TypeError, match="obj: cannot record"):
        record("obj", object())
    record("b", [1, math.nan])
    assert load_records(tmp_path / "r.json") == {"a": 1.5, "b": [1, None]}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


class _SocketThatLosesSignals:
    """A socket whose first ``lost`` polls sleep out their timeout and report nothing although a
    message is waiting: what the asyncio loop sees when ZeroMQ's edge-triggered signal was consumed."""

    def __init__(self, lost, waiting=True):
        self.lost, self.waiting, self.polls = lost, waiting, []

    async def poll(self, timeout_ms):
        import asyncio

        self.polls.append(timeout_ms)
        if len(self.polls) <= self.lost or not self.waiting:
            await asyncio.sleep(timeout_ms / 1000)
            return 0
        return 1


def _patient(socket):
    from perfstudy.notebook._kernel import PatientChannel

    channel = PatientChannel.__new__(PatientChannel)  # its socket is the stand-in, not a zmq one
    channel.socket = socket

    async def recv():
        return {"msg_type": "execute_reply"}

    channel._recv = recv
    return channel


def test_a_reply_whose_signal_was_lost_is_read_within_a_slice_not_at_the_timeout():
    # measured before this channel: under load an execute_reply sat in the client's socket until the
    # cell's timeout (1800 s in a report) ran out; here one lost signal costs one slice of SLICE_S
    import asyncio

    from perfstudy.notebook._kernel import SLICE_S

    socket = _SocketThatLosesSignals(lost=1)
    start = time.monotonic()
    message = asyncio.run(_patient(socket).get_msg(timeout=1800))
    took = time.monotonic() - start
    assert message == {"msg_type": "execute_reply"}
    assert socket.polls == [int(SLICE_S * 1000)] * 2
    assert SLICE_S <= took < SLICE_S + 5  # one slice, plus whatever a loaded machine adds


def test_a_patient_channel_still_gives_up_at_the_timeout():
    import asyncio
    from queue import Empty

    from perfstudy.notebook._kernel import SLICE_S

    socket = _SocketThatLosesSignals(lost=0, waiting=False)
    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(_patient(socket).get_msg(timeout=0.6))
    assert 0.6 <= time.monotonic() - start < 0.6 + 5
    slice_ms = int(SLICE_S * 1000)
    assert socket.polls[:2] == [slice_ms, slice_ms] and max(socket.polls) <= slice_ms  # waits in slices
    assert sum(socket.polls) <= 600  # what is left of the timeout, never more


def test_a_report_reads_replies_through_the_patient_channel(tmp_path, monkeypatch):
    from perfstudy.notebook import _kernel
    from perfstudy.notebook.report import execute_notebooks

    used = []
    get_msg = _kernel.PatientChannel.get_msg

    async def counted(self, timeout=None):
        used.append(timeout)
        return await get_msg(self, timeout)

    monkeypatch.setattr(_kernel.PatientChannel, "get_msg", counted)
    folder = tmp_path / "notebooks"
    folder.mkdir()
    _notebook(folder, "01_good", "x = 1")
    runs = execute_notebooks(
        notebooks_dir=folder, out_dir=tmp_path / "out", figures_dir=tmp_path / "fig", html=False, progress=False
    )
    assert [r.status for r in runs] == ["ok"] and used


@pytest.mark.slow  # four kernels
def test_two_jobs_run_notebooks_at_once_and_one_that_times_the_machine_alone(tmp_path):
    # each notebook writes when it started and ended; ordinary ones overlap, longest first, the one marked alone
    # overlaps none, a corrupt one still fails alone, and the runs come back in the folder's order
    import nbformat

    from perfstudy.notebook.report import execute_notebooks

    folder = tmp_path / "notebooks"
    folder.mkdir()
    log = tmp_path / "log"
    log.mkdir()
    code = "import time, pathlib\nstart = time.time()\ntime.sleep(2)\npathlib.Path({!r}).write_text(f'{{start}} {{time.time()}}')"
    _notebook(folder, "01_a", code.format(str(log / "01_a")))
    timed = _notebook(folder, "02_timed", code.format(str(log / "02_timed")))
    marked = nbformat.read(timed, as_version=4)
    marked.metadata["perfstudy"] = {"alone": True}
    nbformat.write(marked, timed)
    _notebook(folder, "03_b", code.format(str(log / "03_b")))
    (folder / "04_corrupt.ipynb").write_text("{ not a notebook")
    for name, seconds in (("03_b", 10), ("05_c", 20)):  # the longest first: 05_c and 03_b before 01_a (no hint)
        path = folder / f"{name}.ipynb"
        if not path.exists():
            _notebook(folder, name, code.format(str(log / name)))
        hinted = nbformat.read(path, as_version=4)
        hinted.metadata["perfstudy"] = {"seconds": seconds}
        nbformat.write(hinted, path)
    runs = execute_notebooks(
        notebooks_dir=folder, out_dir=tmp_path / "out", figures_dir=tmp_path / "fig", html=False, progress=False,
        jobs=2,
    )  # fmt: skip
    assert [(r.name, r.status) for r in runs] == [
        ("01_a", "ok"),
        ("02_timed", "ok"),
        ("03_b", "ok"),
        ("04_corrupt", "failed"),
        ("05_c", "ok"),
    ]
    spans = {p.name: tuple(map(float, p.read_text().split())) for p in log.iterdir()}

    def overlap(x, y):
        return min(spans[x][1], spans[y][1]) > max(spans[x][0], spans[y][0])

    assert overlap("03_b", "05_c")  # two at once, the two longest first
    assert spans["01_a"][0] >= min(spans["03_b"][1], spans["05_c"][1]) - 0.5  # the shortest waited for a worker
    assert not any(overlap("02_timed", other) for other in ("01_a", "03_b", "05_c"))
    with pytest.raises(ValueError, match="jobs"):
        execute_notebooks(notebooks_dir=folder, out_dir=tmp_path / "out", jobs=0)


@pytest.mark.slow  # over 3 s on 2 cores
def test_a_report_gives_a_parameter_to_the_notebooks_that_declare_it_and_refuses_one_none_declares(tmp_path):
    from perfstudy.notebook.report import execute_notebooks

    folder = tmp_path / "notebooks"
    folder.mkdir()
    seen = tmp_path / "seen"
    _notebook(folder, "01_seeded", f"open({str(seen)!r}, 'w').write(str(seed))", declared="\nseed = 1")
    _notebook(folder, "02_plain", "x = 1")
    kwargs = dict(
        notebooks_dir=folder, out_dir=tmp_path / "out", figures_dir=tmp_path / "fig", html=False, progress=False
    )
    runs = execute_notebooks(parameters={"seed": 7}, **kwargs)
    assert [r.status for r in runs] == ["ok", "ok"] and seen.read_text() == "7"
    with pytest.raises(ValueError, match=r"\['sed'\] declared by none of \['01_seeded', '02_plain'\]"):
        execute_notebooks(parameters={"sed": 7}, **kwargs)
    with pytest.raises(ValueError, match="execute_notebooks' own argument"):
        execute_notebooks(parameters={"quick": True}, **kwargs)
