"""Win share of a search agent against the rule-based agent at several budgets (issue 16).

For each spec, a duplicate-deal tournament (:func:`rummy_env.experiments.tournament.run_tournament`)
seats the search agent in one seat and the rule-based agent in every other, rotated through all
seats, on ``--workers`` processes; its results go to ``<out without .json>/<spec>/`` (results.json,
games.jsonl for replays).
The budget of a spec is its mean rollouts (ISMCTS: iterations) per searched decision, measured by
:func:`rummy_env.experiments.studies.measure_ismcts.measure` over every decision of seat 0 in a few deals
(seeds 0, 1, ...; not the tournament's). The curve JSON is rewritten after every spec, so a run
stopped early keeps its finished points; the PNG plots win share (95% CI) against that budget.

    python -m rummy_env.experiments.studies.search_curve --game tongits \
        --specs pimc:4:screen=4,pimc:8:screen=4 --games 150 --seed 930000 \
        --option hands_per_match=1 --out docs/results/search/curves/tongits.json \
        --png docs/results/search/curves/tongits.png

A one-off study, kept in ``experiments/studies/`` and left out of the wheel: run it from a
repository checkout (``pip install -e .``) as ``python -m
rummy_env.experiments.studies.search_curve``. It produced the curves of
``docs/results/search/curves/`` (``tongits.json``, ``rummy.json``, ``rummy_pimc16.json``,
``*_ismcts.json`` and their PNGs); its results record the command line it had before it moved here.
"""
from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

import numpy as np

from rummy_env.agents.registry import check_agent_spec
from rummy_env.registry import game_key, make_raw_env

from .. import io
from .measure_ismcts import measure
from ..options import add_option_argument, parse_env_options
from ..tournament import TournamentConfig, run_tournament

EVERY_DECISION = 10_000
"""``measure``'s decisions per deal: more than any episode has, so every decision is counted."""


def curve_point(game: str, spec: str, games: int, seed: int, options: dict, rate_deals: int,
                out_dir: Path | None, workers: int = 1) -> dict:
    """One spec's tournament against the rule-based agent (on ``workers`` processes) and its
    measured budget."""
    seats = len(make_raw_env(game, **options).possible_agents)
    load_start = os.getloadavg()[0]
    config = TournamentConfig(game, (spec,) + ("heuristic",) * (seats - 1), games, seed, options,
                              workers=workers)
    results = run_tournament(config, out_dir, progress=False)
    search = results["summary"][0]
    budget = measure(game, spec, rate_deals, EVERY_DECISION, options)
    return {
        "spec": spec, "games": results["games"], "deals": results["deals"],
        "win_share": search["win_share"], "win_share_ci": search["win_share_ci"],
        "par": search["equal_share"], "mean_reward": search["mean_reward"],
        "rule_based_mean_reward": [s["mean_reward"] for s in results["summary"][1:]],
        "rollouts_per_decision": budget["iterations_per_decision"],
        "budget_measure": budget, "wall_s": results["wall_s"], "workers": results["workers"],
        "load_average_1min": {"start": load_start, "end": os.getloadavg()[0]},
        "results_json": None if out_dir is None else str(out_dir / "results.json"),
    }


def short_label(spec: str) -> str:
    """A point's label on the plot: the agent and its budget (``ismcts:72`` of
    ``ismcts:72:rollout=heuristic:...``); the curve JSON and the docs keep the whole spec."""
    return ":".join(spec.split(":")[:2])


