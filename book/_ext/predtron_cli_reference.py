"""Sphinx extension of the book: the command-line reference, generated from the parser itself.

The directive ``predtron-cli`` (written ``{predtron-cli}`` in a MyST page) calls
:func:`predtron.cli.build_parser`, the parser the ``predtron`` program runs, and renders for the
program and each of its subcommands the usage line, the description, one table per group of
options (option, default, meaning: argparse's own help text, with its ``%(default)s`` expanded)
and the examples.  Nothing is copied by hand, so an option added to the parser appears in the
book at the next build: the page depends on the modules that build the parser (Sphinx re-reads it
when one of them changes), and ``tests/`` need no list of flags to keep in step.

A default shown in brackets in a learner option's help (``[epochs; default: 50]``) is the
estimator's own (those options leave the estimator's default alone unless given); the table shows
it in the default column too.
"""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.application import Sphinx

#: The modules whose code builds the parser: a change to one of them rebuilds the page.
PARSER_MODULES = ("predtron.cli", "predtron.cli_stream", "predtron.dask.cli")

#: ``default: X`` inside a help text (the learner options state the estimator's default there).
DEFAULT_IN_HELP = re.compile(r"default: ([^;\]\)]+)")


def _default(action: argparse.Action, help_text: str) -> str:
    """The default of an option as the program applies it, in words."""
    if action.required:
        return "required"
    if isinstance(action, argparse._VersionAction):
        return ""
    if action.default is argparse.SUPPRESS:
        found = DEFAULT_IN_HELP.search(help_text)
        return found.group(1).strip() if found else "the estimator's"
    if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
        return "off" if action.default is False else "on"
    if isinstance(action, argparse._StoreConstAction) and action.default is None:
        return ""
    if action.default is None:
        return "none"
    if isinstance(action.default, list | tuple):
        return " ".join(map(str, action.default))
    return str(action.default)


def _invocation(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """``--epochs N``, ``--average, --no-average``, ``TRAIN``: what the user types."""
    formatter = parser._get_formatter()
    return formatter._format_action_invocation(action)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    formatter = parser._get_formatter()
    return " ".join(formatter._expand_help(action).split())


#: What a help text quotes from the command line: a flag (``--eta``) or a quoted word (``'qid:'``).
QUOTED = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*|'[^'\s][^']*')")


def _paragraph(text: str, literal: bool = False) -> nodes.paragraph:
    """A paragraph of ``text``: all code with ``literal``, else prose whose flags and quoted words
    are code (so that no typography turns ``--help`` into a dash)."""
    para = nodes.paragraph()
    if literal:
        para += nodes.literal(text, text)
        return para
    for index, piece in enumerate(QUOTED.split(text)):
        if index % 2:
            piece = piece.strip("'")
            para += nodes.literal(piece, piece)
        elif piece:
            para += nodes.Text(piece)
    return para


def _table(rows: list[tuple[str, str, str]]) -> nodes.table:
    """A three-column table: option (as code), default (as code), meaning."""
    table = nodes.table(classes=["predtron-cli-options"])
    group = nodes.tgroup(cols=3)
    table += group
    for width in (30, 14, 56):
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    header = nodes.row()
    for title in ("option", "default", "meaning"):
        entry = nodes.entry()
        entry += _paragraph(title)
        header += entry
    head += header
    group += head
    body = nodes.tbody()
    for option, default, meaning in rows:
        row = nodes.row()
        for text, literal in ((option, True), (default, bool(default)), (meaning, False)):
            entry = nodes.entry()
            entry += _paragraph(text, literal)
            row += entry
        body += row
    group += body
    return table


def _groups(parser: argparse.ArgumentParser):
    """``(title, actions)`` of each argument group that holds an option, in the parser's order."""
    for group in parser._action_groups:
        actions = [action for action in group._group_actions
                   if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)]
        if actions:
            yield group.title, actions


def _literal_block(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = "text"
    return block


def command_nodes(name: str, parser: argparse.ArgumentParser, section_ids: set[str]) -> nodes.section:
    """The section of one command: usage, description, option tables, examples."""
    section_id = nodes.make_id(f"cli-{name}")
    section = nodes.section(ids=[section_id], names=[section_id])
    section_ids.add(section_id)
    section += nodes.title(name, name)
    section += _literal_block(" ".join(parser.format_usage().split()))
    if parser.description:
        section += _literal_block(parser.description.rstrip())
    for title, actions in _groups(parser):
        rows = []
        for action in actions:
            text = _help(parser, action)
            rows.append((_invocation(parser, action), "" if not action.option_strings else _default(action, text),
                         text))
        section += _paragraph(f"{title[0].upper()}{title[1:]}:")
        section += _table(rows)
    if parser.epilog:
        section += _literal_block(parser.epilog.rstrip())
    return section


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` (``fit``, ``predict``, ``evaluate``), in their order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


class PredtronCli(Directive):
    """``.. predtron-cli::``: the reference of the ``predtron`` program and every subcommand."""

    has_content = False

    def run(self):
        env = self.state.document.settings.env
        for module in PARSER_MODULES:
            env.note_dependency(str(Path(importlib.import_module(module).__file__).resolve()))
        cli = importlib.import_module("predtron.cli")
        parser = cli.build_parser()
        ids: set[str] = set()
        result = [command_nodes(cli.PROG, parser, ids)]
        for name, sub in subcommands(parser).items():
            result.append(command_nodes(f"{cli.PROG} {name}", sub, ids))
        return result


def setup(app: Sphinx) -> dict:
    app.add_directive("predtron-cli", PredtronCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
