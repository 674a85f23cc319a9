"""The learner's games for PPO self-play: in each of ``num_envs`` games the learner holds one seat
and an opponent kind drawn per episode holds the others (:class:`Arena`).

Between two learner turns the opponents play (:meth:`Arena.advance`), so each game is a
single-agent environment for the learner, as a gym environment is for CleanRL's PPO
(:mod:`rummy_env.experiments.train_ppo`). Finished episodes are logged with the learner's return,
win share (:func:`rummy_env.agents.base.win_credit`) and length.

The opponents of a run (:func:`opponent_mix`, :func:`eval_opponents`) and its greedy evaluation
(:func:`play_greedy`) are here too.
"""
from __future__ import annotations

import numpy as np

from rummy_env.agents.registry import make_agent
from rummy_env.agents.base import win_credit
from rummy_env.agents.policy_net import prior_ids, with_prior
from rummy_env.vector import VectorGames


LEARNER_REWARDS = {
    "own": "the learner's reward from the game",
    "relative": "its reward minus the mean of the other seats' rewards (zero-sum: a penalty counts "
                "against the others' penalties)",
    "deal_win_loss": "at each scoring step (a deal's, round's or hand's end; with the game's point "
                     "rewards) +1 if its reward is the sole highest, 0 if shared, -1 otherwise",
}
"""What :class:`Arena` may pay the learner (``learner_reward``); the logs keep the game's returns."""


