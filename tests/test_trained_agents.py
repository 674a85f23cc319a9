"""The committed trained agents (checkpoints/): every policy file loads as an agent for its game and
plays whole games against the rule-based agent with legal actions only, and the one strength claim
that a small tournament can settle is checked: the I Doubt It agent beats the rule-based agent. The
smaller margins of the Tongits and Contract Rummy agents need the 2,000-game tournaments of
docs/journal/training.md; they are not claimed here."""
from __future__ import annotations

import os

import pytest
import torch

import rummy_env
from rummy_env.agents.policy_checkpoint import check_layout, layout_record
from rummy_env.agents.registry import load_ppo_agent, make_agent
from rummy_env.experiments.tournament import TournamentConfig, run_tournament
from rummy_env.registry import make_env, make_raw_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Every committed policy file (checkpoints/README.md): game, path under checkpoints/, the env options
# it was trained with.
POLICIES = [
    ("rummy", "rummy/policy_fp16.pt", {"reward_mode": "win_loss", "max_rounds": 1}),
    ("tongits", "tongits/policy_fp16.pt", {}),
    ("i_doubt_it", "i_doubt_it/policy_fp16.pt", {}),
    ("contract_rummy", "contract_rummy/policy_fp16.pt", {"deals": [1], "reward_mode": "win_loss"}),
    ("ginny_o", "ginny_o/policy_fp16.pt", {}),
    ("ginny_o", "runs/ginny_o_factored_s1/policy_fp16.pt", {}),
    ("tongits", "runs/tongits_prior_s2/policy_fp16.pt", {}),
    ("contract_rummy", "runs/contract_rummy_2cores_s2/policy_fp16.pt", {}),
    ("rummy", "runs/rummy_prior_mc_s1/policy_fp16.pt", {"reward_mode": "zero_sum"}),
    ("rummy", "runs/rummy_prior_mc_s2/policy_fp16.pt", {"reward_mode": "zero_sum"}),
    ("contract_rummy", "contract_rummy/default_rules/policy_fp16.pt", {}),
    ("rummy", "rummy/default_rules/policy_fp16.pt", {}),
    ("rummy", "runs/rummy_match_dmc_s2/policy_fp16.pt", {}),
    ("rummy", "runs/rummy_round_dmc_s1/policy_fp16.pt", {"max_rounds": 1}),
    ("rummy", "runs/rummy_round_dmc_s2/policy_fp16.pt", {"max_rounds": 1}),
    ("ginny_o", "runs/ginny_o_dmc_s2/policy_fp16.pt", {}),
]


def checkpoint(path: str) -> str:
    return os.path.join(ROOT, "checkpoints", path)


def test_every_policy_file_is_listed():
    """POLICIES covers every policy file under checkpoints/, so the next test sees each one."""
    on_disk = {os.path.relpath(os.path.join(folder, name), checkpoint(""))
               for folder, _, names in os.walk(checkpoint("")) for name in names if name.endswith(".pt")}
    assert on_disk == {path for _, path, _ in POLICIES}


@pytest.mark.parametrize("game,path,options", POLICIES, ids=[p[1] for p in POLICIES])
def test_committed_agent_loads_and_plays_legal_games(game, path, options):
    """The policy loads for its game and options and, in seat 0 against the rule-based agent, plays
    two whole games: each action it chooses is legal (the mask allows it) and every game ends."""
    env = make_env(game, **options)
    players = [load_ppo_agent(checkpoint(path), game, options=options)]
    players += [make_agent("heuristic", game) for _ in env.possible_agents[1:]]
    for seed in (1, 2):
        env.reset(seed=seed)
        for seat, player in enumerate(players):
            player.reset(seat, seed)
        moves = 0
        for name in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            action = players[seat].act(obs["observation"], obs["action_mask"], env.unwrapped.view(name))
            if seat == 0:
                assert obs["action_mask"][action] == 1, (path, env.unwrapped.action_to_text(action))
                moves += 1
            env.step(action)
        assert moves > 0
        assert all(env.terminations.values()) or all(env.truncations.values())


@pytest.mark.parametrize("game,path,options", POLICIES[:5], ids=[p[0] for p in POLICIES[:5]])
def test_ppo_spec_without_path_is_the_games_committed_checkpoint(game, path, options):
    """``make_agent("ppo", game)`` loads ``checkpoints/<game>/policy_fp16.pt`` (the network of
    the ``ppo:PATH`` agent for that file)."""
    agent = make_agent("ppo", game, options)
    assert agent.net.name == f"{game} checkpoint {checkpoint(path)}"
    reference = load_ppo_agent(checkpoint(path), game, options=options)
    for name, tensor in reference.net.state_dict().items():
        assert torch.equal(agent.net.state_dict()[name], tensor), name


@pytest.mark.parametrize("options,path", [
    ({}, "contract_rummy/default_rules/policy_fp16.pt"),
    ({"num_players": 4, "deals": [1, 2, 3, 4, 5, 6, 7]}, "contract_rummy/default_rules/policy_fp16.pt"),
    ({"deals": [1], "reward_mode": "win_loss"}, "contract_rummy/policy_fp16.pt"),
    (None, "contract_rummy/policy_fp16.pt"),
], ids=["defaults", "defaults-spelled-out", "one-deal", "no-options"])
def test_ppo_spec_picks_the_committed_policy_trained_on_the_envs_options(options, path):
    """Contract Rummy commits two policies: the main file plays one deal (the searches' value head),
    ``default_rules/`` the seven deals. ``ppo`` with the env's options loads the one trained on
    exactly those options, the defaults filled in (so ``{}`` and the defaults spelled out agree);
    without options, the main file."""
    agent = make_agent("ppo", "contract_rummy", options)
    assert agent.net.name == f"contract_rummy checkpoint {checkpoint(path)}"


