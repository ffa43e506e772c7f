"""When has a distribution stopped changing: PT4Cloud (He et al., FSE'19; ``pt4cloud``), the stopping rules
it is compared with (``stopping_rules``), and the kernel densities both use (``kde``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.stability.pt4cloud import (
        FLOOR,
        MIN_SAMPLES,
        ConfidenceBand,
        Divergence,
        PT4CloudResult,
        ShortIntervalResult,
        accuracy,
        confidence_band,
        divergence,
        hourly_sample,
        pt4cloud_short,
        split_intervals,
        stability_probability,
    )
    from perfstudy.stability.stopping_rules import StoppingResult, repetitiveness, sota1, sota2

_HOMES = {
    "FLOOR": ".pt4cloud",
    "MIN_SAMPLES": ".pt4cloud",
    "Divergence": ".pt4cloud",
    "divergence": ".pt4cloud",
    "stability_probability": ".pt4cloud",
    "accuracy": ".pt4cloud",
    "ConfidenceBand": ".pt4cloud",
    "confidence_band": ".pt4cloud",
    "split_intervals": ".pt4cloud",
    "PT4CloudResult": ".pt4cloud",
    "ShortIntervalResult": ".pt4cloud",
    "pt4cloud_short": ".pt4cloud",
    "hourly_sample": ".pt4cloud",
    "StoppingResult": ".stopping_rules",
    "sota1": ".stopping_rules",
    "sota2": ".stopping_rules",
    "repetitiveness": ".stopping_rules",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "FLOOR",
    "MIN_SAMPLES",
    "Divergence",
    "divergence",
    "stability_probability",
    "accuracy",
    "ConfidenceBand",
    "confidence_band",
    "split_intervals",
    "PT4CloudResult",
    "ShortIntervalResult",
    "pt4cloud_short",
    "hourly_sample",
    "StoppingResult",
    "sota1",
    "sota2",
    "repetitiveness",
]
