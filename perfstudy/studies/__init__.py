"""The reproductions: one module per paper, built only from perfstudy's public functions.

Each module holds its paper's published numbers once, with table and row cited, and one function
per table or figure that returns what the notebook plots and records.

- :mod:`~perfstudy.studies.bakshy2015`: Bakshy & Frachtenberg, WWW 2015 (notebooks 01, 02).
- :mod:`~perfstudy.studies.maricq2018`: Maricq et al., OSDI 2018 (notebooks 03, 05).
- :mod:`~perfstudy.studies.kolaczkowski`: "Estimating Benchmark Results Uncertainty" (notebook 03).
- :mod:`~perfstudy.studies.he2019`: He et al. (PT4Cloud), ESEC/FSE 2019 (notebook 04).
- :mod:`~perfstudy.studies.shivam2008`: Shivam et al., USENIX ATC 2008 (notebook 06).
- :mod:`~perfstudy.studies.public_data`: what one series is in each registered public dataset.
- :mod:`~perfstudy.studies.versions`: A/A calibration and power of :func:`perfstudy.comparison._compare.compare`
  on real series (notebook 08).
- :mod:`~perfstudy.studies.explorers`: PT4Cloud's and CONFIRM's explorers on the papers' data, and
  the app of every explorer (``perfstudy explore``).
"""

__all__: list[str] = []
