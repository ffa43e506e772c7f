"""Change points over a project's commits: :func:`history` and its :class:`History`; the inputs it reads
(:func:`read_history`); the commits a side a change of a given size needs (:func:`commits_for_change`); the table, Markdown, JSON and HTML a person reads (:func:`format_history`,
:func:`history_html`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.changes._history import CHANGE_VERDICTS as CHANGE_VERDICTS, History as History, history as history
    from perfstudy.changes._inputs import read_history as read_history
    from perfstudy.changes._power import commits_for_change as commits_for_change
    from perfstudy.changes._render import format_history as format_history, history_html as history_html
    from perfstudy.changes._settings import DEFAULT_WIDTHS as DEFAULT_WIDTHS, HistorySettings as HistorySettings

__getattr__, __dir__, __all__ = lazy_exports(__name__)
