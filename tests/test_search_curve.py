"""The win-share-against-budget curve of a search agent (issue 16): experiments/studies/search_curve.py."""
from __future__ import annotations

import json

import pytest

from rummy_env.experiments.studies.search_curve import main


def test_curve_records_every_point_and_plots_it(tmp_path):
    """Two budgets in one-hand Tongits, each tournament on two workers: the JSON has one point per
    spec with its win share, CI, par, measured rollouts per decision, workers and tournament file,
    plus provenance; the PNG is written."""
    out, png = tmp_path / "tongits.json", tmp_path / "tongits.png"
    assert main(["--game", "tongits", "--specs", "pimc:2:screen=1,pimc:4:screen=1", "--games", "6",
                 "--workers", "2", "--seed", "7", "--rate-deals", "1", "--option", "hands_per_match=1",
                 "--out", str(out), "--png", str(png)]) == 0
    curve = json.loads(out.read_text())
    assert curve["game"] == "tongits" and curve["options"] == {"hands_per_match": 1} and curve["seed"] == 7
    assert {"git_commit", "dirty", "command"} <= curve.keys()
    assert [p["spec"] for p in curve["points"]] == ["pimc:2:screen=1", "pimc:4:screen=1"]
    for point in curve["points"]:
        assert point["games"] == 6 and point["par"] == 1 / 3 and point["workers"] == 2
        lo, hi = point["win_share_ci"]
        assert 0 <= lo <= point["win_share"] <= hi <= 1
        # a searched decision plays at least two moves in one world: counting decisions the
        # episodes never had (measure's old deals * decisions) would give far fewer
        assert point["rollouts_per_decision"] >= 2 and point["budget_measure"]["decisions"] > 0
        assert point["wall_s"] > 0 and set(point["load_average_1min"]) == {"start", "end"}
        tournament = json.loads(open(point["results_json"]).read())
        assert tournament["agents"] == [point["spec"], "heuristic", "heuristic"]
    low, high = curve["points"]
    assert low["rollouts_per_decision"] < high["rollouts_per_decision"]
    assert png.read_bytes().startswith(b"\x89PNG")


def test_plot_from_merges_curves_of_one_game_and_refuses_others(tmp_path):
    """--plot-from draws one PNG from the points of several curve JSONs (ordered by budget), labels
    each point by agent and budget, and refuses to merge curves of different deal seeds."""
    from rummy_env.experiments.studies.search_curve import merged_curve, short_label

    def curve(name, seed, budgets):
        path = tmp_path / name
        points = [{"spec": f"pimc:{b}", "rollouts_per_decision": float(b), "win_share": 0.4,
                   "win_share_ci": [0.3, 0.5], "par": 1 / 3, "games": 150} for b in budgets]
        path.write_text(json.dumps({"game": "tongits", "options": {"hands_per_match": 1}, "seed": seed,
                                    "points": points}))
        return str(path)

    first, later, other = curve("a.json", 9, [8, 32]), curve("b.json", 9, [16]), curve("c.json", 10, [4])
    assert [p["spec"] for p in merged_curve([first, later])["points"]] == ["pimc:8", "pimc:16", "pimc:32"]
    png = tmp_path / "merged.png"
    assert main(["--plot-from", f"{first},{later}", "--png", str(png)]) == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="deal seed"):
        merged_curve([first, other])
    # the plot labels a point by agent and budget; the JSON keeps the whole spec
    assert short_label("ismcts:72:rollout=heuristic:gate=1") == "ismcts:72" and short_label("pimc:8") == "pimc:8"
