"""Guard rails of the repository itself (DESIGN.md, "Guard rails")."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the text a person reads: code, notebooks, documentation and the build
TEXT = ("perfstudy", "tests", "notebooks", "benchmarks", ".ci")
SUFFIXES = {".py", ".ipynb", ".md", ".toml", ".sh"}
TICKET = re.compile(r"\b[Ii]ssues?\s+#?\d+|\b[Ii]ssues?'s?\s+(?:target|case|suite)")


def _files():
    for folder in TEXT:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and (path.suffix in SUFFIXES or path.name == "run") and path != Path(__file__):
                yield path  # (this file is left out: it holds the examples the pattern is tested on)
    yield from (ROOT / name for name in ("README.md", "DESIGN.md", "Makefile", "pyproject.toml"))


def test_no_issue_numbers_in_code_or_documentation():
    """Code and documents say what a thing does or guards, not which ticket asked for it."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
        for path in _files()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if TICKET.search(line)
    ]
    assert not found, "\n".join(found)


def test_the_pattern_finds_what_it_guards():
    assert TICKET.search("the speed case of issue 11") and TICKET.search("Issue 22's suite")
    assert TICKET.search("against the issues' targets") and TICKET.search("the issue's target")
    assert not TICKET.search("issued 3 requests") and not TICKET.search("the normal quantile is the issue")


def test_the_design_document_is_in_the_repository():
    design = (ROOT / "DESIGN.md").read_text()
    for heading in ("## Layout", "## Vocabulary", "## API conventions", "## Guard rails"):
        assert heading in design
    assert "`DESIGN.md`" in (ROOT / "README.md").read_text()


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too), as absolute names."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_the_library_never_imports_a_study():
    """Dependencies flow one way: library <- studies <- notebooks (DESIGN.md, "Layout")."""
    library = [p for p in sorted((ROOT / "perfstudy").rglob("*.py")) if "studies" not in p.parts]
    assert len(library) >= 30
    found = {
        str(p.relative_to(ROOT)): sorted(n for n in _imports(p) if n.startswith("perfstudy.studies")) for p in library
    }
    assert not {k: v for k, v in found.items() if v}


def test_no_study_imports_a_notebook_helper():
    """The studies compute; recording, reporting and the command line are the notebooks' and the user's."""
    helpers = ("perfstudy.notebook.records", "perfstudy.notebook.report", "perfstudy.cli")
    found = {
        str(p.relative_to(ROOT)): sorted(n for n in _imports(p) if n.startswith(helpers))
        for p in sorted((ROOT / "perfstudy" / "studies").glob("*.py"))
    }
    assert not {k: v for k, v in found.items() if v}


#: The packages from the bottom up: each may import only those before it (DESIGN.md, "Layout"); the
#: analysis packages on one layer may not import each other, except as listed in ``ACROSS``.
LAYERS = (
    ("_lib",),
    ("io",),
    ("design", "diagnostics", "stability", "capacity"),
    ("comparison",),
    ("experiment",),
    ("analysis", "changes"),
    ("notebook",),
    ("cli",),
    ("studies",),
)
#: imports across one layer: the only one allowed, with why
ACROSS = {("design", "diagnostics"): "none", ("comparison", "diagnostics"): "compare's CONFIRM check"}


def _package(path: Path) -> str:
    parts = path.relative_to(ROOT / "perfstudy").with_suffix("").parts
    return parts[0]


def test_imports_go_one_way_between_packages():
    """``_lib`` <- ``io`` <- analysis packages <- ``comparison`` <- ``experiment`` <- ``analysis`` <-
    ``notebook`` <- ``cli`` <- ``studies``, on every import at any depth in every module."""
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    modules = sorted((ROOT / "perfstudy").rglob("*.py"))
    assert len(modules) >= 60
    wrong = []
    for path in modules:
        mine = _package(path)
        if mine not in layer:
            continue  # __init__.py and __main__.py of the top package
        for name in _imports(path):
            if not name.startswith("perfstudy."):
                continue
            theirs = name.split(".")[1]
            if theirs not in layer or theirs == mine:
                continue
            upward = layer[theirs] > layer[mine]
            sideways = layer[theirs] == layer[mine] and (mine, theirs) not in ACROSS
            if upward or sideways:
                wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not wrong, wrong


