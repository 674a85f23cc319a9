"""The claims index (docs/results/claims.json) against the files it cites, and the pages generated
from it (docs/results.md, the README's results block) against the index.

Each entry must agree with its tournament's ``results.json`` (the agent's win share and 95% CI as the
file records them, rounded to 4 places; games, deal seed, options, opponents, par), come from a clean
tree (``dirty: false``) at a commit in this repository's history, and, for a trained policy, name a
checkpoint file present with the recorded sha256, the same file the tournament played where the
commit tracked it. A tampered copy of the index fails the same checks."""
from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import subprocess
from pathlib import Path

import pytest

from rummy_env.agents.policy_checkpoint import committed_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_results", ROOT / "docs" / "scripts" / "gen_results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_results = load_generator()
CLAIMS = gen_results.load_claims(ROOT)


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True)


def commit_in_history(commit: str) -> bool:
    """The commit exists here and is an ancestor of HEAD."""
    return (git("cat-file", "-e", f"{commit}^{{commit}}").returncode == 0
            and git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0)


def tracked_blob_sha256(commit: str, path: str) -> str | None:
    """sha256 of ``path`` as committed at ``commit``; None when that commit did not track it."""
    blob = git("show", f"{commit}:{path}")
    return hashlib.sha256(blob.stdout).hexdigest() if blob.returncode == 0 else None


def claim_problems(claim: dict) -> list[str]:
    """Every way ``claim`` disagrees with its results file, its commit or its checkpoint."""
    problems = []
    path = ROOT / claim["results"]
    if not path.is_file():
        return [f"results file {claim['results']} is missing"]
    results = json.loads(path.read_text(encoding="utf-8"))
    row = gen_results.seat_row(results, claim["agent"])
    expected = {
        "game": results["game"], "options": results["options"], "games": results["games"],
        "seed": results["seed"], "win_share": round(row["win_share"], gen_results.DECIMALS),
        "ci": [round(x, gen_results.DECIMALS) for x in row["win_share_ci"]],
        "par": round(row["equal_share"], gen_results.DECIMALS),
        "commit": results.get("git_commit"), "dirty": results.get("dirty"),
        "cost_per_decision": round(gen_results.cost_per_decision(results), gen_results.DECIMALS),
    }
    problems += [f"{key}: claim says {claim[key]!r}, {claim['results']} says {value!r}"
                 for key, value in expected.items() if claim[key] != value]
    opponents = list(results["agents"])
    opponents.remove(claim["agent"])
    if sorted(claim["opponents"]) != sorted(opponents):
        problems.append(f"opponents: claim says {claim['opponents']}, the tournament played {opponents}")
    if claim["dirty"] is not False:
        problems.append("dirty: the run's tree was not clean (or did not record it)")
    if not claim["commit"] or not commit_in_history(claim["commit"]):
        problems.append(f"commit {claim['commit']} is not in this repository's history")
    problems += checkpoint_problems(claim)
    return problems


def checkpoint_problems(claim: dict) -> list[str]:
    if not claim["agent"].startswith("ppo"):
        return [f"checkpoint: a {claim['agent']!r} claim names one"] if "checkpoint" in claim else []
    if "checkpoint" not in claim:
        return ["checkpoint: a ppo claim must name its checkpoint and sha256"]
    file = ROOT / claim["checkpoint"]
    if not file.is_file():
        return [f"checkpoint {claim['checkpoint']} is missing"]
    problems = []
    if hashlib.sha256(file.read_bytes()).hexdigest() != claim["checkpoint_sha256"]:
        problems.append(f"checkpoint {claim['checkpoint']}: sha256 differs from the claim's")
    played = claim["checkpoint"] if claim["agent"] == "ppo" else claim["agent"][len("ppo:"):]
    at_commit = tracked_blob_sha256(claim["commit"], played) if claim["commit"] else None
    if at_commit is not None and at_commit != claim["checkpoint_sha256"]:
        problems.append(f"checkpoint: {played} at {claim['commit'][:7]} (the file the tournament played) "
                        f"is not the claim's checkpoint")
    return problems


@pytest.mark.parametrize("claim", CLAIMS, ids=[c["id"] for c in CLAIMS])
def test_claim_matches_its_results_commit_and_checkpoint(claim):
    assert claim_problems(claim) == []


