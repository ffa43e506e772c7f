"""Plumbing shared by every package and used by none of perfstudy's users directly: argument checks
(``checks``), the result protocol (``result``), numbers and units as people read them (``format``,
``units``), Student's t without scipy (``tdist``), random streams and executors (``parallel``), lazy
exports (``lazy``).
"""