def test_no_package_imports_another_package_s_private_module():
    """What one package needs of another is public there (``comparison.verdict``,
    ``comparison.warmup_check``); ``_lib`` is everyone's plumbing."""
    wrong = []
    for path in sorted((ROOT / "perfstudy").rglob("*.py")):
        mine = _package(path) if path.parent != ROOT / "perfstudy" else path.stem
        for name in _imports(path):
            parts = name.split(".")
            if len(parts) > 2 and parts[0] == "perfstudy" and parts[1] not in ("_lib", mine):
                if parts[2].startswith("_") and not parts[2].startswith("__"):
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not wrong, wrong


def test_no_package_exports_a_name_that_is_one_of_its_modules():
    """Importing ``perfstudy.x.y`` sets ``y`` on ``perfstudy.x``: an export of that name would be replaced,
    and which one a reader got would depend on the order of imports (DESIGN.md, "Layout")."""
    import importlib
    import pkgutil

    import perfstudy

    packages = [perfstudy] + [
        importlib.import_module(m.name) for m in pkgutil.walk_packages(perfstudy.__path__, "perfstudy.") if m.ispkg
    ]
    clashes = []
    for package in packages:
        modules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        clashes += [f"{package.__name__}.{n}" for n in getattr(package, "__all__", []) if n in modules]
    assert len(packages) >= 10 and not clashes, clashes


def test_the_top_level_gives_the_verbs():
    from perfstudy import analyze, compare, read, run

    assert [f.__name__ for f in (read, compare, run, analyze)] == ["read", "compare", "run", "analyze"]
    assert all(callable(f) for f in (read, compare, run, analyze))


def test_the_design_document_names_only_packages_that_exist():
    """Every ``name/`` and ``name.py`` of DESIGN.md's layout under ``perfstudy/`` exists, and every
    package of ``perfstudy/`` is named there."""
    import re

    design = (ROOT / "DESIGN.md").read_text()
    block = design.split("## Layout", 1)[1].split("```", 2)[1]
    inside = block.split("perfstudy/", 1)[1].split("\nnotebooks/", 1)[0]
    named = set(re.findall(r"^  (\w+)/", inside, re.M))
    files = set(re.findall(r"\b(\w+\.py)\b", inside))
    packages = {p.parent.name for p in (ROOT / "perfstudy").glob("*/__init__.py")}
    assert named == packages, named ^ packages
    existing = {p.name for p in (ROOT / "perfstudy").rglob("*.py")}
    assert len(files) >= 30 and files <= existing, sorted(files - existing)


