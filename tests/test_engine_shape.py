"""The five engines have one shape (issue 41): each game is a package under rummy_env/games/ with
the same module for the same concern, and only the optional tables/board modules besides."""
from pathlib import Path

import rummy_env
from rummy_env.registry import GAMES

GAMES_DIR = Path(rummy_env.__file__).parent / "games"
SHAPE = {"__init__", "options", "actions", "moves", "game", "observation", "view", "determinize", "serialisation"}
OPTIONAL = {"tables", "board"}


def modules(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py")}


def test_every_game_is_a_package_with_the_same_modules():
    packages = {p.name for p in GAMES_DIR.iterdir() if (p / "__init__.py").is_file()}
    assert packages == set(GAMES)
    assert {p.stem for p in GAMES_DIR.glob("*.py")} == {"__init__"}  # no engine left as a single file
    for game in packages:
        found = modules(GAMES_DIR / game)
        assert SHAPE <= found, (game, sorted(SHAPE - found))
        assert found <= SHAPE | OPTIONAL, (game, sorted(found - SHAPE - OPTIONAL))


def test_the_check_fails_on_an_engine_of_another_shape(tmp_path):
    odd = tmp_path / "odd"
    odd.mkdir()
    for name in SHAPE - {"moves"} | {"search"}:
        (odd / f"{name}.py").write_text("")
    found = modules(odd)
    assert not SHAPE <= found and not found <= SHAPE | OPTIONAL
