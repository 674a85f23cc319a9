"""The one-line style of every ``rummy-env`` command's messages: ``rummy-env <command>: error:
<message>`` (no usage dump before it) and ``rummy-env <command>: warning: <message>``."""
from __future__ import annotations

import argparse
import sys


class UsageError(ValueError):
    """A bad command line; the message is printed as one line and the exit status is 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors raise :class:`UsageError` with one line naming ``--help``."""

    def error(self, message: str):  # one line, no usage dump, no traceback
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def one_line_warnings(prog: str):
    """A ``warnings.showwarning`` that prints ``<prog>: warning: <message>`` (no source line)."""
    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"{prog}: warning: {message}", file=sys.stderr if file is None else file)
    return show


def count(name: str, minimum: int):
    """argparse ``type`` of the integer flag ``name``: at least ``minimum``, else a usage error naming it."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}, got {value}")
        return value
    parse.__name__ = name
    return parse