def test_the_layering_test_sees_an_import_inside_a_function(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from perfstudy.studies import he2019\n    import perfstudy.studies.maricq2018\n")
    assert {"perfstudy.studies.he2019", "perfstudy.studies.maricq2018"} <= _imports(module)


def test_guard_rails_are_configured():
    """pyright in basic mode over the package with its baseline, the package marked as typed, and a
    pre-commit configuration that runs ruff, pyright and this file's rules."""
    import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["tool"]["basedpyright"]["typeCheckingMode"] == "basic"
    assert (ROOT / ".basedpyright" / "baseline.json").is_file()
    assert (ROOT / "perfstudy" / "py.typed").is_file()
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["perfstudy"]
    lint = (ROOT / "Makefile").read_text().split("\nlint:")[1].split("\n\n")[0]
    assert "ruff check" in lint and "basedpyright" in lint
    hooks = (ROOT / ".pre-commit-config.yaml").read_text()
    for hook in ("id: ruff", "id: ruff-format", "id: basedpyright", "tests/test_repository.py"):
        assert hook in hooks, hook


def test_arguments_are_checked_in_the_function_not_by_a_wrapper():
    """One way to check arguments: explicit calls at the top of each function. No public function of a
    study, a figure or a plot is wrapped by a decorator that checks its arguments elsewhere."""
    import importlib
    import inspect
    import pkgutil

    import perfstudy.studies

    names = ["perfstudy.notebook.plots", "perfstudy.notebook.widgets"] + [
        m.name for m in pkgutil.iter_modules(perfstudy.studies.__path__, "perfstudy.studies.")
    ]
    wrapped = []
    for name in names:
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", []):
            obj = getattr(module, attribute)
            members = [obj] if inspect.isfunction(obj) else []
            if inspect.isclass(obj):  # its public methods (dataclasses wrap their own __repr__)
                members = [f for key, f in vars(obj).items() if not key.startswith("_")]
            wrapped += [f"{name}.{attribute}" for f in members if inspect.isfunction(f) and inspect.unwrap(f) is not f]
    assert not wrapped, f"checked by a wrapper: {wrapped}"


def test_the_tests_mirror_the_package_and_share_helpers_through_support():
    """tests/<package>/test_<module>.py for each package's modules (cross-cutting tests at the top), and
    no test file imports another: what tests share lives in tests/support/."""
    tests = ROOT / "tests"
    packages = {p.parent.name for p in (ROOT / "perfstudy").glob("*/__init__.py")}
    folders = {p.name for p in tests.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))} - {"support"}
    assert folders and folders <= packages, sorted(folders - packages)
    importing = sorted(
        str(p.relative_to(ROOT)) for p in tests.rglob("*.py") if any(n.startswith("test_") for n in _imports(p))
    )
    assert not importing, importing


def test_every_public_module_has_its_mirrored_test_file():
    """perfstudy/<package>/<module>.py is tested in tests/<package>/test_<module>.py; where two packages hold
    modules of one name (the test files share one namespace of basenames), test_<package>_<module>.py."""
    missing = []
    for path in sorted((ROOT / "perfstudy").rglob("*.py")):
        if path.name.startswith("_"):
            continue
        folder = ROOT / "tests" / path.relative_to(ROOT / "perfstudy").parent
        names = {f"test_{path.stem}.py", f"test_{path.parent.name}_{path.stem}.py"}
        if not any((folder / name).is_file() for name in names):
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, missing


def test_the_package_stays_small_at_the_top_and_in_every_file():
    """At most 14 modules directly in perfstudy/ (the rest live in packages by concept) and no module of
    the package over 900 lines (a module that grows past it holds more than one concept)."""
    top = sorted(p.name for p in (ROOT / "perfstudy").glob("*.py"))
    assert len(top) <= 14, top
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "perfstudy").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 900
    }
    assert not long, long


def test_the_verbs_choices_are_literals_and_their_tuples_come_from_them():
    """A choice in a public signature is a Literal whose values are the tuple the function checks
    against, so that the annotation and the refusal cannot drift apart."""
    import typing

    from perfstudy import compare, read, run
    from perfstudy.comparison import STATISTICS, verdict
    from perfstudy.comparison._intervals import BLOCK_STATISTICS, CORRECTIONS, SCALES, SEQUENTIAL_RULES
    from perfstudy.experiment.batches import MEASURES
    from perfstudy.io import FORMATS

    def choices(function, parameter):
        hint = typing.get_type_hints(function)[parameter]
        literals = [a for a in typing.get_args(hint) if typing.get_origin(a) is typing.Literal] or [hint]
        assert typing.get_origin(literals[0]) is typing.Literal, (function.__name__, parameter, hint)
        return typing.get_args(literals[0])

    assert choices(read, "format") == FORMATS
    assert choices(compare, "statistic") == BLOCK_STATISTICS and set(STATISTICS) < set(BLOCK_STATISTICS)
    assert choices(compare, "sequential") == SEQUENTIAL_RULES
    assert choices(run, "statistic") == BLOCK_STATISTICS
    assert choices(run, "rule") == SEQUENTIAL_RULES
    assert choices(compare, "correction") == CORRECTIONS
    assert choices(run, "measure") == MEASURES
    assert choices(verdict, "scale") == SCALES


