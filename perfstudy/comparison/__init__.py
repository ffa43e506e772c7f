"""Is B faster than A, by how much, and can it be trusted: :func:`compare` and its :class:`Comparison`, the
verdict rule (:func:`verdict`), the paired comparison over rounds (``paired``), and anytime-valid
intervals (``sequential``); :func:`compare_files`, two benchmark files of any harness compared without pandas, and
the :class:`Report` it and :meth:`Comparison.report` give; :class:`CompareSettings`, their settings as one checked object.
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.comparison._batch_checks import odd_batches, warmup_check
    from perfstudy.comparison._by_benchmark import benchmarks_as_versions
    from perfstudy.comparison._compare import Comparison, compare, format_comparison
    from perfstudy.comparison._files import compare_files
    from perfstudy.comparison._intervals import (
        BLOCK_STATISTICS,
        CORRECTIONS,
        MIN_BOOTSTRAP_CLUSTERS,
        SCALES,
        SEQUENTIAL_RULES,
        STATISTICS,
        VERDICTS,
        adjust_p_values,
    )
    from perfstudy.comparison._paired import block_differences, host_and_round_variance
    from perfstudy.comparison._render import Report
    from perfstudy.comparison._suite import verdict
    from perfstudy.comparison.sequential import DEFAULT_SCALE, ConfidenceSequence, rounds_needed, t_confidence_sequence
    from perfstudy.comparison.settings import CompareSettings

_HOMES = {
    "STATISTICS": "._intervals",
    "BLOCK_STATISTICS": "._intervals",
    "SEQUENTIAL_RULES": "._intervals",
    "CORRECTIONS": "._intervals",
    "VERDICTS": "._intervals",
    "SCALES": "._intervals",
    "MIN_BOOTSTRAP_CLUSTERS": "._intervals",
    "Comparison": "._compare",
    "CompareSettings": ".settings",
    "compare": "._compare",
    "verdict": "._suite",
    "adjust_p_values": "._intervals",
    "format_comparison": "._compare",
    "Report": "._render",
    "compare_files": "._files",
    "benchmarks_as_versions": "._by_benchmark",
    "odd_batches": "._batch_checks",
    "warmup_check": "._batch_checks",
    "block_differences": "._paired",
    "host_and_round_variance": "._paired",
    "ConfidenceSequence": ".sequential",
    "t_confidence_sequence": ".sequential",
    "rounds_needed": ".sequential",
    "DEFAULT_SCALE": ".sequential",
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
__all__ = [
    "STATISTICS",
    "BLOCK_STATISTICS",
    "SEQUENTIAL_RULES",
    "CORRECTIONS",
    "VERDICTS",
    "SCALES",
    "MIN_BOOTSTRAP_CLUSTERS",
    "Comparison",
    "CompareSettings",
    "compare",
    "verdict",
    "adjust_p_values",
    "format_comparison",
    "Report",
    "compare_files",
    "benchmarks_as_versions",
    "odd_batches",
    "warmup_check",
    "block_differences",
    "host_and_round_variance",
    "ConfidenceSequence",
    "t_confidence_sequence",
    "rounds_needed",
    "DEFAULT_SCALE",
]
