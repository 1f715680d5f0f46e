"""Every command's --help as the conventions have it: the usage line names the command by the
door it was called through (``cmma-spec check`` under cmma-spec, ``python -m tlcrunner simulate``
as a module), every option and argument has a help text, the help lists the exit statuses, and no
reST markup reaches the terminal. A help text copied from another option where it is wrong for
this one is caught where it was found."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import Any

import pytest

from tlcrunner import console

#: Every command and subcommand of cmma-spec.
CMMA_SPEC: tuple[tuple[str, ...], ...] = (
    ("check",), ("run",), ("equal",), ("conformance",), ("conformance", "run"),
    ("conformance", "validate"), ("conformance", "mutants"), ("conformance", "classify"),
    ("apalache",), ("mutate",), ("findings",), ("fetch",),
)  # fmt: skip


def _python_m() -> list[tuple[str, Callable[[list[str]], Any], list[str]]]:
    """The commands reached only as modules: (their usage name, their main, the arguments)."""
    from conformance.engines.linux import check as kernel_check
    from tlcrunner.__main__ import main as tlcrunner_main

    return [
        ("python -m tlcrunner simulate", tlcrunner_main, ["simulate"]),
        ("python -m tlcrunner worker", tlcrunner_main, ["worker"]),
        ("python -m tlcrunner check", tlcrunner_main, ["check"]),
        ("python -m conformance.engines.linux.check", kernel_check.main, []),
    ]


MARKUP = re.compile(r"``|:(?:func|mod|data|class|meth|attr):`")


def _help(main: Callable[[list[str]], Any], argv: list[str],
          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
          ) -> tuple[str, argparse.ArgumentParser]:  # fmt: skip
    """The help text ``main`` prints for ``argv --help``, and the parser that printed it."""
    printed: list[argparse.ArgumentParser] = []
    original = argparse.ArgumentParser.print_help

    def record(self: argparse.ArgumentParser, file: Any = None) -> None:
        printed.append(self)
        original(self, file)

    monkeypatch.setattr(argparse.ArgumentParser, "print_help", record)
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    (parser,) = printed
    return capsys.readouterr().out, parser


def _problems(text: str, parser: argparse.ArgumentParser, usage: str) -> list[str]:
    found = []
    if not text.startswith(f"usage: {usage} ") and not text.startswith(f"usage: {usage}\n"):
        found.append(f"usage line is {text.splitlines()[0]!r}, not {usage!r}")
    if "exit status" not in text.lower():
        found.append("no exit statuses")
    if MARKUP.search(text):
        found.append(f"reST markup: {MARKUP.search(text).group(0)!r}")  # type: ignore[union-attr]
    helps: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if not choice.help:
                    found.append(f"subcommand {choice.dest} has no help text")
            continue
        if not action.help or action.help == argparse.SUPPRESS:
            found.append(f"{name} has no help text")
        elif action.help in helps:
            found.append(f"{name} has the help text of {helps[action.help]}")
        else:
            helps[action.help] = name
    return found


@pytest.mark.parametrize("command", CMMA_SPEC, ids=" ".join)
def test_every_cmma_spec_command(command: tuple[str, ...], monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    text, parser = _help(console.main, list(command), monkeypatch, capsys)
    assert _problems(text, parser, "cmma-spec " + " ".join(command)) == []


@pytest.mark.parametrize("index", range(4))
def test_every_module_command(index: int, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    usage, main, argv = _python_m()[index]
    text, parser = _help(main, argv, monkeypatch, capsys)
    assert _problems(text, parser, usage) == []


def test_the_help_texts_once_copied_say_what_their_option_does(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    equal, _ = _help(console.main, ["equal"], monkeypatch, capsys)
    assert "as many as the input names" not in equal
    validate, _ = _help(console.main, ["conformance", "validate"], monkeypatch, capsys)
    assert "ask the engine" not in validate


def test_the_front_door_lists_every_command_with_a_help_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert console.main(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: cmma-spec COMMAND") and "exit status" in text.lower()
