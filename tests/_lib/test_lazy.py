"""A package's lazy exports: a name is imported from its home when first read, listed by dir() before, and an
unknown name is an AttributeError naming the package."""

import sys
import types

import pytest

from perfstudy._lib.lazy import lazy_exports


def test_a_name_is_imported_from_its_home_on_first_use_and_kept():
    package = types.ModuleType("fake_lazy_package")
    sys.modules["fake_lazy_package"] = package
    try:
        getattr_, dir_ = lazy_exports("fake_lazy_package", {"sqrt": "math"})
        assert "sqrt" in dir_() and "sqrt" not in vars(package)
        import math

        assert getattr_("sqrt") is math.sqrt and vars(package)["sqrt"] is math.sqrt  # kept: read once
        with pytest.raises(AttributeError, match="module 'fake_lazy_package' has no attribute 'cbrt'"):
            getattr_("cbrt")
    finally:
        del sys.modules["fake_lazy_package"]


def test_every_package_exports_its_names_lazily():
    import perfstudy.comparison as comparison

    assert "CompareSettings" in dir(comparison)
    from perfstudy.comparison.settings import CompareSettings

    assert comparison.CompareSettings is CompareSettings