class Arena:
    """``num_envs`` games; in each the learner holds one seat and an opponent kind holds the others.

    ``kinds`` are labels: ``"pool"`` (a snapshot slot of the policy, acted for by the caller's
    ``pool_act(slot, obs, mask)``) or an agent spec (``"random"``, ``"heuristic"``, ``"ppo:PATH"``).
    ``prior`` and ``prior_candidates``: those of the policy (:class:`rummy_env.agents.policy_net.PolicyNet`):
    :meth:`policy_inputs` appends the prior's action (or candidates) to the observations of the
    policy's seats (the learner's, and a pool snapshot's); one prior agent per game and seat, reset
    with the episode.
    ``return_per_deal``: every step on which the engine scores (the end of a deal, round or hand)
    ends the learner's return, as an episode's end does, while the game plays on: an action's
    advantage then weighs its own deal only. ``learner_reward``: what the learner is paid
    (:data:`LEARNER_REWARDS`).
    Picklable: the games, generators and agents travel in the training checkpoint.
    """

    def __init__(self, game: str, num_envs: int, seed: int, options: dict, kinds: list[str],
                 weights: list[float], seat: str, pool_len: int = 0, new_episodes: bool = True,
                 prior: str | None = None, prior_candidates: int = 0, return_per_deal: bool = False,
                 learner_reward: str = "own"):
        if learner_reward not in LEARNER_REWARDS:
            raise ValueError(f"learner_reward must be one of {', '.join(LEARNER_REWARDS)}, got {learner_reward!r}")
        self.game, self.options, self.kinds, self.seat, self.prior = game, options, kinds, seat, prior
        self.prior_candidates = prior_candidates
        self.return_per_deal, self.learner_reward = return_per_deal, learner_reward
        self.prior_agents: dict[tuple[int, int], object] = {}
        self.vg = VectorGames(game, num_envs, seed, **options)
        self.n = self.vg.num_players
        self.weights = np.asarray(weights, np.float64) / np.sum(weights)
        self.pool_len = pool_len
        self.new_episodes = new_episodes
        self.rng = np.random.default_rng([seed, 7919])
        self.agents: dict[tuple[int, int, int], object] = {}
        self.learner = np.zeros(num_envs, np.int64)
        self.kind = np.zeros(num_envs, np.int64)
        self.slot = np.zeros(num_envs, np.int64)
        self.env_steps = 0
        self.carry = np.zeros(num_envs, np.float64)
        """learner rewards of a new return (episode, or deal with ``return_per_deal``) before the learner's
        first turn in it: go to its first transition"""
        self.episodes: list[tuple[int, float, float, int]] = []
        """finished episodes since the last :meth:`take_episodes`: (kind, return, win share, length)"""
        for i in range(num_envs):
            self.new_episode(i)

    def new_episode(self, i: int, seat: int | None = None, kind: int | None = None) -> None:
        rng = self.rng
        self.learner[i] = (int(rng.integers(self.n)) if self.seat == "random" else int(self.seat)) \
            if seat is None else seat
        self.kind[i] = int(rng.choice(len(self.kinds), p=self.weights)) if kind is None else kind
        if self.prior:
            for s in range(self.n):
                if (i, s) not in self.prior_agents:
                    self.prior_agents[(i, s)] = make_agent(self.prior, self.game, self.options)
                self.prior_agents[(i, s)].reset(s, int(rng.integers(2**63 - 1)))
        label = self.kinds[self.kind[i]]
        if label == "pool":
            self.slot[i] = int(rng.integers(self.pool_len))
            return
        for s in range(self.n):
            if s != self.learner[i]:
                key = (i, s, int(self.kind[i]))
                if key not in self.agents:
                    self.agents[key] = make_agent(label, self.game, self.options)
                self.agents[key].reset(s, int(rng.integers(2**63 - 1)))

    def policy_inputs(self, ids, obs, mask, seat) -> np.ndarray:
        """The policy network's inputs for the observations ``obs`` of ``seat`` in games ``ids``:
        ``obs`` itself, or with a prior its rule-based agent's actions appended."""
        if not self.prior:
            return obs
        return with_prior(obs, [prior_ids(self.prior_agents[(int(i), int(s))], o, m, self.vg.games[i].view(s),
                                          self.prior_candidates)
                                for i, s, o, m in zip(ids, seat, obs, mask)])

    def opponent_actions(self, ids, obs, mask, seat, pool_act) -> np.ndarray:
        actions = np.empty(len(ids), np.int64)
        kinds = self.kind[ids]
        for k in np.unique(kinds):
            sel = np.flatnonzero(kinds == k)
            if self.kinds[k] == "pool":
                slots = self.slot[ids[sel]]
                for slot in np.unique(slots):
                    sub = sel[slots == slot]
                    inputs = self.policy_inputs(ids[sub], obs[sub], mask[sub], seat[sub])
                    actions[sub] = pool_act(int(slot), inputs, mask[sub])
                continue
            for j in sel:
                i, s = int(ids[j]), int(seat[j])
                actions[j] = self.agents[(i, s, int(k))].act(obs[j], mask[j], self.vg.games[i].view(s))
        return actions

    def step(self, ids: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Step games ``ids``; (learner reward, learner's return ended) per game: the return ends with
        the episode, and with ``return_per_deal`` at every scoring step too. Ended episodes get a new
        set-up (a new deal is already in place)."""
        res = self.vg.step(actions, ids)
        self.env_steps += len(ids)
        rewards = res.rewards[np.arange(len(ids)), self.learner[ids]]
        if self.learner_reward == "relative":
            rewards = rewards - (res.rewards.sum(axis=1) - rewards) / (self.n - 1)
        elif self.learner_reward == "deal_win_loss":
            best = res.rewards.max(axis=1)
            sole = (res.rewards == best[:, None]).sum(axis=1) == 1
            rewards = np.where(rewards < best, -1.0, np.where(sole, 1.0, 0.0))
        for j in np.flatnonzero(res.done):
            i = int(ids[j])
            seat = int(self.learner[i])
            self.episodes.append((int(self.kind[i]), float(res.returns[j, seat]),
                                  win_credit(res.returns[j].tolist())[seat], int(res.lengths[j])))
            if self.new_episodes:
                self.new_episode(i)
        return rewards, (res.done | res.scored) if self.return_per_deal else res.done

    def advance(self, ids: np.ndarray, reward: np.ndarray, ended: np.ndarray, pool_act) -> None:
        """Let the opponents play in games ``ids`` until the learner is to act in each; add the
        learner's rewards to ``reward[i]`` and mark ``ended[i]`` when its return ends meanwhile
        (:meth:`step`)."""
        ids = np.asarray(ids, np.int64)
        while ids.size:
            obs, mask, seat = self.vg.observe(ids)
            waiting = seat != self.learner[ids]
            ids, obs, mask, seat = ids[waiting], obs[waiting], mask[waiting], seat[waiting]
            if not ids.size:
                return
            r, d = self.step(ids, self.opponent_actions(ids, obs, mask, seat, pool_act))
            over = ended[ids]  # rewards after a return's end belong to the learner's next return
            reward[ids] += np.where(over, 0.0, r)
            self.carry[ids] += np.where(over, r, 0.0)
            ended[ids] |= d

    def take_episodes(self) -> list[tuple[int, float, float, int]]:
        out, self.episodes = self.episodes, []
        return out


EVAL_SEED_OFFSET = 1_000_003
"""The evaluation deals of update u of a run with seed s come from seed s + EVAL_SEED_OFFSET + u."""


def has_heuristic(game: str) -> bool:
    """Whether ``game`` has a rule-based agent (the spec ``heuristic``)."""
    try:
        make_agent("heuristic", game)
    except ValueError:
        return False
    return True


def opponent_mix(game: str, opponents: str) -> tuple[list[str], list[float]]:
    """``--opponents`` (``kind:weight,...``) as kinds and weights; ``heuristic`` is dropped for a
    game without one. ``ValueError`` if no opponent is left."""
    keep_heuristic = has_heuristic(game)
    kinds, weights = [], []
    for item in opponents.split(","):
        label, _, weight = item.strip().partition(":")
        if label != "heuristic" or keep_heuristic:
            kinds.append(label)
            weights.append(float(weight or 1))
    if not kinds or sum(weights) <= 0:
        raise ValueError(f"--opponents {opponents!r} leaves no opponent for {game}")
    return kinds, weights


def eval_opponents(game: str, specs: str) -> list[str]:
    """``--eval-opponents`` (comma-separated agent specs); none means heuristic if the game has one, and random."""
    return [s for s in specs.split(",") if s] or (["heuristic"] if has_heuristic(game) else []) + ["random"]


def play_greedy(net, game: str, options: dict, spec: str, episodes: int, run_seed: int,
                update: int) -> list[tuple[int, float, float, int]]:
    """The greedy ``net`` plays ``episodes`` games against ``spec`` (its seat rotating); the episodes
    as :meth:`Arena.take_episodes` gives them. The deals depend on ``run_seed`` and ``update`` only."""
    arena = Arena(game, episodes, run_seed + EVAL_SEED_OFFSET + update, options, [spec], [1.0], "0",
                  new_episodes=False, prior=net.prior,
                  prior_candidates=net.prior_candidates)
    for i in range(episodes):
        arena.new_episode(i, seat=i % arena.n, kind=0)
    live = np.ones(episodes, bool)
    while live.any():
        ids = np.flatnonzero(live)
        obs, mask, seat = arena.vg.observe(ids)
        mine = seat == arena.learner[ids]
        actions = np.empty(len(ids), np.int64)
        if mine.any():
            inputs = arena.policy_inputs(ids[mine], obs[mine], mask[mine], seat[mine])
            actions[mine] = net.act(inputs, mask[mine], greedy=True)
        if (~mine).any():
            actions[~mine] = arena.opponent_actions(ids[~mine], obs[~mine], mask[~mine], seat[~mine], None)
        _, done = arena.step(ids, actions)
        live[ids[done]] = False
    return arena.take_episodes()


def greedy_eval_rows(net, game: str, options: dict, specs: list[str], episodes: int, run_seed: int, update: int,
                     global_step: int) -> list[dict]:
    """The greedy ``net`` against each of ``specs``, ``episodes`` games each (:func:`play_greedy`): a
    row per opponent with the update, the learner decisions so far, the games, win share, mean return
    and mean length, as ``eval.csv`` keeps them."""
    rows = []
    for spec in specs:
        eps = play_greedy(net, game, options, spec, episodes, run_seed, update)
        rows.append({"update": update, "global_step": global_step, "opponent": spec,
                     "episodes": len(eps), "win_share": float(np.mean([e[2] for e in eps])),
                     "mean_return": float(np.mean([e[1] for e in eps])),
                     "mean_length": float(np.mean([e[3] for e in eps]))})
    return rows
