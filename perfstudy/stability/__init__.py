"""When has a distribution stopped changing: PT4Cloud (He et al., FSE'19; ``pt4cloud``), the stopping rules
it is compared with (``stopping_rules``), and the kernel densities both use (``kde``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.stability.pt4cloud import (
        FLOOR as FLOOR,
        MIN_SAMPLES as MIN_SAMPLES,
        ConfidenceBand as ConfidenceBand,
        Divergence as Divergence,
        PT4CloudResult as PT4CloudResult,
        ShortIntervalResult as ShortIntervalResult,
        accuracy as accuracy,
        confidence_band as confidence_band,
        divergence as divergence,
        hourly_sample as hourly_sample,
        pt4cloud_short as pt4cloud_short,
        split_intervals as split_intervals,
        stability_probability as stability_probability,
    )
    from perfstudy.stability.stopping_rules import (
        StoppingResult as StoppingResult,
        repetitiveness as repetitiveness,
        sota1 as sota1,
        sota2 as sota2,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__)
