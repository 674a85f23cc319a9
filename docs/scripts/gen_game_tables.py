"""Write the generated tables of the game pages (docs/games/<game>.md) from the code.

Each game page keeps its prose by hand; the part between ``<!-- generated:begin -->`` and
``<!-- generated:end -->`` is written here from the code and the rules spec:

- options: every field of the game's ``Options`` dataclass and the wrapper's own keywords, with the
  default from the code, the allowed values of booleans, ``reward_mode`` and ``render_mode`` from
  the code, and the other allowed values, the meaning and the rule ids from the rules file's
  "Options" table (docs/rules/<game>.md);
- observation: ``env.unwrapped.observation_layout()`` under the default options (name, offset,
  shape, value range, meaning);
- actions: the segments of the game's action catalogue (``rummy_env/actions.py``) under the
  default options (pattern, first id, count, first text);
- rewards: the rules file's "Rewards" section.

``python docs/scripts/gen_game_tables.py`` rewrites the pages; ``--check`` exits 1 naming each stale
page (tests/test_docs_tables.py runs the same check).
"""
from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
import sys
from pathlib import Path

from rummy_env.actions import Catalogue
from rummy_env.base import CardGameEnv
from rummy_env.games import rummy, tongits
from rummy_env.games.ginny_o.actions import ACTIONS as GINNY_O_ACTIONS
from rummy_env.registry import GAMES, make_raw_env

DOCS = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- generated:begin -->", "<!-- generated:end -->"
RULE_ID = re.compile(r"\b(?:RM|TG|DI|CR|GO)-\d+[a-z]?\b")
TAG = re.compile(r"\s*\[(?:std|seed|choice)[^\]]*\]")
RULES_LINK = re.compile(r"\]\((?!https?:|#)([^)]+)\)")


def action_catalogue(game_name: str, raw) -> Catalogue:
    """The action catalogue of a raw env under its options."""
    fixed = {"rummy": rummy.ACTIONS, "tongits": tongits.ACTIONS, "ginny_o": GINNY_O_ACTIONS}
    return fixed.get(game_name) or raw.game.actions


def section(rules_text: str, title: str) -> str:
    """The body of the ``## title`` section of a rules file."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", rules_text, re.M | re.S)
    if match is None:
        raise ValueError(f"the rules file has no '## {title}' section")
    return match[1].strip()


def relink(text: str) -> str:
    """Relative links of a rules file, made relative to docs/games/."""
    return RULES_LINK.sub(lambda m: f"](../rules/{m[1]})", text)


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def options_rows(rules_text: str) -> dict[str, str]:
    """option name -> its "meaning" cell in the rules file's Options table."""
    rows = {}
    for line in section(rules_text, "Options").splitlines():
        match = re.match(r"\| `(\w+)` \| [^|]* \| (.*) \|$", line)
        if match:
            rows[match[1]] = match[2]
    return rows


def options_table(raw, rules_text: str) -> list[str]:
    rows = options_rows(rules_text)
    wrapper = inspect.signature(CardGameEnv.__init__).parameters
    defaults = {f.name: f.default for f in dataclasses.fields(raw.options)}
    defaults.update((name, wrapper[name].default) for name in ("illegal_action_penalty", "render_mode"))
    lines = ["| option | default | allowed values, meaning | rule ids |", "|---|---|---|---|"]
    choices = {"reward_mode": raw.reward_modes, "render_mode": (None, *raw.metadata["render_modes"])}
    for name, default in defaults.items():
        if name not in rows:
            raise ValueError(f"option {name!r} has no row in the rules file's Options table")
        meaning = relink(TAG.sub("", rows[name]))
        ids = ", ".join(dict.fromkeys(RULE_ID.findall(meaning))) or "-"
        allowed = (False, True) if isinstance(default, bool) else choices.get(name)
        if allowed:
            meaning = ", ".join(f"`{value!r}`" for value in allowed) + f"; {meaning}"
        lines.append(f"| `{name}` | `{default!r}` | {meaning} | {ids} |")
    return lines


def observation_table(raw) -> list[str]:
    layout = raw.observation_layout()
    lines = [f"{layout.size:,} float32 entries under the default options, in {len(layout)} named parts "
             "(`env.unwrapped.observation_layout()`; `layout.split(obs)` returns them as arrays):", "",
             "| part | offset | shape | range | meaning |", "|---|---|---|---|---|"]
    for part in layout:
        shape = " x ".join(map(str, part.shape))
        lines.append(f"| `{part.name}` | {part.start} | {shape} | `{part.range}` | {cell(part.description)} |")
    return lines


def action_table(catalogue: Catalogue) -> list[str]:
    lines = [f"{catalogue.size:,} action ids under the default options, in {len(catalogue.segments)} segments "
             "(`rummy_env/actions.py`; `env.unwrapped.action_to_text(a)` / `text_to_action(s)`):", "",
             "| action | first id | count | first text |", "|---|---|---|---|"]
    for segment, start in zip(catalogue.segments, catalogue.starts):
        lines.append(f"| `{cell(segment.hint)}` | {start:,} | {segment.size:,} | `{segment.text(0)}` |")
    return lines


def generated(game_name: str) -> str:
    """The generated block of a game page."""
    rules_text = (DOCS / "rules" / f"{game_name}.md").read_text()
    raw = make_raw_env(game_name)
    raw.reset(seed=0)
    parts = [
        "## Options", "",
        "Keyword arguments of `env(...)` / `raw_env(...)`, and `--option KEY=VALUE` in every `rummy-env` "
        "command; a bad value raises `ValueError` naming the option.", "",
        *options_table(raw, rules_text), "",
        "## Observation", "", *observation_table(raw), "",
        "## Actions", "", *action_table(action_catalogue(game_name, raw)), "",
        "## Rewards", "", relink(section(rules_text, "Rewards")),
    ]
    return "\n".join([BEGIN, "<!-- written by docs/scripts/gen_game_tables.py; do not edit by hand -->", "",
                      *parts, "", END])


def page_text(page: Path, game_name: str) -> str:
    """The page with its generated block written anew."""
    text = page.read_text()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"{page} needs one {BEGIN} and one {END} line")
    head, rest = text.split(BEGIN)
    return head + generated(game_name) + rest.split(END)[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale pages (exit 1)")
    args = parser.parse_args(argv)
    stale = []
    for game_name in GAMES:
        page = DOCS / "games" / f"{game_name}.md"
        new = page_text(page, game_name)
        if new != page.read_text():
            stale.append(page)
            if not args.check:
                page.write_text(new)
    for page in stale:
        print(f"{'stale' if args.check else 'wrote'}: {page.relative_to(DOCS.parent)}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
