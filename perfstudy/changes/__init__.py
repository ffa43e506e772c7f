"""Change points over a project's commits: :func:`history` and its :class:`History`; the inputs it reads
(:func:`read_history`); the commits a side a change of a given size needs (:func:`commits_for_change`); the table, Markdown, JSON and HTML a person reads (:func:`format_history`,
:func:`history_html`).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.changes._history import CHANGE_VERDICTS, History, history
    from perfstudy.changes._inputs import read_history
    from perfstudy.changes._power import commits_for_change
    from perfstudy.changes._render import format_history, history_html
    from perfstudy.changes._settings import DEFAULT_WIDTHS, HistorySettings

_HOMES = {
    "CHANGE_VERDICTS": "._history",
    "DEFAULT_WIDTHS": "._settings",
    "History": "._history",
    "history": "._history",
    "commits_for_change": "._power",
    "read_history": "._inputs",
    "format_history": "._render",
    "history_html": "._render",
    "HistorySettings": "._settings",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

__all__ = [
    "CHANGE_VERDICTS",
    "DEFAULT_WIDTHS",
    "History",
    "HistorySettings",
    "history",
    "commits_for_change",
    "read_history",
    "format_history",
    "history_html",
]
