"""The RL-library recipes of ``examples/`` (docs/guides/rl_libraries.md) run end to end for a few
hundred steps and write a result with provenance. They need the ``clients`` extra, which
``make test-slow`` installs."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow

TRAINING = [("sb3_maskable_ppo.py", 300), ("tianshou_dqn.py", 400), ("torchrl_masked_reinforce.py", 1000)]


def run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "examples" / script), *args], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.parametrize("game", ["tongits", "i_doubt_it"])
@pytest.mark.parametrize("script,steps", TRAINING)
def test_training_recipe_runs_and_writes_its_result(script, steps, game, tmp_path):
    out = tmp_path / "result.json"
    run(script, "--game", game, "--steps", str(steps), "--eval-games", "2", "--out", str(out))
    result = json.loads(out.read_text())
    assert result["game"] == game and result["train_steps"] == steps
    assert result["learner"]["games"] == 2 and result["random"]["deal_seeds"] == [5_500_000, 5_500_001]
    assert result["provenance"]["command"]


@pytest.mark.parametrize("game", ["tongits", "i_doubt_it"])
def test_supersuit_recipe_plays_inside_the_normalized_space(game):
    assert "observation" in run("supersuit_wrappers.py", "--game", game, "--steps", "300")