def plot_curve(curve: dict, path: str | os.PathLike) -> Path:
    """PNG: win share with 95% CI against mean rollouts per searched decision (log x), par line."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    points = curve["points"]
    fig = Figure(figsize=(5.6, 3.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    x = np.array([p["rollouts_per_decision"] for p in points])
    share = np.array([p["win_share"] for p in points])
    lo = np.array([p["win_share_ci"][0] for p in points])
    hi = np.array([p["win_share_ci"][1] for p in points])
    ax.errorbar(x, share, yerr=[share - lo, hi - share], fmt="o-", capsize=4, color="#4C72B0")
    ax.axhline(points[0]["par"], color="gray", linestyle="--", linewidth=1, label="par (equal strength)")
    for p, xi, top in zip(points, x, hi):
        ax.annotate(short_label(p["spec"]), (xi, top), xytext=(0, 3), textcoords="offset points", ha="center",
                    fontsize=7)
    ax.set_xscale("log")
    ax.set_xticks(x, [f"{v:.0f}" for v in x])
    ax.set_xticks([], minor=True)
    ax.set_ylim(0, min(1.0, max(hi.max(), points[0]["par"]) + 0.15))
    ax.set_xlabel("mean rollouts per searched decision (log)")
    ax.set_ylabel("win share per seat (95% CI)")
    ax.set_title(f"{curve['game']} {curve['options']}: search vs rule-based, "
                 f"{points[0]['games']} games per point, seed {curve['seed']}", fontsize=8)
    ax.legend(fontsize=8, frameon=False)
    fig.tight_layout()
    return io.save_figure(path, fig)


def run_curve(game: str, specs: list[str], games: int, seed: int, options: dict, out: str | os.PathLike,
              png: str | os.PathLike | None = None, rate_deals: int = 5, workers: int = 1) -> dict:
    """Every spec's point, the curve JSON (with provenance) rewritten after each, then the PNG."""
    game = game_key(game)
    for spec in specs:
        check_agent_spec(spec, game)
    out = Path(out)
    curve = {"game": game, "options": options, "seed": seed, "games_per_point": games,
             "opponent": "heuristic", "rate_deals": rate_deals, "cpu_count": os.cpu_count(), "points": []}
    for spec in specs:
        folder = out.with_suffix("") / re.sub(r"[^\w.-]+", "-", spec, flags=re.ASCII)
        curve["points"].append(curve_point(game, spec, games, seed, options, rate_deals, folder, workers))
        io.write_json(out, {**curve, **io.provenance()})
        p = curve["points"][-1]
        print(f"{spec}: win share {p['win_share']:.3f} [{p['win_share_ci'][0]:.3f}, {p['win_share_ci'][1]:.3f}] "
              f"(par {p['par']:.3f}), {p['rollouts_per_decision']:.1f} rollouts/decision, "
              f"{p['wall_s']:.0f} s", flush=True)
    if png is not None:
        plot_curve(curve, png)
    return curve


def merged_curve(paths: list[str]) -> dict:
    """One curve from the points of several curve JSONs of the same game, options and deal seed
    (e.g. a point run on its own later), ordered by budget."""
    curves = [json.loads(Path(path).read_text()) for path in paths]
    first = curves[0]
    for path, curve in zip(paths, curves):
        if (curve["game"], curve["options"], curve["seed"]) != (first["game"], first["options"], first["seed"]):
            raise ValueError(f"{path}: another game, options or deal seed than {paths[0]}; cannot merge")
    points = sorted((p for curve in curves for p in curve["points"]), key=lambda p: p["rollouts_per_decision"])
    return {**first, "points": points}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m rummy_env.experiments.studies.search_curve``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game")
    parser.add_argument("--specs", help="comma-separated search agent specs, one point each")
    parser.add_argument("--games", type=int, default=150, help="games per point (whole deal seeds are played)")
    parser.add_argument("--seed", type=int, default=0, help="deal seed of every point's tournament")
    parser.add_argument("--rate-deals", type=int, default=5, help="deals over which rollouts per decision are counted")
    parser.add_argument("--out", help="curve JSON; each point's tournament goes next to it")
    parser.add_argument("--workers", type=int, default=1, help="processes per point's tournament")
    parser.add_argument("--png")
    parser.add_argument("--plot-from", help="comma-separated curve JSONs: draw --png from their points, run nothing")
    add_option_argument(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.plot_from:
        if not args.png:
            parser.error("--plot-from needs --png")
        plot_curve(merged_curve(args.plot_from.split(",")), args.png)
        return 0
    if not (args.game and args.specs and args.out):
        parser.error("--game, --specs and --out are required (unless --plot-from)")
    run_curve(args.game, args.specs.split(","), args.games, args.seed, parse_env_options(args.option),
              args.out, args.png, args.rate_deals, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
