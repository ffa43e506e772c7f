"""The README's library example runs as printed."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.slow  # over 3 s on 2 cores
def test_readme_python_example_runs():
    """Every python block runs as a script would run it (``__name__ == "__main__"``), the Dask
    cluster's included."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README has no python example"
    guarded = 0
    for block in blocks:
        namespace = {"__name__": "__main__"}
        exec(compile(block, "README.md", "exec"), namespace)
        if 'if __name__ == "__main__":' in block:
            guarded += 1
            assert "table" in namespace and len(namespace["table"]) == 13  # the Dask block ran: Table 3's rows
    assert guarded == 1


def test_readme_opens_with_the_two_commands():
    text = README.read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, flags=re.S).group(1)
    assert [line.split("#")[0].strip() for line in first_block.strip().splitlines()] == ["make report", "make test"]


def test_readme_documents_every_field_of_the_compare_json():
    """The JSON schema in the README names every field `perfstudy compare --format json` writes."""
    import json

    from support.frames import clustered

    from perfstudy.comparison import compare, format_comparison
    from perfstudy.comparison._render import JSON_SCHEMA

    payload = json.loads(format_comparison(compare(clustered(2, 25, 4, rng=0), checks=False), "json"))
    text = README.read_text()
    section = text[text.index("**The JSON output**") :]
    section = section[: section.index("\n\n", section.index("Each benchmark:"))]
    documented = set(re.findall(r"`([a-z_]+)`", section))
    assert payload["schema"] == JSON_SCHEMA and f'"{JSON_SCHEMA}"' in section
    assert set(payload) <= documented, set(payload) - documented
    assert set(payload["benchmarks"][0]) <= documented, set(payload["benchmarks"][0]) - documented
    assert set(payload["geomean"][0]) <= documented | {"unit", "a", "b", "change"}
