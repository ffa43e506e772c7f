"""perfstudy.io.go's fast path (whole pieces of result lines split at once, numbers converted by numpy)
against its line-by-line reading of benchfmt's rules, the slow obvious implementation."""

from __future__ import annotations

import io

import numpy as np
import pytest

from perfstudy.io import go

HEADER = "goos: linux\ngoarch: amd64\npkg: example.com/a\ncpu: AMD EPYC\n"


def _suite_text(benchmarks: int, runs: int, metrics: int = 1, *, rng=0) -> str:
    rng = np.random.default_rng(rng)
    lines = [HEADER]
    for run in range(runs):
        if run == runs // 2:
            lines.append("note: second half\npkg: example.com/b\n")
        for b in range(benchmarks):
            pairs = "\t".join(
                f"{rng.lognormal(7, 0.02):.1f} {unit}" for unit in ["ns/op", "B/op", "allocs/op"][:metrics]
            )
            lines.append(f"BenchmarkCase{b}-8 \t{1000 + b}\t{pairs}\n")
    lines.append("PASS\nok  \texample.com/a\t1.0s\n")
    return "".join(lines)


def _same(fast: go._Lines, slow: go._Lines) -> None:
    assert fast.names == slow.names
    assert list(fast.units) == list(slow.units)
    np.testing.assert_array_equal(np.asarray(fast.values), np.asarray(slow.values))
    for key in ("iterations", "metric_line", "position", "snapshot"):
        np.testing.assert_array_equal(np.asarray(getattr(fast, key)), np.asarray(getattr(slow, key)), err_msg=key)
    assert fast.snapshots == slow.snapshots and fast.unit_meta == slow.unit_meta and fast.keys == slow.keys


@pytest.mark.parametrize("metrics", [1, 3])
@pytest.mark.parametrize("piece", [64, 1 << 20])  # pieces that cut the file every line or two, and one piece
def test_the_fast_path_reads_what_the_line_by_line_rules_read(monkeypatch, metrics, piece):
    monkeypatch.setattr(go, "PIECE", piece)
    text = _suite_text(7, 4, metrics) + "Unit B/op assume=exact\n"
    _same(go._vectorised(text, "t"), go._line_by_line(text.splitlines(), "t"))


@pytest.mark.parametrize(
    "text",
    [
        "BenchmarkA 5 10 ns/op\nBenchmarkA 6 11 ns/op",  # no final line end
        "\n\nBenchmarkA 5 10 ns/op\n\n\nBenchmarkA 6 11 ns/op\n\n",  # blank lines around and between
        "cpu: x\nBenchmarkA 5 10 ns/op\ncpu:\nBenchmarkA 5 12 ns/op\n",  # a key removed by an empty value
    ],
)
def test_the_fast_path_at_the_edges_of_a_file(text):
    _same(go._vectorised(text, "t"), go._line_by_line(text.splitlines(), "t"))


@pytest.mark.parametrize(
    "text",
    [
        "BenchmarkA 5 10 ns/op 3 B/op\nBenchmarkB 6 11 ns/op\n",  # lines of different widths
        "BenchmarkA\nBenchmarkA 5 10 ns/op\n",  # go test -v's name alone
        "BenchmarkA 5 10 ns/op\r\nBenchmarkA 5 11 ns/op\r\n",  # Windows line ends
        "BenchmarkA x 10 ns/op\n",  # an iteration count that is not a number
        "BenchmarkA 0 10 ns/op\n",  # nor positive
    ],
)
def test_what_the_fast_path_cannot_read_it_leaves_to_the_rules(text):
    """The fast path refuses (so that the line-by-line reading names the line at fault, or reads it)."""
    with pytest.raises(ValueError):
        go._vectorised(text, "t")


