"""Go benchmark text against benchfmt's rules and against real go test output, compared as benchstat reads it;
io.read's detection of a file's format. Each other reader has its own file, against its tool's own summary
(test_criterion, test_pytest_benchmark, test_asv, test_benchmarkdotnet)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap

import pytest

from perfstudy.cli import main
from perfstudy.io import COLUMNS, read


def _run(args, **kwargs):
    return subprocess.run(args, check=True, capture_output=True, text=True, timeout=600, **kwargs)


# --- Go: benchfmt's rules on a file written to them, then real go test output --------------------

GO_TEXT = """\
goos: linux
goarch: amd64
pkg: example.com/codec
cpu: AMD EPYC 7B13
note: before
BenchmarkEncode/size=1K-8      	  200000	      5210 ns/op	 196.5 MB/s	    1024 B/op	       0 allocs/op
BenchmarkEncode/size=1K-8      	  200000	      5190 ns/op	 197.3 MB/s	    1024 B/op	       0 allocs/op
some test output that is not a result
BenchmarkDecode-8 	 100000	 10400 ns/op
BenchmarkDecodeAlone
Unit B/op assume=exact
Unit MB/s better=higher
note: after
BenchmarkEncode/size=1K-8      	  200000	      5730 ns/op	 178.7 MB/s	    1024 B/op	       3 allocs/op
BenchmarkEncode/size=1K-8      	  200000	      5760 ns/op	 177.8 MB/s	    1024 B/op	       3 allocs/op
cpu:
BenchmarkDecode-8 	 100000	 10300 ns/op
PASS
ok  	example.com/codec	4.128s
"""


def test_go_text_follows_benchfmts_rules(tmp_path):
    path = tmp_path / "bench.txt"
    path.write_text(GO_TEXT)
    frame = read(path)
    assert frame.attrs["format"] == "go" and list(frame.columns[: len(COLUMNS)]) == COLUMNS
    # the first metric keeps the name (without "Benchmark"); each further one is a benchmark of its own
    assert sorted(frame.benchmark.unique()) == [
        "Decode-8",
        "Encode/size=1K-8",
        "Encode/size=1K-8 B/op",
        "Encode/size=1K-8 MB/s",
        "Encode/size=1K-8 allocs/op",
    ]
    encode = frame[frame.benchmark == "Encode/size=1K-8"]
    assert encode.value.tolist() == [5210, 5190, 5730, 5760] and (encode.unit == "ns/op").all()
    assert encode.batch.tolist() == [0, 1, 2, 3] and (encode.iterations == 200000).all()
    assert (encode.procs == 8).all()  # the -8 GOMAXPROCS suffix, kept in the name too
    # configuration lines hold until changed; an empty value removes the key
    assert encode.note.tolist() == ["before", "before", "after", "after"]
    decode = frame[frame.benchmark == "Decode-8"]
    assert decode.cpu.isna().tolist() == [False, True] and (frame.goos == "linux").all()
    # Unit lines apply to the unit wherever they stand in the file
    assert (frame[frame.benchmark.str.endswith("B/op")].assume == "exact").all()
    assert (frame[frame.benchmark.str.endswith("MB/s")].better == "higher").all()
    assert frame.assume[frame.benchmark == "Decode-8"].isna().all()


def test_one_go_file_splits_into_versions_by_a_configuration_key(tmp_path, capsys):
    path = tmp_path / "bench.txt"
    path.write_text(GO_TEXT)
    # "before" comes first in the file, "after" in sorted order: which is A must be said
    assert main(["compare", str(path), "--by", "note", "--seed", "1"]) == 2
    assert "which version is A" in capsys.readouterr().err
    assert main(["compare", str(path), "--by", "note", "--a-version", "before", "--format", "json", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {row["benchmark"]: row for row in out["benchmarks"]}
    assert out["labels"] == {"a": "before", "b": "after"}
    allocs = rows["Encode/size=1K-8 allocs/op"]  # 0 -> 3 allocations: a difference, never refused
    assert allocs["scale"] == "difference" and allocs["change"] == 3.0 and allocs["verdict"] == "slower"
    exact = rows["Encode/size=1K-8 B/op"]  # assume=exact: no statistics, the same value is no change
    assert exact["method"] == "exact" and exact["verdict"] == "no change"
    speed = rows["Encode/size=1K-8 MB/s"]  # better=higher: lower MB/s is slower
    assert speed["change"] < 0 and speed["higher_is_better"] is True
    assert rows["Encode/size=1K-8"]["change"] == pytest.approx((5730 + 5760) / (5210 + 5190) - 1)
    # with two files, --by is refused by name
    assert main(["compare", str(path), str(path), "--by", "note"]) == 2
    assert "--by and --a-version split one file" in capsys.readouterr().err


needs_go = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed (Debian package 'golang-go'; .ci/run installs it)"
)


@needs_go
def test_real_go_test_output(tmp_path):
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (module / "m_test.go").write_text(
        textwrap.dedent(
            """\
            package m

            import (
                "fmt"
                "testing"
            )

            var sink []byte

            func BenchmarkAlloc(b *testing.B) {
                for _, n := range []int{16, 256} {
                    b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
                        b.ReportAllocs()
                        for i := 0; i < b.N; i++ {
                            sink = make([]byte, n)
                        }
                    })
                }
            }

            func BenchmarkNoAlloc(b *testing.B) {
                b.ReportAllocs()
                x := 0
                for i := 0; i < b.N; i++ {
                    x += i
                }
                _ = x
            }
            """
        )
    )
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env["GOPROXY"] = "off"
    out = _run(
        ["go", "test", "-run", "^$", "-bench", ".", "-count", "3", "-benchtime", "2000x", "-cpu", "1,2"],
        cwd=module,
        env=env,
    ).stdout
    path = tmp_path / "go.txt"
    path.write_text(out)
    frame = read(path)
    lines = [line.split() for line in out.splitlines() if line.startswith("Benchmark")]
    assert len(lines) == 3 * 3 * 2  # 3 benchmarks (two sub-benchmarks), -count 3, -cpu 1,2
    times = frame[frame.unit == "ns/op"]
    assert times.value.tolist() == [float(fields[2]) for fields in lines]  # every line, in order
    assert {"Alloc/size=16", "Alloc/size=16-2", "NoAlloc", "NoAlloc-2"} <= set(times.benchmark)
    assert set(frame.procs.dropna()) == {2.0}  # go test writes no suffix for GOMAXPROCS 1
    assert (frame.iterations == 2000).all() and {"goos", "goarch", "pkg"} <= set(frame.columns)
    assert (frame[frame.benchmark == "NoAlloc allocs/op"].value == 0).all()
    # a comparison of the file with itself: zero allocations compare ("no change"), never refused
    result = main(["compare", str(path), str(path), "--format", "json", "--seed", "2"])
    assert result == 0


@pytest.mark.slow  # over 3 s on 2 cores
def test_the_compare_table_of_real_go_output_reads_like_benchstats(tmp_path, capsys):
    """One table per unit with the unit once in its caption (ns/op shown as s/op with SI prefixes, B/op and
    allocs/op as they are), centre ± spread and n per side, a geomean row, notes as numbered footnotes one
    per line; the same in markdown."""
    module = tmp_path / "m"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (module / "m_test.go").write_text(
        'package m\n\nimport "testing"\n\nvar sink []byte\n\n'
        "func BenchmarkSmall(b *testing.B) { b.ReportAllocs(); for i := 0; i < b.N; i++ { sink = make([]byte, 16) } }\n"
        "func BenchmarkLarge(b *testing.B) { b.ReportAllocs(); for i := 0; i < b.N; i++ { sink = make([]byte, 4096) } }\n"
    )
    env = dict(os.environ, GOCACHE=str(tmp_path / "cache"), GOPATH=str(tmp_path / "gopath"), GOFLAGS="-mod=mod")
    env["GOPROXY"] = "off"
    paths = []
    for name in ("old.txt", "new.txt"):
        out = _run(
            ["go", "test", "-run", "^$", "-bench", ".", "-count", "6", "-benchtime", "20000x"], cwd=module, env=env
        )
        paths.append(tmp_path / name)
        paths[-1].write_text(out.stdout)
    assert main(["compare", *map(str, paths), "--seed", "1"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    captions = [line for line in lines if ": mean ± SD of the batch means" in line]
    assert [c.split(":")[0] for c in captions] == ["s/op", "B/op", "allocs/op"]
    header = lines[lines.index(captions[0]) + 1]
    assert header.split()[:5] == ["benchmark", "A:", "old.txt", "B:", "new.txt"]
    small = next(line for line in lines if line.startswith("Small"))
    # a time per operation in nanoseconds: "12.34n ± 3%", never "1.234e-08 ns/op"; n as batches x values
    assert re.search(r"\d+(\.\d+)?n ± \d+%\s+\d+(\.\d+)?n ± \d+%", small) and "6×1, 6×1" in small
    # (a p-value may print as 2.3e-05 when the two commits differ by 25%; a time or its spread never does)
    assert "ns/op" not in text and not re.search(r"\de[-+]\d+\S* ±", text)
    assert sum(line.startswith("geomean") for line in lines) == 3  # Small and Large in each unit's table
    large_bytes = [line for line in lines if line.startswith("Large")][1]
    assert re.search(r"4\.096k ± 0%\s+4\.096k ± 0%\s+\+0\.0%", large_bytes)  # 4096 B/op both sides, exactly
    notes = [line for line in lines if re.match(r"\[\d+\] ", line)]  # a footnote a line, numbered from 1
    assert [int(line[1 : line.index("]")]) for line in notes] == list(range(1, len(notes) + 1))
    marked = {int(n) for marks in re.findall(r"^\S+ \[([\d,]+)\]", text, re.M) for n in marks.split(",")}
    assert marked == set(range(1, len(notes) + 1))  # every footnote is referenced from the table
    assert main(["compare", *map(str, paths), "--seed", "1", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out.splitlines()
    assert markdown[0] == "**s/op: mean ± SD of the batch means**" and markdown[3].startswith("|---|---:|")
    assert any(line.startswith("| Small") and "n ± " in line for line in markdown)
    assert any(line.startswith("1. ") for line in markdown)
    # analyze on the same files: 6 lines a benchmark are too few for a median interval or CONFIRM, and it says
    # so (it used to fail on the median's interval); constant B/op and allocs/op need no more repetitions
    out = tmp_path / "report"
    assert main(["analyze", *map(str, paths), "--out", str(out), "--quick", "--no-progress"]) == 0
    advice = " ".join(json.loads((out / "analyze.json").read_text())["advice"])
    assert "Run at least 10 batches of Small-2 (A), Large-2 (A), Small-2 (B), Large-2 (B)" in advice
    assert "B/op" not in advice and "more than 6" not in advice


# --- detection -------------------------------------------------------------------------------------


def test_a_file_that_matches_two_formats_is_refused_naming_both(tmp_path):
    both = {"benchmarks": [{"runs": [], "stats": {"data": [1.0]}, "name": "x"}], "machine_info": {}}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(both))
    with pytest.raises(ValueError, match="pyperf and pytest_benchmark"):
        read(path)
    frame = read(path, format="pytest_benchmark")  # saying which settles it
    assert frame.value.tolist() == [1.0]


def test_the_command_line_takes_the_input_format_and_an_unknown_file_says_how(tmp_path, capsys):
    from perfstudy.cli import _parser
    from perfstudy.io import FORMATS

    compare_parser = _parser()._subparsers._group_actions[0].choices["compare"]  # type: ignore[union-attr]
    (option,) = [a for a in compare_parser._actions if "--input-format" in a.option_strings]
    assert tuple(option.choices) == FORMATS
    path = tmp_path / "mystery.txt"
    path.write_text("nothing a harness wrote\n")
    assert main(["compare", str(path), str(path)]) == 2
    assert "--input-format" in capsys.readouterr().err
    go = tmp_path / "go.data"
    go.write_text(GO_TEXT)
    assert main(["compare", str(go), "--by", "note", "--a-version", "before", "--input-format", "go"]) == 0
