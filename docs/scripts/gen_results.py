"""The Results page and the README's results block, written from the claims index.

``docs/results/claims.json`` lists every strength claim of the documentation: one agent in one
duplicate-deal tournament (``results.json``), its win share and 95% CI as that file records them,
the commit and clean tree it ran from, and for a trained policy the checkpoint and its sha256
(``tests/test_claims.py`` checks each entry against its files). From it this script writes:

- ``docs/results.md``: per game, the best agent of each kind (rule-based, learned, search) against the
  rule-based agent, then every other claim;
- the block of ``README.md`` between ``<!-- claims:begin -->`` and ``<!-- claims:end -->``: one row
  per game.

Usage (stdlib only, from the repository root)::

    python docs/scripts/gen_results.py            # rewrite docs/results.md and the README block
    python docs/scripts/gen_results.py --check    # exit 1 naming the stale files, write nothing
    python docs/scripts/gen_results.py add docs/results/x/results.json --id ID --kind ppo \\
        --description "..." --unit "one round" [--agent SPEC] [--checkpoint PATH] [--best]

``add`` appends one claim read from a tournament's ``results.json`` (the first seat's agent unless
``--agent`` names another spec); its cost per decision is derived from what the file records (see
:func:`cost_per_decision`).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = "docs/results/claims.json"
RESULTS_PAGE = "docs/results.md"
README = "README.md"
BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"
KINDS = ("rule-based", "ppo", "search")
KIND_NAMES = {"rule-based": "rule-based", "ppo": "learned (`ppo`)", "search": "search"}
GAMES = {"rummy": "Rummy", "tongits": "Tongits", "i_doubt_it": "I Doubt It",
         "contract_rummy": "Contract Rummy", "ginny_o": "Ginny-O"}
DECIMALS = 4
COST_BASIS = ("tournament: wall_s x workers x num_seats / steps, the run's compute time per decision "
              "of one seat, every seat and the engine included")


def load_claims(root: Path = ROOT) -> list[dict]:
    return json.loads((root / CLAIMS).read_text(encoding="utf-8"))


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then move it onto ``path``."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def verdict(claim: dict) -> str:
    """``above par``, ``below par`` or ``at par``: where the 95% CI lies against the equal share."""
    lo, hi = claim["ci"]
    if lo > claim["par"]:
        return "above par"
    if hi < claim["par"]:
        return "below par"
    return "at par"


def cost_per_decision(results: dict) -> float:
    """Seconds per decision of one seat, derived from a ``results.json`` (which records no time
    per agent): the tournament's compute time (``wall_s`` x ``workers``) over the decisions of one
    seat (``steps`` / ``num_seats``). It charges every seat's decisions and the engine to the agent,
    so for an agent no cheaper than the others it is an upper bound on the agent's own cost, and on
    a machine shared with other jobs it is higher than on a free core."""
    return results["wall_s"] * results["workers"] * results["num_seats"] / results["steps"]


def seat_row(results: dict, spec: str) -> dict:
    """The one summary row of ``results`` whose agent spec is ``spec``; ``ValueError`` otherwise."""
    rows = [row for row in results["summary"] if row["spec"] == spec]
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} seats play {spec!r} in this tournament; a claim needs exactly one")
    return rows[0]


def claim_from_results(path: str, claim_id: str, kind: str, description: str, unit: str,
                       spec: str | None = None, checkpoint: str | None = None, best: bool = False,
                       root: Path = ROOT) -> dict:
    """One claims-index entry for the agent ``spec`` (default: the first seat) of the tournament
    whose ``results.json`` is ``path`` (relative to the repository root)."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r}: expected one of {', '.join(KINDS)}")
    results = json.loads((root / path).read_text(encoding="utf-8"))
    spec = spec or results["summary"][0]["spec"]
    row = seat_row(results, spec)
    opponents = list(results["agents"])
    opponents.remove(spec)
    claim = {"id": claim_id, "game": results["game"], "kind": kind, "agent": spec,
             "description": description, "unit": unit, "opponents": opponents,
             "options": results["options"], "games": results["games"], "seed": results["seed"],
             "win_share": round(row["win_share"], DECIMALS),
             "ci": [round(x, DECIMALS) for x in row["win_share_ci"]],
             "par": round(row["equal_share"], DECIMALS), "results": path,
             "commit": results.get("git_commit"), "dirty": results.get("dirty"),
             "cost_per_decision": round(cost_per_decision(results), DECIMALS), "cost_basis": COST_BASIS,
             "best": best}
    if checkpoint:
        claim["checkpoint"] = checkpoint
        claim["checkpoint_sha256"] = sha256_file(root / checkpoint)
    return claim


