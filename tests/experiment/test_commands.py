"""A command as the user gives it and as it runs: through the shell by default, split as a shell would split it
without one (shell syntax refused by name), an argument list as it is, a callable by its code."""

import functools

import pytest

from perfstudy.experiment.commands import SHELL, command_argv, command_text


def test_a_line_runs_through_the_shell_and_its_text_is_the_line():
    argv = command_argv("echo hi | cat")
    assert argv == (SHELL, "-c", "echo hi | cat") and command_text(argv) == "echo hi | cat"


def test_without_the_shell_a_line_is_split_as_a_shell_splits_it_and_syntax_is_refused_by_name():
    assert command_argv("sleep '0.1'", shell=False) == ("sleep", "0.1")
    assert command_argv("make CFLAGS=-O2", shell=False) == ("make", "CFLAGS=-O2")  # an argument, not an assignment
    with pytest.raises(ValueError, match=r"shell syntax \('\|'"):
        command_argv("echo hi | cat", "a", shell=False)
    with pytest.raises(ValueError, match="a: .* cannot be split into words"):
        command_argv("echo 'open", "a", shell=False)


def test_an_argument_list_runs_as_it_is_and_its_text_is_quoted():
    assert command_argv(["true", "a b"]) == ("true", "a b")
    assert command_text(("true", "a b")) == "true 'a b'"


def test_a_callable_is_named_by_its_code_and_its_bound_arguments():
    def work(n=3):
        return sum(range(n))

    first, second = functools.partial(work, 3), functools.partial(work, 4)
    assert command_argv(first) is first
    assert command_text(first) != command_text(second) and command_text(first) == command_text(
        functools.partial(work, 3)
    )
    assert command_text(first).startswith("python:")
