"""A non-editable install: the wheel puts only ``rummy_env`` into site-packages (agents/ and
experiments/ install as ``rummy_env.agents`` and ``rummy_env.experiments``), carries every module of
the repository but the one-off studies (``experiments/studies/``, which it leaves out), and
``rummy-env`` runs a tournament from a folder outside the repository.

The throwaway venv borrows the project venv's third-party packages through a ``.pth`` line (a plain
path, so the project's editable-install hook is not run there) instead of downloading them again."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE_FOLDERS = {"rummy_env": "rummy_env", "agents": "rummy_env/agents", "experiments": "rummy_env/experiments"}
"""Repository folder -> where its modules land in site-packages."""
STUDIES = "experiments/studies"
"""The one-off studies: run from a checkout, left out of the wheel."""


def repository_modules(source: Path) -> set[str]:
    """Where each module of the repository but the studies lands in site-packages."""
    found = set()
    for folder, installed_as in SOURCE_FOLDERS.items():
        for path in (source / folder).rglob("*.py"):
            if not path.relative_to(source).as_posix().startswith(STUDIES + "/"):
                found.add(f"{installed_as}/{path.relative_to(source / folder).as_posix()}")
    return found


def copy_of_the_checkout(target: Path) -> Path:
    """The files git would commit, copied, so that no stale ``build/`` folder reaches the wheel."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout.splitlines()
    for name in listed:
        if (ROOT / name).is_file() and name.endswith((".py", ".toml", ".md", ".js", ".css")):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, target / name)
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(the source copy, the wheel built from it)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = copy_of_the_checkout(tmp_path / "source")
    wheel_dir = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheel_dir), str(source)], check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = wheel_dir.glob("rummy_env-*.whl")
    return source, wheel


def test_the_wheel_holds_no_study(built):
    source, wheel = built
    assert list((source / STUDIES).glob("*.py"))   # the checkout has them
    assert [name for name in zipfile.ZipFile(wheel).namelist() if "studies" in name] == []


def test_wheel_installs_only_rummy_env_and_runs_outside_the_repository(built, tmp_path):
    source, wheel = built

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, capture_output=True, cwd=tmp_path)

    top_level = sorted(p.name for p in site.iterdir() if p.name not in {"borrowed_dependencies.pth"}
                       and not p.name.startswith(("_distutils_hack", "distutils-precedence", "pip")))
    assert top_level == ["rummy_env", "rummy_env-0.1.0.dist-info"], top_level
    installed = {p.relative_to(site).as_posix() for p in (site / "rummy_env").rglob("*.py")}
    assert installed == repository_modules(source)
    assert (site / "rummy_env/experiments/web/static/table.js").is_file()  # the web table's package data

    out_dir = tmp_path / "work"
    out_dir.mkdir()
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([str(env_dir / "bin" / "rummy-env"), "tournament", "--game", "rummy",
                          "--agents", "heuristic,random", "--games", "4", "--workers", "1", "--quiet",
                          "--option", "max_rounds=1", "--out", str(out_dir / "t")],
                         capture_output=True, text=True, cwd=out_dir, env=clean_env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert (out_dir / "t" / "results.json").is_file()
    where = subprocess.run([str(python), "-c", "import rummy_env.agents.registry as r; print(r.__file__)"],
                           capture_output=True, text=True, cwd=out_dir, env=clean_env, check=True).stdout
    assert where.startswith(str(site)), where