def test_claims_have_unique_ids_and_known_games_and_kinds():
    assert len({c["id"] for c in CLAIMS}) == len(CLAIMS)
    assert {c["game"] for c in CLAIMS} <= set(gen_results.GAMES)
    assert {c["kind"] for c in CLAIMS} <= set(gen_results.KINDS)


def test_each_game_has_one_best_agent_of_each_kind():
    """The Results page and the README show, per game, one best agent of each kind: at most one,
    and a PPO and a search agent in every game."""
    best = [(c["game"], c["kind"]) for c in CLAIMS if c["best"]]
    assert sorted(best) == sorted(set(best))
    assert {(game, kind) for game in gen_results.GAMES for kind in ("ppo", "search")} <= set(best)


@pytest.mark.parametrize("claim", [c for c in CLAIMS if c["agent"] == "ppo"],
                         ids=[c["id"] for c in CLAIMS if c["agent"] == "ppo"])
def test_a_ppo_claim_names_the_checkpoint_the_spec_ppo_loads(claim):
    assert Path(committed_checkpoint(claim["game"], claim["options"])) == ROOT / claim["checkpoint"]


def tampered(field: str, value) -> dict:
    claim = copy.deepcopy(next(c for c in CLAIMS if "checkpoint" in c))
    claim[field] = value
    return claim


@pytest.mark.parametrize("field,value,message", [
    ("win_share", 0.9999, "win_share: claim says 0.9999"),
    ("ci", [0.0, 1.0], "ci: claim says [0.0, 1.0]"),
    ("seed", 123, "seed: claim says 123"),
    ("dirty", True, "dirty: the run's tree was not clean"),
    ("commit", "0" * 40, "not in this repository's history"),
    ("checkpoint_sha256", "0" * 64, "sha256 differs"),
    ("checkpoint", "checkpoints/no_such_policy.pt", "is missing"),
    ("results", "docs/results/no_such/results.json", "is missing"),
])
def test_a_tampered_claim_fails(field, value, message):
    problems = claim_problems(tampered(field, value))
    assert any(message in p for p in problems), problems


def test_a_claim_on_another_checkpoint_than_the_one_played_fails():
    """A claim whose checkpoint (and hash) is some other committed policy, not the file the
    tournament played at its commit, fails even though that file is present with that hash."""
    claim = copy.deepcopy(next(c for c in CLAIMS if c["agent"].startswith("ppo:")))
    other = next(c for c in CLAIMS if "checkpoint" in c and c["checkpoint_sha256"] != claim["checkpoint_sha256"])
    claim["checkpoint"], claim["checkpoint_sha256"] = other["checkpoint"], other["checkpoint_sha256"]
    assert any("is not the claim's checkpoint" in p for p in claim_problems(claim))


def test_results_page_and_readme_block_are_current():
    """docs/results.md and the README block are what gen_results.py writes from the index."""
    assert gen_results.stale_files(ROOT) == [], "run: python docs/scripts/gen_results.py"


def test_a_stale_results_page_is_detected(tmp_path):
    for name in (gen_results.CLAIMS, gen_results.RESULTS_PAGE, gen_results.README):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text((ROOT / name).read_text(encoding="utf-8"), encoding="utf-8")
    assert gen_results.stale_files(tmp_path) == []
    claims = json.loads((tmp_path / gen_results.CLAIMS).read_text(encoding="utf-8"))
    next(c for c in claims if c["best"] and c["kind"] == "ppo")["win_share"] = 0.1234
    (tmp_path / gen_results.CLAIMS).write_text(json.dumps(claims), encoding="utf-8")
    assert gen_results.stale_files(tmp_path) == [gen_results.RESULTS_PAGE, gen_results.README]


def test_checkpoints_folder_holds_only_loaded_or_cited_policies_within_30_mb():
    """Tracked files under checkpoints/ total at most 30 MB, and each policy in it is one the spec
    ``ppo`` loads (``checkpoints/<game>/`` and the folders below it) or one a claim cites."""
    tracked = git("ls-files", "-z", "checkpoints").stdout.decode().split("\0")
    files = [ROOT / path for path in tracked if path]
    assert sum(f.stat().st_size for f in files) <= 30_000_000
    cited = {ROOT / c["checkpoint"] for c in CLAIMS if "checkpoint" in c}
    runs = ROOT / "checkpoints" / "runs"
    policies = {f for f in files if f.suffix == ".pt"}
    assert {f for f in policies if runs in f.parents} <= cited
