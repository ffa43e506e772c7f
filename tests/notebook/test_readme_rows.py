"""README's table of results against a report's sentences: a number the run did not write is listed by row."""

from __future__ import annotations

import json

import pytest

from perfstudy.notebook.readme_rows import HEADING, check_readme, quoted_numbers, readme_rows, unquoted_numbers

README = f"""# x

{HEADING}

| notebook | reproduced | differs |
|---|---|---|
| 01 | Table 3's SE column (0.10, 0.07) exactly; 9 of 13 rows within 3 MC (section 4.2.1, Eq. 5). | +146.0% on sap-0024 (run at f0e3137). |
| 02 | 1.2-6.5 times (paper 2.1-5.9); 18,120 windows. | \\|z\\| 4.06 |

## next
| 03 | not a row of the table |
"""


def test_the_rows_are_read_from_the_table_under_the_heading_only():
    rows = readme_rows(README)
    assert list(rows) == ["01", "02"]
    with pytest.raises(ValueError, match="no '### What each notebook"):
        readme_rows("# a README without the table")


def test_numbers_that_name_a_table_a_section_an_equation_a_series_or_a_commit_are_not_results():
    rows = readme_rows(README)
    assert quoted_numbers(rows["01"]) == ["0.10", "0.07", "9", "13", "3", "+146.0%"]
    assert quoted_numbers(rows["02"]) == ["1.2", "6.5", "2.1", "5.9", "18,120", "4.06"]


def test_a_number_no_sentence_of_the_run_holds_is_listed_under_its_row(tmp_path):
    said = {
        "01": ["SE 0.10 and 0.07 as printed; 9 of 13 rows within 3 MC", "sequential +146.0%, change"],
        "02": ["inflates 1.2-6.5 times, paper 2.1-5.9, over 18120 windows"],
    }
    rows = readme_rows(README)
    assert unquoted_numbers(rows, said) == {"02": ["4.06"]}  # 18,120 and 18120 are one number
    assert unquoted_numbers(rows, {}) == {"01": quoted_numbers(rows["01"]), "02": quoted_numbers(rows["02"])}
    (tmp_path / "README.md").write_text(README)
    out = tmp_path / "build"
    out.mkdir()
    for row, texts in said.items():
        record = {"values": {}, "said": {f"s{i}": {"text": t, "values": {}} for i, t in enumerate(texts)}}
        (out / f"{row}_notebook.json").write_text(json.dumps(record))
    assert check_readme(tmp_path / "README.md", out) == {"02": ["4.06"]}


@pytest.mark.slow  # starts a kernel
def test_a_full_report_says_which_readme_numbers_its_sentences_do_not_hold(tmp_path, capsys):
    import nbformat

    from perfstudy.cli import main

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (tmp_path / "README.md").write_text(README)
    for row, sentence in (("01", "9 of 13 rows; 0.10 and 0.07; sequential +146.0%"), ("02", "1.2-6.5, 2.1-5.9, 18120")):
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nb.cells = [
            nbformat.v4.new_code_cell("out_dir = 'build'\nquick = False", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell(
                f"from perfstudy.notebook.records import Recorder\nrecord = Recorder('{row}_x', out_dir)\n"
                f"record.say('summary', '{{text}}', text={sentence!r})"
            ),
        ]
        nbformat.write(nb, notebooks / f"{row}_x.ipynb")
    out = tmp_path / "build"
    assert main(["report", "--notebooks", str(notebooks), "--out", str(out), "--figures", str(tmp_path / "f"),
                 "--no-html", "--no-progress"]) == 0  # fmt: skip
    said = capsys.readouterr().out
    assert "README's table of results: 2 number(s) in 2 row(s) not in this run's sentences" in said
    assert (out / "readme_check.md").read_text().splitlines()[-2:] == ["- 01: 3", "- 02: 4.06"]
