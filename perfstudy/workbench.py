"""Deprecated: the workbench held three concepts, each now a module of its own.

- :mod:`perfstudy.simulated_server`: :class:`~perfstudy.simulated_server.SimulatedServer`, the model
  of a server under load with a known peak rate;
- :mod:`perfstudy.peak_search`: :func:`~perfstudy.peak_search.find_peak_rate`,
  :func:`~perfstudy.peak_search.trials_needed`, :class:`~perfstudy.peak_search.PeakSearch` and
  :data:`~perfstudy.peak_search.POLICIES` (Shivam et al., Algorithms 2-4);
- :mod:`perfstudy.response_surface`: :func:`~perfstudy.response_surface.map_response_surface`,
  :func:`~perfstudy.response_surface.d_optimal`, :func:`~perfstudy.response_surface.quadratic_design`,
  :func:`~perfstudy.response_surface.fit_quadratic_surface` and their results (section 4).

Every old name still imports from here, with a DeprecationWarning naming its new home; this module
goes in the next release.
"""

from __future__ import annotations

from perfstudy._deprecation import moved_names

#: old name -> the module that holds it now
MOVED = {
    **dict.fromkeys(("SimulatedServer", "MAX_TRIALS"), "perfstudy.simulated_server"),
    **dict.fromkeys(
        ("PeakSearch", "find_peak_rate", "trials_needed", "POLICIES", "MAX_LOADS"), "perfstudy.peak_search"
    ),
    **dict.fromkeys(
        (
            "Surface",
            "map_response_surface",
            "d_optimal",
            "quadratic_design",
            "fit_quadratic_surface",
            "QuadraticSurface",
        ),
        "perfstudy.response_surface",
    ),
}

__all__: list[str] = []  # nothing new is defined here


__getattr__ = moved_names(__name__, {name: f"{where}.{name}" for name, where in MOVED.items()})
