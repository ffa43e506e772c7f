"""A command as the user gives it, and as it runs: a command line through ``/bin/sh -c`` (as in a terminal) or split
as a shell would split it (``shell=False``, refused by name where it holds shell syntax), an argument list run
directly, or a Python callable; and the text a record keeps for each (:func:`command_text`)."""

from __future__ import annotations

import hashlib
import re
import shlex
import shutil
from collections.abc import Callable

__all__ = ["SHELL", "command_argv", "command_text"]

#: the shell a command line runs through
SHELL = "/bin/sh"
#: words a shell reads itself: a line starting with one is not a program to look up
_SHELL_WORDS = frozenset(
    "if then else elif fi case esac for while until do done in function select time ! { } [ [[ . : "
    "cd export exec eval set unset source alias read ulimit umask wait trap true false test echo printf "
    "command builtin type shift return exit local".split()
)
#: a variable assignment before the command (``FOO=1 ./bench``)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _split(command: str, name: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(command))
    except ValueError as error:  # "No closing quotation", "No escaped character"
        raise ValueError(f"{name}: {command!r} cannot be split into words: {error}") from None


def command_argv(
    command, name: str = "command", *, shell: bool = True, check: bool = True
) -> tuple[str, ...] | Callable:
    """A command as an argument vector (a callable is returned as it is).

    Parameters
    ----------
    command : str, sequence of str or callable
        A command line, an argument list (run directly), or a Python callable.
    name : str
        What the errors call it (``"a"``, ``"b"`` for :func:`perfstudy.experiment._run.run`).
    shell : bool
        Run a command line through :data:`SHELL` (``("/bin/sh", "-c", line)``). With False it is split as
        a shell would split it and run directly; shell syntax in it (``|``, ``&&``, ``;``, ``>``,
        ``VAR=value``, ``$(...)``) is refused, since without a shell it would be passed on as arguments.
    check : bool
        Refuse a program that is not there now. False where a hook that runs first may make it (a run's ``setup``
        that builds ``builds/{commit}``): a program still missing then fails its first batch, with the shell's words.

    Returns
    -------
    tuple of str or callable

    Raises
    ------
    ValueError
        An empty command, a line that cannot be split (an unterminated quote), shell syntax without a shell.
    FileNotFoundError
        A program that is not on ``PATH`` (or not an executable file), naming it.
    """
    if not isinstance(shell, bool) or not isinstance(check, bool):
        raise TypeError(f"shell={shell!r}, check={check!r}: expected True or False")
    if callable(command):
        return command
    if isinstance(command, str):
        words = _split(command, name)
        if not words or not words[0]:
            raise ValueError(f"{name}: empty; give the command line to run")
        if shell:
            if check:
                _check_program(_first_program(words), name, command)
            return (SHELL, "-c", command)
        syntax = _shell_syntax(command, words)
        if syntax:
            raise ValueError(
                f"{name}: {command!r} has shell syntax ({', '.join(map(repr, syntax[:3]))}), which only a shell "
                "understands; without one it would be passed on as arguments and something else measured. Run "
                "it through the shell (drop --no-shell; shell=True), or write the command without it"
            )
        argv = words
    elif isinstance(command, (list, tuple)) and all(isinstance(part, str) for part in command):
        argv = tuple(command)
    else:
        raise TypeError(f"{name}: expected a command line, a list of arguments or a callable, got {command!r}")
    if not argv or not argv[0]:
        raise ValueError(f"{name}: empty; give the command line to run")
    if check:
        _check_program(argv[0], name, " ".join(map(shlex.quote, argv)))
    return argv


def _shell_syntax(line: str, words: tuple[str, ...]) -> list[str]:
    """What only a shell would read in ``line``: ``| & ; < >`` outside quotes, ``$`` and backquotes outside
    single quotes, and an assignment before the command."""
    found = [words[0]] if _ASSIGNMENT.match(words[0]) else []
    quote, escaped = "", False
    for char in line:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            if char == quote:
                quote = ""
            elif quote == '"' and char in "$`":
                found.append(char)
        elif char in "'\"":
            quote = char
        elif char in "|&;<>$`":
            found.append(char)
    return list(dict.fromkeys(found))


def _first_program(words: tuple[str, ...]) -> str | None:
    """The program a shell line starts, where it can be told without running the shell: None for a line
    that starts with shell grammar or an expansion."""
    for word in words:
        if _ASSIGNMENT.match(word):
            continue  # VAR=value before the command
        if word in _SHELL_WORDS or any(c in word for c in "$`(){}|&;<>*?[~"):
            return None
        return word
    return None


def _check_program(program: str | None, name: str, line: str) -> None:
    if program is not None and shutil.which(program) is None:
        raise FileNotFoundError(f"{name}: command not found: {program!r} (in {line!r})")


def command_text(command) -> str:
    """How a command is written in the run's file: its command line, or a callable's qualified name.

    A line run through the shell (``(SHELL, "-c", line)``) is written as the line itself.

    A callable's text ends with a digest of its code and constants (``#1a2b3c4d``), so that two lambdas,
    or two versions of a function of one name, are told apart when a run is resumed.

    Parameters
    ----------
    command : tuple of str or callable
        As :func:`command_argv` returns it.
    """
    if callable(command):
        module = getattr(command, "__module__", None) or "?"
        return f"python:{module}.{getattr(command, '__qualname__', type(command).__name__)}#{_digest(command)}"
    if not (isinstance(command, (tuple, list)) and command and all(isinstance(part, str) for part in command)):
        raise TypeError(f"command: expected an argument vector (tuple of str) or a callable, got {command!r}")
    if len(command) == 3 and tuple(command[:2]) == (SHELL, "-c"):
        return command[2]  # the line as written; the record's settings say it ran through the shell
    return " ".join(map(shlex.quote, command))


def _digest(function) -> str:
    """Eight hex digits of a callable's code, constants and names (its bound arguments for a partial)."""
    inner = getattr(function, "func", function)  # a functools.partial's function
    code = getattr(inner, "__code__", None) or getattr(vars(type(inner)).get("__call__"), "__code__", None)
    parts = [repr(getattr(function, "args", "")), repr(getattr(function, "keywords", ""))]
    if code is not None:
        parts += [code.co_code.hex(), repr(code.co_consts), repr(code.co_names)]
    else:
        parts.append(repr(function))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:8]
