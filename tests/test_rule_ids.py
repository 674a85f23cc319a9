"""The rules live in the repository (docs/rules/<game>.md): every rule id has its page, every id
cited in code, tests, docs and notebooks resolves there, and no file points outside the repository
for the rules."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULES_DIR = REPO / "docs" / "rules"

RULE_ID = re.compile(r"\b(RM|TG|DI|CR|GO)-(\d+)([a-z]?)\b")
DEFINITION = re.compile(r"\*\*((?:RM|TG|DI|CR|GO)-\d+[a-z]?)\*\*")
"""A rule is defined by its id in bold, as a bullet's lead: ``- **RM-14** [seed] ...``."""

PAGE_OF_PREFIX = {"RM": "rummy.md", "TG": "tongits.md", "DI": "i_doubt_it.md",
                  "CR": "contract_rummy.md", "GO": "ginny_o.md"}
LAST_RULE = {"RM": 32, "TG": 38, "DI": 29, "CR": 34, "GO": 44}
LETTERED_PARTS = {"RM": ("RM-26a", "RM-26b"), "GO": ("GO-36a", "GO-36b", "GO-36c", "GO-36d")}

CITING_SUFFIXES = (".py", ".md", ".ipynb", ".txt", ".toml")
# Built from parts so that this file does not contain the patterns it looks for.
OUTSIDE_PATHS = [".." + "/shared", "shared" + "/rules"]


def _expected_ids(prefix: str) -> set[str]:
    return {f"{prefix}-{n}" for n in range(1, LAST_RULE[prefix] + 1)} | set(LETTERED_PARTS.get(prefix, ()))


def _definitions(prefix: str) -> list[str]:
    return DEFINITION.findall((RULES_DIR / PAGE_OF_PREFIX[prefix]).read_text(encoding="utf-8"))


def _tracked_files() -> list[Path]:
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True, capture_output=True).stdout
    return [REPO / name for name in names.decode().split("\0") if name and (REPO / name).is_file()]


def _citations() -> list[tuple[str, str, int]]:
    """(rule id, file, line) of every rule id cited in a tracked text file outside docs/rules."""
    citations = []
    for path in _tracked_files():
        relative = path.relative_to(REPO).as_posix()
        if not relative.endswith(CITING_SUFFIXES) or relative.startswith("docs/rules/"):
            continue
        for line_number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            citations.extend((match.group(0), relative, line_number) for match in RULE_ID.finditer(line))
    return citations


@pytest.mark.parametrize("prefix", list(PAGE_OF_PREFIX))
def test_each_rules_page_defines_every_rule_of_its_game_once(prefix):
    """docs/rules/<game>.md defines exactly the ids of its range (e.g. RM-1..RM-32, RM-26a,
    RM-26b), each once: a missing, doubled or stray rule fails."""
    definitions = _definitions(prefix)
    expected = _expected_ids(prefix)
    doubled = sorted({rule for rule in definitions if definitions.count(rule) > 1})
    assert not doubled, f"{PAGE_OF_PREFIX[prefix]} defines these ids more than once: {doubled}"
    assert not expected - set(definitions), \
        f"{PAGE_OF_PREFIX[prefix]} lacks {sorted(expected - set(definitions))}"
    assert not set(definitions) - expected, \
        f"{PAGE_OF_PREFIX[prefix]} defines ids outside its range: {sorted(set(definitions) - expected)}"


def test_every_cited_rule_id_is_defined_in_docs_rules():
    """Every rule id cited in a tracked .py, .md, .ipynb, .txt or .toml file (docstrings, tests,
    error messages, docs, notebooks) is defined in docs/rules/<its game>.md."""
    citations = _citations()
    assert len({rule[:2] for rule, _, _ in citations}) == len(PAGE_OF_PREFIX), "some game is never cited"
    defined = {prefix: set(_definitions(prefix)) for prefix in PAGE_OF_PREFIX}
    unresolved = [f"{file}:{line}: {rule}" for rule, file, line in citations if rule not in defined[rule[:2]]]
    assert not unresolved, "rule ids cited but not defined in docs/rules:\n" + "\n".join(unresolved)


def test_no_tracked_file_points_outside_the_repository_for_the_rules():
    """No tracked file links or refers to the rules outside the repository; docs/rules is the
    repository's own copy."""
    offending = []
    for path in _tracked_files():
        content = path.read_bytes()
        offending.extend(f"{path.relative_to(REPO).as_posix()}: {pattern}"
                         for pattern in OUTSIDE_PATHS if pattern.encode() in content)
    assert not offending, "references to rules outside the repository:\n" + "\n".join(offending)
