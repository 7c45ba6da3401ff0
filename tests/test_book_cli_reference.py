"""The command-line reference of the book (book/api/cli.md) is generated from the program's parser:
every command and every option appears in it, with its default and its help text."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytest.importorskip("sphinx")
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import predtron_cli_reference as reference  # noqa: E402
from docutils import nodes  # noqa: E402

from predtron.cli import PROG, build_parser  # noqa: E402


def _tables(section: nodes.section) -> list[list[str]]:
    """The rows of every option table of a command's section, as lists of cell texts."""
    rows = []
    for table in section.findall(nodes.table):
        for row in table.findall(nodes.row):
            rows.append([entry.astext() for entry in row.findall(nodes.entry)])
    return rows


def _commands():
    parser = build_parser()
    return [(PROG, parser), *((f"{PROG} {name}", sub) for name, sub in reference.subcommands(parser).items())]


def test_every_command_and_option_is_in_the_reference():
    commands = _commands()
    assert [name for name, _ in commands] == [PROG, f"{PROG} fit", f"{PROG} predict", f"{PROG} evaluate",
                                              f"{PROG} compile"]
    for name, parser in commands:
        section = reference.command_nodes(name, parser, set())
        options = {row[0] for row in _tables(section) if row[0] != "option"}
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            shown = [option for option in options if all(flag in option for flag in action.option_strings)]
            assert shown or not action.option_strings, (name, action.option_strings)
            if action.help:  # the help text, its quoted words shown as code without their quotes
                text = reference._help(parser, action).replace("'", "")
                assert any(row[2].replace("'", "") == text for row in _tables(section)), action.dest


def test_defaults_are_the_programs():
    fit = reference.subcommands(build_parser())["fit"]
    rows = {row[0].split()[0].rstrip(","): row[1] for row in _tables(reference.command_nodes("fit", fit, set()))}
    assert rows["--task"] == "required"
    assert rows["--format"] == "auto"
    assert rows["--stream"] == "off"
    assert rows["--epochs"] == "50"          # the estimator's default, read from the help text
    assert rows["--chunk-rows"] == str(fit.get_default("chunk_rows"))


def test_flags_in_help_texts_are_code_not_typography():
    paragraph = reference._paragraph("see 'predtron --help' and --no-average")
    literals = [node.astext() for node in paragraph.findall(nodes.literal)]
    assert literals == ["predtron --help", "--no-average"]
