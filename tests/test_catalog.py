"""rummy-env agents: the ladder of claims per game (issue 45 item 4)."""
from rummy_env.experiments.catalog import ladder_lines


def claim(**kw) -> dict:
    base = dict(id="x", game="rummy", kind="ppo", agent="ppo", opponents=["heuristic"], options={}, games=2000,
                seed=7, unit="match to 150", win_share=0.5, ci=[0.48, 0.52], par=0.5, cost_per_decision=0.001)
    return {**base, **kw}


def test_the_ladder_takes_the_default_rules_claim_with_the_highest_lower_bound_and_says_where_it_lies():
    entries = [claim(id="weak", win_share=0.43, ci=[0.41, 0.45]), claim(id="par", ci=[0.49, 0.515]),
               claim(id="round", kind="search", options={"max_rounds": 1}, unit="one round", ci=[0.57, 0.68]),
               claim(id="other-game", game="tongits", ci=[0.9, 0.95])]
    learned, search = ladder_lines("rummy", entries)[1:]
    assert "claim par" in learned and "only at par" in learned and "deal seed 7" in learned
    assert "no claim under the default rules (claims under other rules: one round)" in search


def test_the_ladder_says_above_and_below_par():
    assert "above par" in ladder_lines("rummy", [claim(ci=[0.51, 0.55])])[1]
    assert "below par" in ladder_lines("rummy", [claim(ci=[0.41, 0.45])])[1]
