"""The generated tables of the game pages (docs/games/<game>.md) match the code: options, the
observation layout, the action catalogue and the rewards (docs/scripts/gen_game_tables.py)."""
import importlib.util
from pathlib import Path

import pytest

from rummy_env.registry import GAMES, make_raw_env

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "scripts" / "gen_game_tables.py"


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_game_tables", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", list(GAMES))
def test_game_page_tables_are_current(gen, game):
    page = ROOT / "docs" / "games" / f"{game}.md"
    assert gen.page_text(page, game) == page.read_text(), (
        f"{page.relative_to(ROOT)} is stale: run python docs/scripts/gen_game_tables.py")


def test_a_stale_table_is_found(gen, tmp_path):
    page = ROOT / "docs" / "games" / "tongits.md"
    stale = tmp_path / "tongits.md"
    stale.write_text(page.read_text().replace("| `hand` | 0 | 52 |", "| `hand` | 0 | 51 |"))
    assert stale.read_text() != page.read_text()
    assert gen.page_text(stale, "tongits") == page.read_text()
    assert gen.main(["--check"]) == 0


def test_a_page_without_markers_is_refused(gen, tmp_path):
    page = tmp_path / "rummy.md"
    page.write_text("# Rummy\n")
    with pytest.raises(ValueError, match="generated:begin"):
        gen.page_text(page, "rummy")


def test_an_option_missing_from_the_rules_table_is_refused(gen):
    rules = (ROOT / "docs" / "rules" / "rummy.md").read_text()
    without = "\n".join(line for line in rules.splitlines() if not line.startswith("| `ace_high`"))
    with pytest.raises(ValueError, match="ace_high"):
        gen.options_table(make_raw_env("rummy"), without)
