"""perfstudy._lib.csv_end: a CSV cut while it was written, as every tidy reader meets it."""

import warnings

import pytest

from perfstudy._lib.csv_end import check_csv_end


def test_a_last_row_short_of_fields_is_refused_and_a_whole_one_is_said(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n1,2,3\n4,5")
    with pytest.raises(ValueError, match=r"its last row, '4,5', has 2 of the header's 3 fields and no end of line"):
        check_csv_end(path, 3)
    path.write_text("a,b,c\n1,2,3\n4,5,6.")
    with pytest.warns(UserWarning, match=r"the last row, '4,5,6.', has no end of line"):
        check_csv_end(path, 3)
    for ended in ("a,b,c\n1,2,3\n", "a,b,c\r\n1,2,3\r\n", ""):
        path.write_text(ended)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_csv_end(path, 3)


def test_a_history_of_a_cut_csv_is_refused_through_the_command_line(tmp_path, capsys):
    from perfstudy.cli import main

    path = tmp_path / "h.csv"
    path.write_text("commit,value\n" + "".join(f"c{i},1.0\n" for i in range(12)) + "c12")
    assert main(["history", str(path)]) == 2
    assert "its last row, 'c12', has 1 of the header's 2 fields and no end of line" in capsys.readouterr().err
