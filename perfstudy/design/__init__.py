"""Designing a distributed benchmark (Bakshy & Frachtenberg, WWW'15): the random-effects model and its
simulator (``model``), who runs what where (``schedules``), the standard errors of the four designs and
what a budget buys (``standard_errors``), variance components from your own runs (``estimate``, REML),
clustered bootstraps (``bootstrap``) and their Type I error under A/A tests (``type1_errors``), and
simulated against analytic standard errors (``simulated_errors``).
"""

from typing import TYPE_CHECKING

from perfstudy._lib.lazy import lazy_exports

if TYPE_CHECKING:
    from perfstudy.design.bootstrap import (
        DENOMINATORS as DENOMINATORS,
        WEIGHTS as WEIGHTS,
        BootstrapResult as BootstrapResult,
        check_denominator as check_denominator,
        check_denominators as check_denominators,
        check_weights as check_weights,
        clustered_bootstrap as clustered_bootstrap,
        clustered_bootstraps as clustered_bootstraps,
        host_blocks as host_blocks,
    )
    from perfstudy.design.estimate import (
        BOOTSTRAP_BLOCK as BOOTSTRAP_BLOCK,
        SCHEDULE_TERMS as SCHEDULE_TERMS,
        SINGULAR_TOL as SINGULAR_TOL,
        WWW15_TERMS as WWW15_TERMS,
        ConvergenceWarning as ConvergenceWarning,
        FitIntervals as FitIntervals,
        VarianceFit as VarianceFit,
        fit_variance_components as fit_variance_components,
    )
    from perfstudy.design.model import (
        CHUNK_EXPERIMENTS as CHUNK_EXPERIMENTS,
        PERFLAB_ENDPOINTS as PERFLAB_ENDPOINTS,
        DrawnEffects as DrawnEffects,
        Simulation as Simulation,
        VarianceComponents as VarianceComponents,
        check_components as check_components,
        clustered_standard_error as clustered_standard_error,
        design_effect as design_effect,
        intraclass_correlation as intraclass_correlation,
        sample_delta_hat as sample_delta_hat,
        simulate as simulate,
    )
    from perfstudy.design.schedules import (
        BATCHES as BATCHES,
        BYTES_PER_OBSERVATION as BYTES_PER_OBSERVATION,
        DESIGNS as DESIGNS,
        Schedule as Schedule,
        check_design as check_design,
        check_hosts as check_hosts,
        check_size as check_size,
        pilot_schedule as pilot_schedule,
        schedule as schedule,
    )
    from perfstudy.design.simulated_errors import (
        SweepResult as SweepResult,
        standard_error_sweep as standard_error_sweep,
    )
    from perfstudy.design.standard_errors import (
        Allocation as Allocation,
        AllocationResult as AllocationResult,
        CostModel as CostModel,
        DesignComparison as DesignComparison,
        DuplicationCoefficients as DuplicationCoefficients,
        compare_designs as compare_designs,
        duplication_coefficients as duplication_coefficients,
        optimal_allocation as optimal_allocation,
        standard_error as standard_error,
        variance_from_schedule as variance_from_schedule,
    )
    from perfstudy.design.type1_errors import (
        BOOTSTRAPS as BOOTSTRAPS,
        ROWS as ROWS,
        AATests as AATests,
        aa_tests as aa_tests,
        bootstrap_clusters as bootstrap_clusters,
        segment_aa_study as segment_aa_study,
        type1_error_table as type1_error_table,
        type1_error_tables as type1_error_tables,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__)
