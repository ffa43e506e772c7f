"""What a reader sees in a matplotlib figure: its panels' titles, its legend's labels, the lines and bars drawn."""

from __future__ import annotations

import numpy as np


def panels(fig) -> list:
    """The axes that carry data (not colour bars or empty grid cells)."""
    return [ax for ax in fig.axes if ax.get_visible() and (ax.lines or ax.patches or ax.collections)]


def legend_labels(ax) -> list[str]:
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend is not None else []


def bar_heights(ax) -> np.ndarray:
    return np.array([p.get_height() for p in ax.patches])


def bar_widths(ax) -> np.ndarray:
    return np.array([p.get_width() for p in ax.patches])


def vertical_lines(ax) -> list[tuple[float, str, str]]:
    """``(x, colour, style)`` of each axvline: a line whose two x are equal and whose y span the axes."""
    import matplotlib.colors

    out = []
    for line in ax.lines:
        x = np.asarray(line.get_xdata(), dtype=float)
        if x.size == 2 and x[0] == x[1] and line.get_transform() != ax.transData:
            out.append((float(x[0]), matplotlib.colors.to_hex(line.get_color()), line.get_linestyle()))
    return out


def horizontal_lines(ax) -> list[float]:
    out = []
    for line in ax.lines:
        y = np.asarray(line.get_ydata(), dtype=float)
        if y.size == 2 and y[0] == y[1] and line.get_transform() != ax.transData:
            out.append(float(y[0]))
    return out


def texts(fig) -> str:
    """Every text of the figure, titles and annotations included, one a line."""
    return "\n".join(t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text")) if t.get_text())


def errorbars(ax) -> dict[str, tuple[list[float], list[float]]]:
    """Each errorbar's label to the x and y of its points."""
    from matplotlib.container import ErrorbarContainer

    return {
        c.get_label(): (list(map(float, c.lines[0].get_xdata())), list(map(float, c.lines[0].get_ydata())))
        for c in ax.containers
        if isinstance(c, ErrorbarContainer)
    }
