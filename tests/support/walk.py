"""The walk of perfstudy's public modules and callables that the vocabulary, result and bad-input
tests share: every public module, and each public callable named where a reader finds it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import perfstudy
import perfstudy.studies

PRIVATE = {"perfstudy.__main__"}


#: modules of the private plumbing whose functions users still call (executors, units)
PLUMBING = ("perfstudy._lib.parallel", "perfstudy._lib.units")


def is_public(module_name: str) -> bool:
    return module_name in PLUMBING or not any(part.startswith("_") for part in module_name.split(".")[1:])


MODULES = sorted(
    module.name
    for module in pkgutil.walk_packages(perfstudy.__path__, "perfstudy.")
    if module.name not in PRIVATE and is_public(module.name)
)


def home(obj, module_name: str) -> str:
    """Where a reader finds ``obj``: the module that defines it when that module is public, else the
    package that exports it (``perfstudy.comparison.compare``, defined in a private module)."""
    defined = getattr(obj, "__module__", "") or ""
    return defined if defined.startswith("perfstudy.") and is_public(defined) else module_name


def _public(module):
    for name in getattr(module, "__all__", []):
        yield name, getattr(module, name)


def _callables():
    """``(qualified name, callable)`` for every public function, class and public method."""
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, obj in _public(module):
            if home(obj, module_name) != module_name:
                continue  # walked where it is defined
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj
            elif inspect.isclass(obj):
                if getattr(obj, "_is_protocol", False):
                    continue  # a Protocol describes methods; its implementations are walked
                if not issubclass(obj, BaseException):
                    yield f"{module_name}.{name}", obj
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and inspect.isfunction(member):
                        yield f"{module_name}.{name}.{attr}", member


CALLABLES = dict(_callables())
