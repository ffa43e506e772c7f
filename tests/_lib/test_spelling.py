"""A settings object names a setting as the user wrote it: the argument in the library, the option on the command
line; the three verbs' settings share the rule."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from perfstudy._lib.spelling import Spelled
from perfstudy.changes import HistorySettings
from perfstudy.comparison import CompareSettings
from perfstudy.experiment import RunSettings


@dataclass(frozen=True)
class _Settings(Spelled):
    dropna: bool = False
    spelling: str = "python"

    OPTIONS: ClassVar[dict] = {"dropna": "--dropna", "max_rounds": "--max-rounds"}
    KIND: ClassVar[str] = "toy's setting"
    FLAGS: ClassVar[tuple] = ("dropna",)


def test_a_setting_is_its_argument_in_the_library_and_its_option_on_the_command_line():
    assert _Settings().option("max_rounds") == "max_rounds"
    assert _Settings(spelling="cli").option("max_rounds") == "--max-rounds"
    assert _Settings().advice("dropna") == "dropna=True" and _Settings(spelling="cli").advice("dropna") == "--dropna"


def test_a_name_that_is_no_setting_or_flag_is_refused_naming_the_choices():
    with pytest.raises(ValueError, match=r"^setting='rounds': not a toy's setting; expected one of \['dropna', "):
        _Settings().option("rounds")
    with pytest.raises(ValueError, match=r"^flag='max_rounds': expected one of \['dropna'\]"):
        _Settings().advice("max_rounds")


def test_each_verbs_settings_spell_their_own_options():
    assert CompareSettings(spelling="cli").option("baseline") == "--a-version"
    assert RunSettings(spelling="cli").option("shell") == "--no-shell"
    assert HistorySettings(spelling="cli").advice("progress") == "--no-progress"
    assert CompareSettings(spelling="cli").advice("trust_one_process") == "--trust-one-process"


def test_a_calls_settings_come_from_one_source():
    given = _Settings(dropna=True)
    assert _Settings.one_source(given, {}) is given
    assert _Settings.one_source(None, {"dropna": True}) == given
    with pytest.raises(TypeError, match="settings and dropna: give the settings once"):
        _Settings.one_source(given, {"dropna": False})
    with pytest.raises(TypeError, match=r"dropnaa: not one of _Settings's settings; expected some of \['dropna'"):
        _Settings.one_source(None, {"dropnaa": True})
    with pytest.raises(TypeError, match="settings: expected a _Settings, got RunSettings"):
        _Settings.one_source(RunSettings(), {})
