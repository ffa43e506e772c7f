"""Is B faster than A, by how much, and can it be trusted: :func:`compare` and its :class:`Comparison`, the
verdict rule (:func:`verdict`), the paired comparison over rounds (``paired``), and anytime-valid
intervals (``sequential``); :func:`compare_files`, two benchmark files of any harness compared without pandas, and
the :class:`Report` it and :meth:`Comparison.report` give; :class:`CompareSettings`, their settings as one checked object.
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.comparison._batch_checks import odd_batches as odd_batches, warmup_check as warmup_check
    from perfstudy.comparison._by_benchmark import benchmarks_as_versions as benchmarks_as_versions
    from perfstudy.comparison._compare import (
        Comparison as Comparison,
        compare as compare,
        format_comparison as format_comparison,
    )
    from perfstudy.comparison._files import compare_files as compare_files
    from perfstudy.comparison._intervals import (
        BLOCK_STATISTICS as BLOCK_STATISTICS,
        CORRECTIONS as CORRECTIONS,
        MIN_BOOTSTRAP_CLUSTERS as MIN_BOOTSTRAP_CLUSTERS,
        SCALES as SCALES,
        SEQUENTIAL_RULES as SEQUENTIAL_RULES,
        STATISTICS as STATISTICS,
        VERDICTS as VERDICTS,
        adjust_p_values as adjust_p_values,
    )
    from perfstudy.comparison._paired import (
        block_differences as block_differences,
        host_and_round_variance as host_and_round_variance,
    )
    from perfstudy.comparison._render import Report as Report
    from perfstudy.comparison._suite import verdict as verdict
    from perfstudy.comparison.sequential import (
        DEFAULT_SCALE as DEFAULT_SCALE,
        ConfidenceSequence as ConfidenceSequence,
        rounds_needed as rounds_needed,
        t_confidence_sequence as t_confidence_sequence,
    )
    from perfstudy.comparison.settings import CompareSettings as CompareSettings

__getattr__, __dir__, __all__ = lazy_exports(__name__)
