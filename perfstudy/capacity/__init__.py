"""A server's peak rate (Shivam et al., ATC'08): a simulated server with a known peak (``server_model``),
the peak-rate search (``peak_search``), and response surfaces over a server's factors
(``response_surface``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.capacity.peak_search import (
        POLICIES as POLICIES,
        PeakSearch as PeakSearch,
        find_peak_rate as find_peak_rate,
        trials_needed as trials_needed,
    )
    from perfstudy.capacity.response_surface import (
        QuadraticSurface as QuadraticSurface,
        Surface as Surface,
        d_optimal as d_optimal,
        fit_quadratic_surface as fit_quadratic_surface,
        map_response_surface as map_response_surface,
        quadratic_design as quadratic_design,
    )
    from perfstudy.capacity.server_model import (
        SimulatedServer as SimulatedServer,
        check_runlength as check_runlength,
        check_server as check_server,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__)
