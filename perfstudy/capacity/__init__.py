"""A server's peak rate (Shivam et al., ATC'08): a simulated server with a known peak (``server_model``),
the peak-rate search (``peak_search``), and response surfaces over a server's factors
(``response_surface``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.capacity.peak_search import POLICIES, PeakSearch, find_peak_rate, trials_needed
    from perfstudy.capacity.response_surface import (
        QuadraticSurface,
        Surface,
        d_optimal,
        fit_quadratic_surface,
        map_response_surface,
        quadratic_design,
    )
    from perfstudy.capacity.server_model import SimulatedServer, check_runlength, check_server

_HOMES = {
    "SimulatedServer": ".server_model",
    "check_server": ".server_model",
    "check_runlength": ".server_model",
    "PeakSearch": ".peak_search",
    "find_peak_rate": ".peak_search",
    "trials_needed": ".peak_search",
    "POLICIES": ".peak_search",
    "Surface": ".response_surface",
    "map_response_surface": ".response_surface",
    "d_optimal": ".response_surface",
    "quadratic_design": ".response_surface",
    "fit_quadratic_surface": ".response_surface",
    "QuadraticSurface": ".response_surface",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "SimulatedServer",
    "check_server",
    "check_runlength",
    "PeakSearch",
    "find_peak_rate",
    "trials_needed",
    "POLICIES",
    "Surface",
    "map_response_surface",
    "d_optimal",
    "quadratic_design",
    "fit_quadratic_surface",
    "QuadraticSurface",
]
