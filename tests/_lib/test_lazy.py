"""A package's lazy exports, named once in its ``if TYPE_CHECKING:`` imports: a name is imported from its home when
first read, listed by dir() and __all__ before, and an unknown name is an AttributeError naming the package."""

import sys
import types

import pytest

from perfstudy._lib.lazy import exported, lazy_exports

SOURCE = """from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from math import sqrt as sqrt
    from os.path import (
        basename as basename,
        join as join,
    )

x = 1
"""


def test_the_type_checking_imports_are_the_one_list():
    assert exported(SOURCE) == {"sqrt": "math", "basename": "os.path", "join": "os.path"}
    assert exported("import math\n") == {}


def test_a_name_is_imported_from_its_home_on_first_use_and_kept(tmp_path):
    package = types.ModuleType("fake_lazy_package")
    (tmp_path / "__init__.py").write_text(SOURCE)
    package.__file__ = str(tmp_path / "__init__.py")
    sys.modules["fake_lazy_package"] = package
    try:
        getattr_, dir_, all_ = lazy_exports("fake_lazy_package")
        assert all_ == ["sqrt", "basename", "join"]
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
