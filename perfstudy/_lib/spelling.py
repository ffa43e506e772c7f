"""How a verb's settings name themselves in an error: the argument in the library (``max_rounds``), the option on the
command line (``--max-rounds``). The settings objects of ``compare``, ``run`` and ``history`` share it: each names its
table of options and the flags it can advise."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

__all__ = ["Spelled"]


class Spelled:
    """A mixin for a frozen settings dataclass with a ``spelling`` field (``"python"`` or ``"cli"``)."""

    __slots__ = ()

    #: each setting's option on the command line
    OPTIONS: ClassVar[Mapping[str, str]] = {}
    #: what a setting is, for the refusal of a name that is none ("a run's setting")
    KIND: ClassVar[str] = "setting"
    #: the on/off settings whose advice reads ``dropna=True`` or ``--dropna``
    FLAGS: ClassVar[tuple[str, ...]] = ()

    def option(self, setting: str) -> str:
        """The setting as the user writes it: ``max_rounds`` in the library, ``--max-rounds`` on the command line.

        Parameters
        ----------
        setting : str
            A field's name.
        """
        if setting not in self.OPTIONS:
            raise ValueError(f"setting={setting!r}: not a {self.KIND}; expected one of {sorted(self.OPTIONS)}")
        return self.OPTIONS[setting] if getattr(self, "spelling", "python") == "cli" else setting

    @classmethod
    def one_source(cls, settings, keywords: dict, *, defaults: bool = False):
        """A call's settings from one place: ``settings`` (an instance of this class), or else ``keywords`` (the
        call's ``**keywords``, a convenience) built into one; a keyword that is no setting, or keywords beside
        ``settings``, are refused by name.

        Parameters
        ----------
        settings : instance of this class, or None
        keywords : dict
        defaults : bool
            ``keywords`` holds every setting, with its default where the call did not give it (a signature that
            writes each setting): only those that differ from the default, in value or in type, count as given.
        """
        import dataclasses

        if defaults:
            plain = {f.name: f.default for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
            keywords = {key: v for key, v in keywords.items() if key not in plain or not _same(v, plain[key])}
        known = {f.name for f in dataclasses.fields(cls) if f.init}  # type: ignore[arg-type]
        unknown = sorted(set(keywords) - known)
        if unknown:
            raise TypeError(
                f"{unknown[0]}: not one of {cls.__name__}'s settings; expected some of {sorted(cls.OPTIONS)}"
            )
        if settings is None:
            return cls(**keywords)
        if not isinstance(settings, cls):
            raise TypeError(f"settings: expected a {cls.__name__}, got {type(settings).__name__}")
        if keywords:
            raise TypeError(
                f"settings and {', '.join(sorted(keywords))}: give the settings once, in settings or as keywords"
            )
        return settings

    def advice(self, flag: str) -> str:
        """How the user turns ``flag`` on where they are: ``dropna=True`` or ``--dropna``.

        Parameters
        ----------
        flag : str
            One of the settings' flags (``dropna``).
        """
        if flag not in self.FLAGS:
            raise ValueError(f"flag={flag!r}: expected one of {list(self.FLAGS)}")
        return self.option(flag) if getattr(self, "spelling", "python") == "cli" else f"{flag}=True"


def _same(value, plain) -> bool:
    """Whether a keyword is its default: the same object, or equal and of one type (``==`` where that is a plain
    bool: an array's is not)."""
    try:
        return value is plain or (type(value) is type(plain) and bool(value == plain))
    except (TypeError, ValueError):
        return False
