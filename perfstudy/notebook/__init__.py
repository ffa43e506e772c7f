"""What the notebooks and the report are made of: figures (``plots``), ipywidgets explorers (``widgets``),
numbers a notebook records (``records``), and the papermill runner that writes ``build/`` (``report``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.notebook.records import (
        Recorder as Recorder,
        load_records as load_records,
        to_jsonable as to_jsonable,
    )
    from perfstudy.notebook.report import (
        NotebookRun as NotebookRun,
        default_notebooks_dir as default_notebooks_dir,
        execute_analysis as execute_analysis,
        execute_notebooks as execute_notebooks,
        find_notebooks as find_notebooks,
        format_table as format_table,
        offline_notebook as offline_notebook,
    )
    from perfstudy.notebook.widgets import (
        STATIC_NOTE as STATIC_NOTE,
        Explorer as Explorer,
        NumberText as NumberText,
        bootstrap_explorer as bootstrap_explorer,
        design_explorer as design_explorer,
        explorer as explorer,
        explorer_figure as explorer_figure,
        figure_html as figure_html,
        peak_rate_explorer as peak_rate_explorer,
        with_static_html as with_static_html,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__)
