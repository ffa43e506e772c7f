"""Batch reports: run every notebook through papermill, write executed copies, HTML and figures.

One failing notebook does not stop the others; :func:`execute_notebooks` returns a run record per
notebook (status, seconds, where it failed) and :func:`format_table` prints them.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from perfstudy._lib.checks import check_bool, check_directory, check_int, check_real
from perfstudy._lib.result import Result
from perfstudy.notebook.records import _write_atomically

__all__ = [
    "NotebookRun",
    "default_notebooks_dir",
    "find_notebooks",
    "execute_notebooks",
    "execute_analysis",
    "format_table",
    "offline_notebook",
]


@dataclass(frozen=True)
class NotebookRun(Result):
    """What happened to one notebook.

    Attributes
    ----------
    name : str
        The notebook's stem, e.g. ``"01_design_standard_errors"``.
    status : {"ok", "failed"}
    seconds : float
        Wall time: the kernel's start-up, every cell and the HTML export.
    output : Path
        The executed notebook (written also when it failed, up to the failing cell).
    html : Path or None
        The executed notebook rendered to HTML.
    error : str or None
        Where and why it failed: ``"cell 7: ValueError: ..."``.
    """

    name: str
    status: str
    seconds: float
    output: Path
    html: Path | None
    error: str | None = None


def default_notebooks_dir() -> Path:
    """``./notebooks`` if it exists, else the ``notebooks/`` beside the installed package."""
    here = Path.cwd() / "notebooks"
    if here.is_dir():
        return here
    return Path(str(importlib.resources.files("perfstudy") / "notebooks"))


def find_notebooks(notebooks_dir, only=None) -> list[Path]:
    """The notebooks to run, sorted by name.

    Parameters
    ----------
    notebooks_dir : path
    only : str or sequence of str, optional
        Names (stem, file name, or a unique prefix such as ``"01"``) to keep.

    Raises
    ------
    ValueError
        If the directory has no notebooks or a name in ``only`` matches none or several.
    """
    if not isinstance(notebooks_dir, (str, os.PathLike)):
        raise TypeError(f"notebooks_dir={notebooks_dir!r}: expected a directory path")
    directory = Path(notebooks_dir)
    if not directory.is_dir():
        raise ValueError(f"notebooks_dir={str(directory)!r}: not a directory")
    notebooks = sorted(p for p in directory.glob("*.ipynb") if not p.name.startswith("."))
    if not notebooks:
        raise ValueError(f"notebooks_dir={str(directory)!r}: no .ipynb files")
    if only is None:
        return notebooks
    wanted = [only] if isinstance(only, str) else list(only)
    chosen = []
    for name in wanted:
        stem = name.removesuffix(".ipynb")
        matches = [p for p in notebooks if p.stem == stem] or [p for p in notebooks if p.stem.startswith(stem)]
        if len(matches) != 1:
            available = ", ".join(p.stem for p in notebooks)
            what = "matches no notebook" if not matches else "matches several notebooks"
            raise ValueError(f"only={name!r}: {what}; available: {available}")
        if matches[0] not in chosen:
            chosen.append(matches[0])
    return chosen


def _describe_failure(error: BaseException, source_notebook: Path | None = None) -> str:
    """``"cell 3 (raise ValueError(...)): ValueError: message"``, the cell counted in the source notebook.

    papermill's executed copy has extra cells (injected parameters, an error banner), so its cell
    index and execution count do not match the notebook the user opens; the failing cell is found
    in the source notebook by its source instead, falling back to papermill's execution count.
    """
    ename = getattr(error, "ename", None)
    if ename is None:
        message = str(error).strip().splitlines()
        return f"{type(error).__name__}: {message[0] if message else ''}"
    evalue = str(getattr(error, "evalue", "")).strip().splitlines()
    failing_source = getattr(error, "source", None)
    where = f"executed cell [{getattr(error, 'exec_count', '?')}]"
    if failing_source is not None and source_notebook is not None:
        import nbformat

        cells = nbformat.read(source_notebook, as_version=4).cells
        matches = [i for i, c in enumerate(cells) if c.cell_type == "code" and c.source == failing_source]
        if len(matches) == 1:
            first_line = next((line for line in failing_source.splitlines() if line.strip()), "")
            if len(first_line) > 40:
                first_line = first_line[:39] + "\u2026"
            where = f"cell {matches[0] + 1} ({first_line})"
    return f"{where}: {ename}: {evalue[0] if evalue else ''}"


#: a notebook's math: $$display$$ or $inline$ (not an escaped \$)
_MATH = re.compile(r"(?<!\\)\$\$(.+?)\$\$|(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$", re.S)
_WIDGET = "application/vnd.jupyter.widget-view+json"
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)
#: a progress bar's plain text: an ipywidgets repr, or tqdm's bar (``Table 3:   0%|   | 0/40 [00:00<?, ?it/s]``)
_PROGRESS = re.compile(r"Progress\(|\|\s*\d+/\d+\s*\[")
#: what a report page says where a widget without a static copy was
WIDGET_NOTE = "An interactive widget: open the notebook in JupyterLab to use it."


def _mathml(match) -> str:
    """One ``$...$`` of Markdown as MathML (which browsers draw without a script); the TeX stays as it was
    where latex2mathml cannot read it."""
    from latex2mathml.converter import convert

    display, inline = match.group(1), match.group(2)
    try:
        return convert(display if display is not None else inline, display="block" if display is not None else "inline")
    except Exception:  # an unknown macro: leave the TeX readable rather than lose the sentence
        return match.group(0)


def _with_mathml(markdown: str) -> str:
    """Markdown with its math as MathML, outside code: `$PERFSTUDY_DATA` is a name, not an equation."""
    parts = _CODE.split(markdown)
    return "".join(part if i % 2 else _MATH.sub(_mathml, part) for i, part in enumerate(parts))


def _checked_notebook(nb):
    """``nb`` if it has the shape nbformat 4 gives; else an error naming the first part that does not."""
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) or not isinstance(nb.get("metadata"), dict):
        raise TypeError(f"nb: expected a notebook (nbformat.NotebookNode), got {type(nb).__name__}")
    for i, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise ValueError(f"nb: cell {i} is not a notebook cell (no cell_type)")
        if not isinstance(cell.get("source", ""), (str, list)):
            raise ValueError(f"nb: cell {i}'s source is neither text nor a list of lines")
        outputs = cell.get("outputs", [])
        if not isinstance(outputs, list) or not all(isinstance(o, dict) for o in outputs):
            raise ValueError(f"nb: cell {i}'s outputs are not a list of outputs")
        for output in outputs:
            if not isinstance(output.get("data", {}), dict):
                raise ValueError(f"nb: cell {i} has an output whose data is not a mapping")
    return nb


def _text(source) -> str:
    return source if isinstance(source, str) else "".join(source)


def offline_notebook(nb):
    """``nb`` made for a page that loads nothing: Markdown math as MathML, and each widget output as the
    static HTML it carries (an :class:`perfstudy.notebook.widgets.Explorer`'s first state) or :data:`WIDGET_NOTE`;
    progress bars are dropped, and so is widget state. Changes ``nb`` in place and returns it.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A version 4 notebook (``nbformat.read(path, as_version=4)``).
    """
    nb = _checked_notebook(nb)
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            cell["source"] = _with_mathml(_text(cell.get("source", "")))
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/markdown" in data:  # a sentence written by the code (Recorder.say) has math too
                data["text/markdown"] = _with_mathml(_text(data["text/markdown"]))
            if _WIDGET in data:
                if _PROGRESS.search(_text(data.get("text/plain", ""))) and "text/html" not in data:
                    continue  # a progress bar: nothing to read once the work is done
                del data[_WIDGET]
                if "text/html" not in data:
                    data["text/html"] = f"<p><i>{WIDGET_NOTE}</i></p>"
                data.pop("text/plain", None)
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept
    nb["metadata"].pop("widgets", None)
    return nb


def _exporter(code: bool):
    """nbconvert's HTML exporter with this project's offline template (``data/nbconvert/offline.html.j2``)."""
    from nbconvert import HTMLExporter

    template = Path(str(importlib.resources.files("perfstudy") / "data" / "nbconvert" / "offline.html.j2"))
    return HTMLExporter(
        template_file=str(template),
        exclude_input=not code,
        exclude_input_prompt=not code,
        exclude_output_prompt=not code,
    )


def _warm_exporter(code: bool):
    """A thread that imports nbconvert and renders an empty notebook with :func:`_exporter`, started before the
    kernel: the import and the template's compiling (0.9 s of the first export's 1.4 s on 2 cores; nbconvert
    keeps compiled templates for the process) happen while this process only waits on the kernel."""
    import threading

    def warm():
        try:
            import nbformat

            _exporter(code).from_notebook_node(nbformat.v4.new_notebook())
        except Exception:  # noqa: BLE001 - a head start only; the export itself reports its own failures
            pass

    thread = threading.Thread(target=warm, name="perfstudy-html-warm-up", daemon=True)
    thread.start()
    return thread


def _to_html(notebook_path: Path, *, code: bool = True) -> Path:
    """The executed notebook as HTML beside it, loading nothing from the network (:func:`offline_notebook`,
    ``data/nbconvert/offline.html.j2``); ``code=False`` leaves out every cell's code and prompts (a report for
    people: the parameters cells, the imports and the plotting calls are not what they read)."""
    import nbformat

    notebook = nbformat.read(notebook_path, as_version=4)
    offline_notebook(notebook)
    body, _ = _exporter(code).from_notebook_node(notebook)
    html_path = notebook_path.with_suffix(".html")
    html_path.write_text(body, encoding="utf-8")
    return html_path


#: what jupyter_client raises when the kernel's process ends before it answers its first request: no cell has run.
#: Seen once in a CI run of the whole suite on a loaded machine (the kernel of a one-cell notebook); a second
#: start ran it
_DIED_STARTING = ("Kernel died before replying to kernel_info",)


def _died_starting(error: BaseException) -> bool:
    """Whether ``error`` is a kernel that ended before it ran anything (:data:`_DIED_STARTING`), so that starting
    another cannot run a cell twice."""
    return isinstance(error, RuntimeError) and str(error).startswith(_DIED_STARTING)


def _execute(path: Path, output: Path, parameters: dict, *, cwd, kernel: dict, html, code: bool = True) -> NotebookRun:
    """Execute one notebook with papermill into ``output`` (and its HTML); a failure is reported in
    the result, never raised. ``kernel`` is how papermill runs it: ``name``, ``timeout`` (a cell's) and
    ``progress`` (papermill's bar)."""
    kernel_name, timeout, progress = kernel["name"], kernel["timeout"], kernel["progress"]
    import papermill as pm

    from perfstudy.notebook._kernel import BatchKernelManager

    start = time.perf_counter()
    error = None
    warming = _warm_exporter(code) if html else None
    for attempt in (1, 2):
        try:
            pm.execute_notebook(
                str(path),
                str(output),
                parameters=parameters,
                kernel_name=kernel_name,
                cwd=str(cwd),
                execution_timeout=timeout,
                progress_bar=progress,
                # the kernel's own log (its "running over TCP without encryption" warning at every start) is
                # noise around the report's table; a cell's errors and warnings reach the notebook, not this log
                extra_arguments=["--IPKernelApp.log_level=ERROR"],
                # a reply whose socket signal was lost under load is found within a quarter second, not at
                # the cell's timeout (perfstudy.notebook._kernel)
                kernel_manager_class=BatchKernelManager,
            )
        except Exception as exc:  # a notebook's failure is reported, not raised
            if attempt == 1 and _died_starting(exc):
                print(f"perfstudy report: {path.stem}: {_describe_failure(exc)}; starting a new kernel, once",
                      file=sys.stderr, flush=True)  # fmt: skip
                continue
            error = _describe_failure(exc, path)
        break
    html_path = None
    if warming is not None:
        warming.join()
    if html and output.exists():
        try:
            html_path = _to_html(output, code=code)
        except Exception as exc:  # rendering problems must not hide the run's own result
            error = error or f"HTML export: {_describe_failure(exc)}"
    seconds = time.perf_counter() - start  # all of it: the kernel's start, every cell and the HTML
    return NotebookRun(path.stem, "failed" if error else "ok", seconds, output, html_path, error)


def execute_notebooks(
    *,
    notebooks_dir=None,
    out_dir="build",
    figures_dir="figures",
    quick: bool = False,
    only=None,
    timeout: float = 1800.0,
    kernel_name: str = "python3",
    html: bool = True,
    progress: bool = True,
    parameters: dict | None = None,
    jobs: int = 1,
) -> list[NotebookRun]:
    """Execute notebooks with papermill; never stops at the first failure.

    Each notebook gets the parameters it declares among ``quick``, ``out_dir`` and ``figures_dir``
    (absolute paths), runs with its own directory as working directory, and is written to
    ``out_dir/<name>.ipynb`` (and ``.html``). A summary goes to ``out_dir/report.json``.

    Parameters
    ----------
    notebooks_dir : path, optional
        Default: :func:`default_notebooks_dir`.
    out_dir, figures_dir : path
    quick : bool
        Passed to the notebooks: shrink every size so each runs in seconds.
    only : str or sequence of str, optional
        See :func:`find_notebooks`.
    timeout : float
        Seconds any one cell may run before the notebook is failed.
    kernel_name : str
    html : bool
        Also render the executed notebooks to HTML.
    progress : bool
        A bar over notebooks, and papermill's bar over cells.
    parameters : dict, optional
        More parameters (e.g. ``{"seed": 7}``), each given to the notebooks that declare it; one that
        no chosen notebook declares is refused.
    jobs : int
        Notebooks run at once, each in a process of its own. A notebook that times this machine (its metadata
        says ``"perfstudy": {"alone": true}``: real commands under its own load) runs alone, after the others,
        so that no other notebook is its load. The others start longest first: as the last report in ``out_dir``
        timed them, else as their metadata's ``"perfstudy": {"seconds": ...}`` says. With more than one job,
        papermill's bar over cells is left out.
    """
    import papermill as pm

    quick, html, progress = check_bool("quick", quick), check_bool("html", html), check_bool("progress", progress)
    jobs = check_int("jobs", jobs, maximum=64)
    timeout = _check_run(timeout, kernel_name)
    notebooks = find_notebooks(default_notebooks_dir() if notebooks_dir is None else notebooks_dir, only)
    out = check_directory("out_dir", out_dir, probe=True)
    figures = check_directory("figures_dir", figures_dir, probe=True)
    extra = {} if parameters is None else parameters
    if not isinstance(extra, dict) or not all(isinstance(k, str) for k in extra):
        raise TypeError(f"parameters: expected a dict of parameter name -> value, got {type(extra).__name__}")
    own = sorted(set(extra) & {"quick", "out_dir", "figures_dir"})
    if own:
        raise ValueError(f"parameters: give {own} as execute_notebooks' own argument(s), not in parameters")
    declared: dict = {}  # each notebook's parameters, or the error that stopped reading them (reported per run)
    for path in notebooks:
        try:
            declared[path] = set(pm.inspect_notebook(str(path)))
        except Exception as exc:  # a corrupt notebook fails alone, like one that raises
            declared[path] = exc
    if extra:
        declared_anywhere = set().union(*(names for names in declared.values() if isinstance(names, set)))
        unknown = sorted(set(extra) - declared_anywhere)
        if unknown:
            raise ValueError(f"parameters: {unknown} declared by none of {[p.stem for p in notebooks]}")
    offered = {**extra, "quick": quick, "out_dir": str(out), "figures_dir": str(figures)}

    finished: dict[Path, NotebookRun] = {}
    tasks = []
    for path in notebooks:
        output = out / path.name
        if isinstance(declared[path], Exception):
            error = f"{path.name}: {_describe_failure(declared[path])}"
            finished[path] = NotebookRun(path.stem, "failed", 0.0, output, None, error)
            continue
        parameters = {k: v for k, v in offered.items() if k in declared[path]}
        kernel = dict(name=kernel_name, timeout=timeout, progress=progress and jobs == 1)
        tasks.append((path, (path, output, parameters), dict(cwd=path.parent, kernel=kernel, html=html)))
    bar = tqdm(total=len(tasks), desc="notebooks", unit="nb", disable=not progress)
    shared = [task for task in tasks if jobs > 1 and not _runs_alone(task[0])]
    # the longest first (as the last report in out_dir timed them, else as each notebook's metadata says), so that
    # no long notebook starts last and runs by itself while the other workers wait
    previous = _previous_seconds(out)
    shared.sort(key=lambda task: -previous.get(task[0].stem, _metadata(task[0]).get("seconds", 0.0)))
    if shared:
        finished.update(_execute_in_pool(shared, jobs, bar))
    for path, args, options in tasks:
        if path in finished:
            continue
        bar.set_postfix_str(path.stem + (" (alone)" if jobs > 1 else ""))
        finished[path] = _execute(*args, **options)
        bar.update()
    bar.close()
    runs = [finished[path] for path in notebooks]
    summary = [{**run.__dict__, "output": str(run.output), "html": str(run.html) if run.html else None} for run in runs]
    _write_atomically(out / "report.json", json.dumps(summary, indent=1))
    return runs


def _execute_in_pool(tasks: list, jobs: int, bar) -> dict:
    """Run ``tasks`` (path, arguments, options of :func:`_execute`) in ``jobs`` spawned processes (not forked: a
    fork of a process holding tqdm's and zmq's threads can hang); each notebook's run, by path, as it ends.

    Ctrl-C while they run ends every worker at once (each kernel, polling its parent, then exits),
    rather than waiting for the cells in flight to end."""
    import queue
    from multiprocessing import get_context

    ended: queue.SimpleQueue = queue.SimpleQueue()
    from perfstudy._lib.notebook_imports import without_iri_grammars

    pool = get_context("spawn").Pool(
        processes=min(jobs, len(tasks)), maxtasksperchild=1, initializer=without_iri_grammars
    )
    runs = {}
    try:
        for path, args, options in tasks:
            pool.apply_async(
                _execute,
                args,
                options,
                callback=lambda run, path=path: ended.put((path, run, None)),
                error_callback=lambda error, path=path: ended.put((path, None, error)),
            )
        bar.set_postfix_str(f"{len(tasks)} at up to {jobs} at once")
        for _ in tasks:
            path, run, error = ended.get()
            if error is not None:  # _execute reports a notebook's own failure; this is the pool's
                raise error
            runs[path] = run
            bar.update()
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return runs


def _metadata(path: Path) -> dict:
    """A notebook's ``"perfstudy"`` metadata: ``alone`` (it times this machine and must not share it), ``seconds``
    (about how long a full run takes, to start the longest first); ``{"alone": True}`` for an unreadable one, which
    then fails on its own, in the sequential phase."""
    try:
        found = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("perfstudy", {})
    except (OSError, ValueError, AttributeError):
        return {"alone": True}
    return found if isinstance(found, dict) else {}


def _runs_alone(path: Path) -> bool:
    """Whether a notebook times this machine and must not share it (metadata ``"perfstudy": {"alone": true}``)."""
    return bool(_metadata(path).get("alone", False))


def _previous_seconds(out: Path) -> dict:
    """Each notebook's seconds in the last report written to ``out`` (``report.json``), where it ran."""
    try:
        rows = json.loads((out / "report.json").read_text())
        return {r["name"]: float(r["seconds"]) for r in rows if r.get("status") == "ok"}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _check_run(timeout, kernel_name) -> float:
    timeout = check_real("timeout", timeout, positive=True, what="number of seconds")
    if not isinstance(kernel_name, str) or not kernel_name:
        raise TypeError(f"kernel_name={kernel_name!r}: expected the name of a Jupyter kernel, e.g. 'python3'")
    return timeout


def execute_analysis(
    paths,
    *,
    out_dir="build/analyze",
    threshold: float | None = None,
    quick: bool = False,
    timeout: float = 1800.0,
    kernel_name: str = "python3",
    html: bool = True,
    progress: bool = True,
    dropna: bool = False,
) -> NotebookRun:
    """Run the ``analyze`` template notebook on benchmark files (``perfstudy analyze``).

    The executed notebook and its HTML go to ``out_dir/analyze.ipynb`` and ``.html``, its figures
    to ``out_dir/figures``, its records to ``out_dir/analyze.json``.

    Parameters
    ----------
    paths : sequence of path
        The files (see :func:`perfstudy.io.read`); the first is version A, the second B.
    out_dir : path
    threshold : float, optional
        Smallest relative change that matters, for the comparison (default 0.02; for a perfstudy run's
        file, the threshold the run was judged by).
    quick : bool
        Fewer bootstrap replicates and permutations.
    timeout : float
        Seconds any one cell may run.
    kernel_name : str
    html : bool
        Also render the executed notebook to HTML.
    progress : bool
        papermill's bar over cells.
    dropna : bool
        Read the files with ``dropna=True``: values that are missing or not numbers (a failed benchmark) are left
        out and counted, as :func:`perfstudy.io.read` does.

    Raises
    ------
    FileNotFoundError
        A path that is not a file (checked before anything runs).
    """
    if isinstance(paths, (str, os.PathLike)) or not isinstance(paths, (list, tuple)) or not paths:
        raise TypeError(f"paths={paths!r}: expected a non-empty list of file paths")
    if not all(isinstance(p, (str, os.PathLike)) for p in paths):
        raise TypeError(f"paths={paths!r}: expected file paths")
    paths = [Path(p).resolve() for p in paths]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"paths: {path}: no such file")
    if threshold is not None:
        threshold = float(check_real("threshold", threshold, nonnegative=True, what="relative change"))
    quick, html, progress = check_bool("quick", quick), check_bool("html", html), check_bool("progress", progress)
    dropna = check_bool("dropna", dropna)
    timeout = _check_run(timeout, kernel_name)
    template = Path(str(importlib.resources.files("perfstudy") / "notebooks" / "analyze.ipynb"))
    out = check_directory("out_dir", out_dir, probe=True)
    check_directory("out_dir", out / "figures", probe=True)
    output = out / "analyze.ipynb"
    parameters = dict(
        paths=[str(p) for p in paths],
        out_dir=str(out),
        figures_dir=str(out / "figures"),
        threshold=threshold,
        quick=bool(quick),
        dropna=bool(dropna),
    )
    return _execute(
        template,
        output,
        parameters,
        cwd=out,
        kernel=dict(name=kernel_name, timeout=timeout, progress=progress),
        html=html,
        code=False,
    )


def format_table(runs) -> str:
    """A plain-text table: notebook, status, seconds, where it failed.

    Parameters
    ----------
    runs : sequence of NotebookRun
        From :func:`execute_notebooks`.
    """
    if not isinstance(runs, (list, tuple)) or not all(isinstance(r, NotebookRun) for r in runs):
        raise TypeError(f"runs: expected a list of NotebookRun, got {type(runs).__name__}")
    header = ("notebook", "status", "seconds", "where it failed")
    rows = [(r.name, r.status, f"{r.seconds:.1f}", r.error or "") for r in runs]
    widths = [max(len(str(x)) for x in column) for column in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(header), line("-" * w for w in widths)] + [line(r) for r in rows])