def test_every_test_folder_is_collected():
    """pyproject's testpaths lists the test folders one by one (to keep their order): a folder missing
    there would never run."""
    import tomllib

    paths = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["testpaths"]
    folders = {f"tests/{p.name}" for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name[0] not in "._"}
    folders |= {"tests/_lib"} if (ROOT / "tests" / "_lib").is_dir() else set()
    assert folders - {"tests/support"} <= set(paths), sorted(folders - set(paths) - {"tests/support"})


def _module_imports() -> dict[str, set[str]]:
    """Each perfstudy module's imports of other perfstudy modules, at any depth (inside functions and
    ``if TYPE_CHECKING:`` too), relative imports resolved, and a name taken from a package resolved to the module
    that package takes it from (its ``__init__``'s imports): an import through a package is an import of the module
    behind the name."""
    import ast

    modules = {}
    for path in sorted((ROOT / "perfstudy").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    raw, exports = {}, {}
    for name, path in modules.items():
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    base = name.split(".")[: len(name.split(".")) - node.level + (path.name == "__init__.py")]
                    module = ".".join(base + ([module] if module else []))
                names.add(module)
                names.update(f"{module}.{alias.name}" for alias in node.names)
                if path.name == "__init__.py" and module.startswith(name + "."):
                    exports.update({f"{name}.{alias.asname or alias.name}": module for alias in node.names})
        raw[name] = names
    found = {}
    for name, names in raw.items():
        resolved = {n for n in names if n in modules} | {exports[n] for n in names if n in exports}
        found[name] = {n for n in resolved if n != name and not (name.startswith(n + ".") and n not in exports)}
    return found


def test_no_two_modules_import_each_other():
    """Imports within a package go one way too: two modules that import each other are one concept split in two,
    or a third concept (settings, streams, rounds) that both need. A package's ``__init__`` and its modules are
    exempt (the package names its exports; a module may use its package's public names)."""
    graph = _module_imports()
    pairs = sorted(
        {
            tuple(sorted((a, b)))
            for a, targets in graph.items()
            for b in targets
            if a in graph.get(b, set()) and not (a.startswith(b + ".") or b.startswith(a + "."))
        }
    )
    assert not pairs, pairs


def test_the_mutual_import_check_can_fail():
    """The check above sees a relative import and an import inside ``if TYPE_CHECKING:``."""
    graph = _module_imports()
    assert "perfstudy.comparison._task" in graph["perfstudy.comparison._batch_checks"]  # under TYPE_CHECKING
    assert "perfstudy.comparison._intervals" in graph["perfstudy.comparison._compare"]
    # a name taken from a package is an import of the module the package takes it from
    assert "perfstudy.comparison._intervals" in graph["perfstudy.experiment.settings"]


def test_no_private_function_takes_more_than_eight_parameters():
    """A function that takes more is passing a settings object's fields by hand: bundle them (a run's _Session,
    compare's _Settings) so that an option cannot fall through a gap between two keyword lists."""
    import ast

    found = {}
    for path in sorted((ROOT / "perfstudy").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("_"):
                if node.name.startswith("__"):
                    continue
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                count = len(names) - (names[:1] in (["self"], ["cls"]))
                if count > 8:
                    found[f"{path.relative_to(ROOT)}:{node.name}"] = count
    assert not found, found


def test_the_command_line_is_split_by_command_each_part_small():
    """One module per command (and what they share), none over 400 lines: the command line grew 200 lines in
    eight commits when it was one file."""
    parts = {p.name: len(p.read_text().splitlines()) for p in (ROOT / "perfstudy" / "cli").glob("*.py")}
    assert {"_compare.py", "_run.py", "_history.py", "_analyze.py", "_explore.py", "_common.py"} <= set(parts)
    assert max(parts.values()) <= 400, parts


def test_each_package_names_its_exports_once():
    """A package's exports are one list, its ``if TYPE_CHECKING:`` imports, each ``from m import a as a`` (a
    re-export for a static checker); the lazy import and ``__all__`` are read from it, and each home holds its name."""
    import importlib

    from perfstudy._lib.lazy import exported

    checked = 0
    for init in sorted((ROOT / "perfstudy").rglob("__init__.py")):
        source = init.read_text()
        homes = exported(source)
        if not homes:
            continue
        checked += 1
        package = importlib.import_module(".".join(init.relative_to(ROOT).parent.parts))
        assert package.__all__ == list(homes) and "_HOMES" not in source, package.__name__
        block = source.partition("if TYPE_CHECKING:")[2]
        for name, home in homes.items():
            assert f"{name} as {name}" in block, (package.__name__, name)  # re-exported for a static checker
            assert getattr(package, name) is getattr(importlib.import_module(home), name), (package.__name__, name)
    assert checked >= 10


def test_there_is_one_suite_builder():
    """compare() and the two-Go-file path differ only in how they get their columns: the suite is built in one
    place (comparison/_columns.py), and no function of _compare.py repeats one of _files.py."""
    import ast

    comparison = ROOT / "perfstudy" / "comparison"
    builders = [p.name for p in sorted(comparison.glob("*.py")) if "_Suite(" in p.read_text() and p.name != "_suite.py"]
    assert builders == ["_columns.py"]

    def functions(name):
        tree = ast.parse((comparison / name).read_text())
        return {n.name: ast.dump(n) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}

    compare_side, files_side = functions("_compare.py"), functions("_files.py")
    # the same body under any name is a repeat; a shared name is allowed only as a thin adapter (_suite)
    bodies = {dump.split("body=", 1)[1] for name, dump in files_side.items()}
    assert not [name for name, dump in compare_side.items() if dump.split("body=", 1)[1] in bodies]
    for name in set(compare_side) & set(files_side):
        assert "build_suite" in compare_side[name] and "build_suite" in files_side[name], name


def test_no_two_test_files_share_a_basename():
    """pytest imports test files by their basename (the test folders are not packages): two files of one name in
    two folders stop the whole collection, the run's first line an 'import file mismatch'."""
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []


def test_every_verb_takes_its_settings_as_one_object():
    """A verb has a settings object; besides it, at most 8 parameters that are not settings (the data, where and how
    the call runs), and any keyword that is a setting is documented as a convenience that builds the object."""
    import dataclasses
    import inspect

    from perfstudy.analysis import AnalyzeSettings, analyze
    from perfstudy.changes import HistorySettings, history
    from perfstudy.comparison import CompareSettings, compare
    from perfstudy.experiment import BisectSettings, RunSettings, bisect, run

    verbs = {compare: CompareSettings, run: RunSettings, history: HistorySettings, bisect: BisectSettings,
             analyze: AnalyzeSettings}  # fmt: skip
    for verb, settings in verbs.items():
        fields = {f.name for f in dataclasses.fields(settings)}
        parameters = inspect.signature(verb).parameters
        assert "settings" in parameters, verb.__name__
        others = [p for p in parameters.values() if p.name != "settings" and p.kind != p.VAR_KEYWORD]
        assert len([p for p in others if p.name not in fields]) <= 8, (verb.__name__, [p.name for p in others])
        keywords = [p for p in others if p.name in fields] or [
            p for p in parameters.values() if p.kind == p.VAR_KEYWORD
        ]
        if keywords:
            doc = " ".join((verb.__doc__ or "").split())
            assert "convenience" in doc and settings.__name__ in doc, verb.__name__
