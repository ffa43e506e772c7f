"""What the notebooks and the report are made of: figures (``plots``), ipywidgets explorers (``widgets``),
numbers a notebook records (``records``), and the papermill runner that writes ``build/`` (``report``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.notebook.records import Recorder, load_records, to_jsonable
    from perfstudy.notebook.report import (
        NotebookRun,
        default_notebooks_dir,
        execute_analysis,
        execute_notebooks,
        find_notebooks,
        format_table,
        offline_notebook,
    )
    from perfstudy.notebook.widgets import (
        STATIC_NOTE,
        Explorer,
        NumberText,
        bootstrap_explorer,
        design_explorer,
        explorer,
        explorer_figure,
        figure_html,
        peak_rate_explorer,
        with_static_html,
    )

_HOMES = {
    "Recorder": ".records",
    "load_records": ".records",
    "to_jsonable": ".records",
    "NotebookRun": ".report",
    "default_notebooks_dir": ".report",
    "find_notebooks": ".report",
    "execute_notebooks": ".report",
    "execute_analysis": ".report",
    "format_table": ".report",
    "offline_notebook": ".report",
    "explorer": ".widgets",
    "Explorer": ".widgets",
    "STATIC_NOTE": ".widgets",
    "with_static_html": ".widgets",
    "NumberText": ".widgets",
    "explorer_figure": ".widgets",
    "figure_html": ".widgets",
    "design_explorer": ".widgets",
    "bootstrap_explorer": ".widgets",
    "peak_rate_explorer": ".widgets",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "Recorder",
    "load_records",
    "to_jsonable",
    "NotebookRun",
    "default_notebooks_dir",
    "find_notebooks",
    "execute_notebooks",
    "execute_analysis",
    "format_table",
    "offline_notebook",
    "explorer",
    "Explorer",
    "STATIC_NOTE",
    "with_static_html",
    "NumberText",
    "explorer_figure",
    "figure_html",
    "design_explorer",
    "bootstrap_explorer",
    "peak_rate_explorer",
]