def test_rummy_ppo_under_the_default_rules_is_the_match_policy():
    """Rummy commits the one-round policy as its main file and the match's (train_dmc, gated over the
    rule-based agent) in ``default_rules/``: ``ppo`` under the default options loads the latter."""
    agent = make_agent("ppo", "rummy", {})
    assert agent.net.name == f"rummy checkpoint {checkpoint('rummy/default_rules/policy_fp16.pt')}"


def test_ppo_spec_with_options_no_policy_was_trained_on_loads_the_main_file():
    """Options neither committed Contract Rummy policy was trained on (one deal, the default reward):
    the main file, with the one-line warning naming what differs."""
    with pytest.warns(UserWarning, match="other options than it was trained with: reward_mode="):
        agent = make_agent("ppo", "contract_rummy", {"deals": [1]})
    assert agent.net.name == f"contract_rummy checkpoint {checkpoint('contract_rummy/policy_fp16.pt')}"


@pytest.mark.parametrize("game,path,options", POLICIES[:5], ids=[p[0] for p in POLICIES[:5]])
def test_committed_checkpoint_records_its_observation_layout(game, path, options):
    """Each game's committed checkpoint records the layout of the env its options build, so the
    spec ``ppo`` checks it: the same file with one part renamed is refused."""
    data = torch.load(checkpoint(path), map_location="cpu", weights_only=True)
    assert data["options"] == options
    assert data["observation_layout"] == layout_record(make_raw_env(game, **options).observation_layout())
    data["observation_layout"][0]["name"] += "_renamed"
    with pytest.raises(ValueError, match="another observation layout"):
        check_layout(path, data, make_raw_env(game, **options).observation_layout())


def test_ppo_spec_without_checkpoints_folder_says_where_it_looked(tmp_path, monkeypatch):
    """Installed from a wheel (no checkpoints/ beside the package) the spec ``ppo`` is a
    ValueError naming the path it looked for and the ``ppo:PATH`` way out."""
    monkeypatch.setattr(rummy_env, "__file__", str(tmp_path / "site-packages" / "rummy_env" / "__init__.py"))
    looked = tmp_path / "site-packages" / "checkpoints" / "tongits" / "policy_fp16.pt"
    with pytest.raises(ValueError, match=f"no committed tongits checkpoint at {looked} .*pass ppo:PATH$"):
        make_agent("ppo", "tongits")


def test_i_doubt_it_agent_beats_the_rule_based_agent():
    """I Doubt It (4 seats, par 0.25): the trained agent against three rule-based agents wins so
    often (0.97 in the 2,000-game tournament of docs/journal/training.md) that 48 games on other seeds
    settle it: the lower end of the 95% CI of its win share is above par. The agent is the spec
    ``ppo`` with no path: the game's committed checkpoint."""
    spec = "ppo"
    config = TournamentConfig(game="i_doubt_it", agents=(spec, "heuristic", "heuristic", "heuristic"),
                              games=48, seed=12345, workers=1)
    results = run_tournament(config, progress=False, log_games=False)
    trained = results["summary"][0]
    assert trained["spec"] == spec and trained["seat_games"] >= 48
    assert trained["win_share_ci"][0] > 0.25, trained


def test_inspect_i_doubt_it_counts_every_game():
    from rummy_env.experiments.studies.inspect_i_doubt_it import seat_totals
    spec = "ppo:" + checkpoint("i_doubt_it/policy_fp16.pt")
    totals = seat_totals(spec, games=3, seed=7)
    assert sum(t["first_out"] for t in totals) == 3
    for t in totals:
        assert t["pickups"] >= t["caught_lying"] and t["cards_picked_up"] >= t["pickups"]
        assert t["plays"] > 0



def test_inspect_i_doubt_it_plays_a_search_agent_and_writes_json(tmp_path):
    """A search agent (which needs its seat's information state) plays seat 0; ``--out`` writes the totals with provenance."""
    import json
    from rummy_env.experiments.studies.inspect_i_doubt_it import main
    out = tmp_path / "totals.json"
    main(["--agent", "pimc:2:screen=1:candidates=2:value=cards:depth=2:claims=truthful", "--games", "2",
          "--seed", "7", "--out", str(out)])
    data = json.loads(out.read_text())
    assert data["games"] == 2 and len(data["seats"]) == 4 and "git_commit" in data
    assert sum(seat["first_out_share"] for seat in data["seats"]) == 1.0


def test_tournament_plays_ppo_agents_on_one_torch_thread_and_restores_it():
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    seen = []
    spec = "ppo:" + checkpoint("i_doubt_it/policy_fp16.pt")
    config = TournamentConfig(game="i_doubt_it", agents=(spec, "random"), games=4, seed=3, workers=1)
    try:
        run_tournament(config, progress=False, log_games=False,
                       on_records=lambda records: seen.append(torch.get_num_threads()))
        assert seen and set(seen) == {1}
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
