"""The package surface: ``rummy_env.__version__``, submodules on first access, PettingZoo's registry,
and a base install (no extras) naming the extra a command needs."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pettingzoo
import pytest

import rummy_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_version_is_the_pyproject_version():
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        expected = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.MULTILINE).group(1)
    assert rummy_env.__version__ == expected


def test_version_falls_back_to_pyproject_without_package_metadata(monkeypatch):
    import importlib.metadata

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert rummy_env._version() == rummy_env.__version__


def test_game_modules_load_on_first_access_only():
    """``import rummy_env`` loads no game module; ``rummy_env.tongits_v0`` then works."""
    code = ("import sys, rummy_env; before = [m for m in sys.modules if m.endswith('_v0')]; "
            "env = rummy_env.tongits_v0.env(); print(before, type(env.unwrapped).__module__)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.stdout.split() == ["[]", "rummy_env.tongits_v0"], proc.stderr
    assert {"rummy_v0", "i_doubt_it_v0", "contract_rummy_v0", "ginny_o_v0"} <= set(dir(rummy_env))
    with pytest.raises(AttributeError, match="no attribute 'poker_v0'"):
        rummy_env.poker_v0


@pytest.mark.skipif(not hasattr(pettingzoo, "register"), reason="this PettingZoo has no environment registry")
@pytest.mark.parametrize("env_id,name", [("rummy_env/Rummy-v0", "rummy_v0"), ("rummy_env/Tongits-v0", "tongits_v0"),
                                         ("rummy_env/IDoubtIt-v0", "i_doubt_it_v0"),
                                         ("rummy_env/ContractRummy-v0", "contract_rummy_v0"),
                                         ("rummy_env/GinnyO-v0", "ginny_o_v0")])
def test_pettingzoo_make_builds_each_game(env_id, name):
    env = pettingzoo.make("aec", env_id, render_mode="ansi")
    assert env.unwrapped.metadata["name"] == name
    env.reset(seed=0)
    assert env.agent_selection in env.possible_agents
