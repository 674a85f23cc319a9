"""Crash-safe file output for tournaments, replays and training runs.

Whole files (JSON, CSV, PNG, text) are written atomically: the content goes to a temporary file in
the same directory, is flushed to disk, and only then replaces the target with ``os.replace``. A
crash at any point leaves either the old file or the new one, never a mix.

Logs that grow while a run goes on (one JSON object per line) are appended with a flush and fsync
per batch. A crash can at worst leave a partial last line; :func:`read_jsonl` ignores it and
:func:`append_jsonl` cuts it off before appending, so every complete line stays readable.

Every results file (tournament ``results.json``, training and imitation summaries, benchmark
JSON) records where its numbers came from with :func:`provenance`: the git commit, whether the
checkout had uncommitted changes, and the exact command line.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any, Callable, Iterable


def provenance() -> dict:
    """``{"git_commit", "dirty", "command"}`` of this run: the commit of the checkout this package
    lies in (``git_commit`` and ``dirty`` are None outside a git checkout or without git), whether
    tracked files differ from it, and the process's exact command line (``sys.orig_argv``)."""
    repo = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                                capture_output=True, text=True)
    except OSError:  # no git executable
        commit = status = None
    ok = commit is not None and commit.returncode == 0 and status.returncode == 0
    return {"git_commit": commit.stdout.strip() if ok else None,
            "dirty": bool(status.stdout.strip()) if ok else None,
            "command": shlex.join(sys.orig_argv)}


def atomic_write(path: str | os.PathLike, write: Callable[[IO], None], binary: bool = False) -> Path:
    """Call ``write(f)`` on a temporary file next to ``path``, then move it onto ``path``.

    If ``write`` raises (or the process dies) the old ``path`` is left as it was; the temporary
    file is removed on an exception.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, _file_mode(path))
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _file_mode(path: Path) -> int:
    """The mode the new file should get: the old file's, else what ``open`` would give (0o666
    less the umask), rather than ``mkstemp``'s private 0o600."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Atomically write ``text`` to ``path``."""
    return atomic_write(path, lambda f: f.write(text))


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Atomically write ``data`` to ``path``."""
    return atomic_write(path, lambda f: f.write(data), binary=True)


def write_json(path: str | os.PathLike, obj: Any, indent: int | None = 2) -> Path:
    """Atomically write ``obj`` as JSON (streamed, so a failure part-way leaves the old file)."""
    def write(f: IO) -> None:
        json.dump(obj, f, indent=indent)
        f.write("\n")
    return atomic_write(path, write)


def write_csv(path: str | os.PathLike, rows: Iterable[dict], fieldnames: list[str]) -> Path:
    """Atomically write ``rows`` (dicts) as CSV with a header line of ``fieldnames``."""
    def write(f: IO) -> None:
        writer = csv.DictWriter(f, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)
    return atomic_write(path, write)


def save_figure(path: str | os.PathLike, figure, **savefig_kwargs: Any) -> Path:
    """Atomically save a matplotlib ``figure`` (format from the file suffix)."""
    buf = io.BytesIO()
    figure.savefig(buf, format=Path(path).suffix.lstrip(".") or "png", **savefig_kwargs)
    return write_bytes(path, buf.getvalue())


def _cut_partial_tail(path: Path) -> None:
    """Remove a partial last line (no trailing newline) left by a crash during an append."""
    with open(path, "rb+") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        pos = size
        chunk = 4096
        while pos > 0:
            start = max(0, pos - chunk)
            f.seek(start)
            block = f.read(pos - start)
            nl = block.rfind(b"\n")
            if nl >= 0:
                f.truncate(start + nl + 1)
                return
            pos = start
        f.truncate(0)


def append_jsonl(path: str | os.PathLike, records: Iterable[Any]) -> int:
    """Append ``records`` as JSON lines, flushed and fsynced; returns how many were written.

    A partial line left at the end of the file by an earlier crash is removed first.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        _cut_partial_tail(path)
    lines = [json.dumps(r, separators=(",", ":")) + "\n" for r in records]
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(lines))
        f.flush()
        os.fsync(f.fileno())
    return len(lines)


def read_jsonl(path: str | os.PathLike) -> list[Any]:
    """All complete JSON lines of ``path``; a partial last line (a crash mid-append) is skipped.

    A malformed line anywhere else raises ``ValueError`` naming its line number.
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    # The piece after the last newline is either "" or an unterminated (partial) line.
    complete = lines[:-1]
    out = []
    for i, line in enumerate(complete, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: line {i} is not valid JSON ({e.msg})") from None
    return out