def share_text(claim: dict) -> str:
    lo, hi = claim["ci"]
    return f"{claim['win_share']:.3f} [{lo:.3f}, {hi:.3f}]"


def cost_text(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 0.1 else f"{seconds:.2f} s"


def link(claim: dict, base: str) -> str:
    """A relative link to the claim's results.json from a page in folder ``base``."""
    return f"[results.json]({os.path.relpath(claim['results'], base)})"


def agent_spec(claim: dict) -> str:
    """The spec that plays the claimed agent today: ``ppo`` for a policy under ``checkpoints/<game>/``
    (what ``ppo`` loads for those options), ``ppo:PATH`` for one under ``checkpoints/runs/``."""
    checkpoint = claim.get("checkpoint")
    if checkpoint is None:
        return claim["agent"]
    return f"ppo:{checkpoint}" if checkpoint.startswith("checkpoints/runs/") else "ppo"


def agent_text(claim: dict) -> str:
    return f"`{agent_spec(claim)}`: {claim['description']}"


def rules_text(claim: dict) -> str:
    options = ", ".join(f"{key}={json.dumps(value)}" for key, value in claim["options"].items())
    return f"{claim['unit']} ({options})" if options else f"{claim['unit']} (default rules)"


def best_claims(claims: list[dict]) -> dict[tuple[str, str], dict]:
    return {(c["game"], c["kind"]): c for c in claims if c["best"]}


def game_summary(game: str, best: dict[tuple[str, str], dict]) -> str:
    """One plain sentence per learned or search kind: where it stands against the rule-based agent."""
    parts = []
    for kind in ("ppo", "search"):
        claim = best.get((game, kind))
        if claim is None:
            parts.append(f"no {KIND_NAMES[kind]} claim yet")
            continue
        rules = "" if not claim["options"] else f" ({claim['unit']}, not the default rules)"
        state = verdict(claim)
        word = {"above par": "beats the rule-based agent", "at par": "is only at par with the rule-based agent",
                "below par": "loses to the rule-based agent"}[state]
        parts.append(f"the best {KIND_NAMES[kind]} agent {word}{rules}")
    text = "; ".join(parts)
    return f"In {GAMES[game]}, {text}."


def results_page(claims: list[dict]) -> str:
    best = best_claims(claims)
    lines = [
        "# Results",
        "",
        "<!-- Generated by docs/scripts/gen_results.py from docs/results/claims.json; do not edit. -->",
        "",
        "Every number on this page is an entry of the claims index, "
        "[`docs/results/claims.json`](results/claims.json): one agent in one duplicate-deal tournament "
        "(every deal seed played with the agents rotated through the seats), run from a clean checkout "
        "whose commit the tournament's `results.json` records; `tests/test_claims.py` checks each entry "
        "against that file and each trained policy against its committed checkpoint.",
        "",
        "- **win share**: the agent's win credit per seat played (the highest episode return wins, ties "
        "split), with its 95% percentile-bootstrap CI over deal seeds.",
        "- **par**: the equal share, 1 / players. **above par** or **below par**: the whole CI is on that "
        "side; **at par**: the CI includes par.",
        "- **deal seed**: the tournament's first deal seed; its deals were not used to train or tune the "
        "agent (the journals list the seeds each experiment used).",
        "- **rule-based** rows: the rule-based agent is the reference (at par against itself); its row "
        "shows it against random play, where a clean run of that exists.",
        "- **cost per decision**: the tournament's compute time (wall time x workers) per decision of "
        "one seat, every seat and the engine included, on a 2-core machine shared with other jobs: an "
        "upper bound on the agent's own cost when the other seats are no slower.",
        "",
        "How each agent was found, and everything tried on the way: [the training journal]"
        "(journal/training.md) and [the search journal](journal/search.md).",
        "",
        "## The best agent of each kind against the rule-based agent",
        "",
    ]
    for game in GAMES:
        lines += [f"### {GAMES[game]}", "", game_summary(game, best), "",
                  "| kind | agent | rules | win share [95% CI] | par | verdict | games | deal seed | cost per decision | output |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        reference = best.get((game, "rule-based"))
        if reference is not None:
            lines.append(table_row(reference, "`heuristic`: the reference (at par against itself); this row: "
                                              "against random play"))
        for kind in ("ppo", "search"):
            claim = best.get((game, kind))
            if claim is not None:
                lines.append(table_row(claim))
        lines.append("")
    others = [c for c in claims if not c["best"]]
    lines += ["## Every other claim", "",
              "Second training seeds, other deal seeds, and agents on a part of the game (one round, "
              "hand or deal).", "",
              "| game | kind | agent | rules | win share [95% CI] | par | verdict | games | deal seed | cost per decision | output |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {GAMES[c['game']]} {table_row(c)}" for c in others]
    lines += ["", "## Adding a claim", "",
              "Run the tournament from a clean checkout (commit first), commit its `results.json`, then:", "",
              "```",
              "python docs/scripts/gen_results.py add docs/results/PATH/results.json --id ID --kind ppo \\",
              "    --description \"what the agent is\" --unit \"match to 150\" --checkpoint checkpoints/PATH.pt [--best]",
              "python docs/scripts/gen_results.py        # rewrites this page and the README block",
              "```", "",
              "`tests/test_claims.py` then checks the new entry against its files."]
    return "\n".join(lines) + "\n"


def table_row(claim: dict, agent: str | None = None) -> str:
    return (f"| {KIND_NAMES[claim['kind']]} | {agent or agent_text(claim)} | {rules_text(claim)} | {share_text(claim)} | "
            f"{claim['par']:.3f} | {verdict(claim)} | {claim['games']:,} | {claim['seed']} | "
            f"{cost_text(claim['cost_per_decision'])} | {link(claim, 'docs')} |")


def readme_block(claims: list[dict]) -> str:
    """The README's rows: per game, the best learned and search agents against the rule-based agent."""
    best = best_claims(claims)
    lines = [BEGIN,
             "| game | best learned agent (`ppo`) vs the rule-based agent | best search agent vs the rule-based agent |",
             "|---|---|---|"]
    for game in GAMES:
        cells = []
        for kind in ("ppo", "search"):
            claim = best.get((game, kind))
            if claim is None:
                cells.append("none yet")
                continue
            rules = "" if not claim["options"] else f", {claim['unit']}"
            cells.append(f"{share_text(claim)}, par {claim['par']:.3f}: {verdict(claim)} "
                         f"({claim['games']:,} games{rules}; [output]({claim['results']}))")
        lines.append(f"| {GAMES[game]} | {cells[0]} | {cells[1]} |")
    lines += ["", "Win share with its 95% CI over fresh deal seeds; every claim, its cost per decision and "
              "the rule-based agent against random play: [docs/results.md](docs/results.md).", END]
    return "\n".join(lines)


def readme_with_block(readme: str, claims: list[dict]) -> str:
    """``readme`` with the text between the markers replaced; ``ValueError`` when a marker is missing."""
    start, stop = readme.find(BEGIN), readme.find(END)
    if start < 0 or stop < start:
        raise ValueError(f"{README}: no {BEGIN} ... {END} block to fill")
    return readme[:start] + readme_block(claims) + readme[stop + len(END):]


def expected_files(root: Path = ROOT) -> dict[Path, str]:
    claims = load_claims(root)
    readme = (root / README).read_text(encoding="utf-8")
    return {root / RESULTS_PAGE: results_page(claims), root / README: readme_with_block(readme, claims)}


def stale_files(root: Path = ROOT) -> list[str]:
    return [str(path.relative_to(root)) for path, text in expected_files(root).items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text]


def add_claim(args: argparse.Namespace) -> None:
    claims = load_claims()
    if any(c["id"] == args.id for c in claims):
        raise ValueError(f"claim id {args.id!r} is already in {CLAIMS}")
    claims.append(claim_from_results(args.results, args.id, args.kind, args.description, args.unit,
                                     spec=args.agent, checkpoint=args.checkpoint, best=args.best))
    atomic_write_text(ROOT / CLAIMS, json.dumps(claims, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gen_results.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a generated file is stale; write nothing")
    sub = parser.add_subparsers(dest="command")
    add = sub.add_parser("add", help="append a claim read from a tournament's results.json")
    add.add_argument("results", help="repository path of the tournament's results.json")
    add.add_argument("--id", required=True)
    add.add_argument("--kind", required=True, choices=KINDS)
    add.add_argument("--description", required=True, help="what the agent is, in a few words")
    add.add_argument("--unit", required=True, help="what one game is, e.g. 'match to 150', 'one round'")
    add.add_argument("--agent", help="the claimed seat's agent spec (default: the first seat's)")
    add.add_argument("--checkpoint", help="repository path of the policy the agent plays")
    add.add_argument("--best", action="store_true", help="the game's best agent of its kind")
    args = parser.parse_args(argv)
    try:
        if args.command == "add":
            add_claim(args)
        if args.check:
            stale = stale_files()
            if stale:
                print(f"gen_results.py: stale: {', '.join(stale)} (run python docs/scripts/gen_results.py)",
                      file=sys.stderr)
                return 1
            return 0
        for path, text in expected_files().items():
            atomic_write_text(path, text)
    except (ValueError, KeyError, FileNotFoundError) as exc:
        print(f"gen_results.py: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