def test_a_file_the_fast_path_refuses_still_reads_the_same(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text("BenchmarkA-2 5 10 ns/op 3 B/op\nBenchmarkB 6 11 ns/op\nBenchmarkA-2 5 12 ns/op 4 B/op\n")
    frame = go.read_go(path)
    assert frame.benchmark.tolist() == ["A-2", "A-2 B/op", "B", "A-2", "A-2 B/op"]
    assert frame.batch.tolist() == [0, 0, 0, 1, 1] and frame.value.tolist() == [10, 3, 11, 12, 4]
    bad = tmp_path / "bad.txt"
    bad.write_text("BenchmarkA 5 10 ns/op\nBenchmarkA 5 ten ns/op\n")
    with pytest.raises(ValueError, match=r"bad.txt:2: measurement 'ten' is not a number"):
        go.read_go(bad)


def test_names_and_units_are_shared_objects_one_per_distinct_value():
    """Memory in proportion to the suite, not to its lines: 200,000 copies of "ns/op" held 11 MB."""
    found = go._go_file_columns(io.StringIO(_suite_text(5, 6, metrics=3)))
    assert len({id(u) for u in found.columns["unit"]}) == 3
    # two packages (pkg: changes halfway), three metrics: 30 benchmarks, each name one object
    assert len({id(n) for n in found.columns["benchmark"]}) == len(found.distinct) == 30
    assert found.distinct[:3] == [
        "example.com/a.Case0-8",
        "example.com/a.Case0-8 B/op",
        "example.com/a.Case0-8 allocs/op",
    ]
    assert found.column("batch").tolist() == np.repeat([0, 1, 2, 0, 1, 2], 15).tolist()


def test_go_values_are_checked_by_every_readers_check(tmp_path):
    """A NaN, an infinity or a negative time is refused in the words every reader uses (perfstudy.io.columns), and
    an iteration count beyond int64 by its line, not an OverflowError."""
    from perfstudy.io import file_columns
    from perfstudy.io.go import read_go

    for text, message in [
        ("BenchmarkA-8\t100\tNaN ns/op\n", "1 of 1 values are null, NaN, infinite"),
        ("BenchmarkA-8\t100\t+Inf ns/op\n", "1 of 1 values are null, NaN, infinite"),
        ("BenchmarkA-8\t100\t-5 ns/op\n", "negative value"),
        ("BenchmarkA-8\t123456789012345678901\t10 ns/op\n", ":2: iteration count 123456789012345678901 is not"),
    ]:
        path = tmp_path / "bench.txt"
        path.write_text("goos: linux\n" + text)
        for reader in (file_columns, read_go):
            with pytest.raises(ValueError, match=message):
                reader(path)


def test_compare_files_refuses_labels_that_do_not_tell_a_from_b(tmp_path):
    from perfstudy.comparison import compare_files

    path = tmp_path / "a.txt"
    path.write_text("goos: linux\nBenchmarkA-8\t100\t10 ns/op\n")
    for labels in (("a", "a"), ("", ""), (" ", "b")):
        with pytest.raises(ValueError, match="two different, non-empty names"):
            compare_files(path, path, labels=labels)


def test_go_text_reads_as_a_harness_files_columns(tmp_path):
    """file_columns reads Go text as every harness's columns: each result line a batch, each metric a benchmark,
    the Unit lines' direction by entry; a benchmark in two units is read (compare converts them)."""
    from perfstudy.io import file_columns

    path = tmp_path / "a.txt"
    path.write_text("Unit MB/s better=higher\nBenchmarkA 10 5.0 ns/op 3.0 MB/s\nBenchmarkA 10 6.0 ns/op 4.0 MB/s\n"
                    "BenchmarkB 10 7.0 ns/op\n")  # fmt: skip
    columns = file_columns(path)
    assert columns.tool == "go" and columns.distinct == ["A", "A MB/s", "B"]
    assert [columns.distinct[c] for c in columns.codes.tolist()] == ["A", "A MB/s", "A", "A MB/s", "B"]
    assert columns.column("value").tolist() == [5.0, 3.0, 6.0, 4.0, 7.0]
    assert columns.column("batch").tolist() == [0, 0, 1, 1, 0]
    assert columns.columns["unit"] == ["ns/op", "MB/s", "ns/op", "MB/s", "ns/op"]
    assert columns.columns["better"] == [None, "higher", None, "higher", None]
    path.write_text("BenchmarkA 10 5.0 ns/op\nBenchmarkA 10 6.0 ms/op\n")
    assert file_columns(path).columns["unit"] == ["ns/op", "ms/op"]
