"""The policy network PPO, imitation and ``improve`` train (:class:`PolicyNet`) and the helpers that
read it: the action mask applied the same way everywhere (:func:`masked_logits`: illegal logits are
set to -1e9 before the softmax, so a masked action has probability 0 and the policy never picks
one) and a residual policy's prior inputs (:func:`with_prior`, :func:`prior_ids`).

A forward pass whose logits are not all finite raises ``ValueError`` naming the policy (game and
checkpoint) and the first non-finite observation entry, instead of the arg-max silently picking the
first legal action or ``Categorical`` printing a tensor. A fresh network for a game is
:func:`rummy_env.agents.registry.policy_for_game` (it resolves the prior's agent spec); a stored one
is :func:`rummy_env.agents.policy_checkpoint.policy_from_checkpoint`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch
from torch import nn

from .base import Agent

MASK_FILL = -1e9


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with every action where ``mask`` is 0/False set to -1e9."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, MASK_FILL))


def masked_distribution(logits: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
    """The categorical distribution the policy samples from, and PPO scores, under ``mask``."""
    return torch.distributions.Categorical(logits=masked_logits(logits, mask))


def pick_per_row(rows: np.ndarray, cols: np.ndarray, logits: np.ndarray, n: int,
                 uniform: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(action, its log-probability) for each of ``n`` rows from its legal pairs (pair ``i``: row
    ``rows[i]``, action ``cols[i]``, logit ``logits[i]``; a row's pairs consecutive and in
    ascending action order, as :meth:`PolicyNet.legal_logits` gives them). Without ``uniform``
    the arg-max (the lowest action on a tie); with ``uniform`` (a number in [0, 1) per pair) a
    draw from the row's softmax by an exponential race: pair ``i`` finishes at time
    ``-log(uniform[i]) / exp(logits[i] - top)`` and the first to finish wins, with probability
    proportional to ``exp(logits[i])`` (the Gumbel-max trick in another form). Segment reductions
    in numpy, a fraction of the cost of torch's scatters. ``ValueError`` for a row without a pair."""
    pairs = len(logits)
    row_change = np.ones(pairs + 1, bool)  # True where a row's pairs start, and past the last pair
    np.not_equal(rows[1:], rows[:-1], out=row_change[1:-1])
    bounds = np.flatnonzero(row_change)
    starts = bounds[:-1]
    if not pairs or len(starts) != n:
        raise ValueError(f"mask row {np.setdiff1d(np.arange(n), rows)[0]} has no legal action")
    lengths = bounds[1:] - starts
    top = np.maximum.reduceat(logits, starts)
    top_of_pair = np.repeat(top, lengths)
    weight = np.exp(logits - top_of_pair)
    if uniform is None:
        score, best_of_pair = logits, top_of_pair
    else:
        with np.errstate(divide="ignore"):  # a uniform of 0 or a weight of 0: -inf, never drawn
            score = np.log(uniform) / weight  # minus the finishing time
        best_of_pair = np.repeat(np.maximum.reduceat(score, starts), lengths)
    first = np.minimum.reduceat(np.where(score == best_of_pair, np.arange(pairs), pairs), starts)
    segment_rows = rows[starts]
    actions = np.empty(n, np.int64)
    actions[segment_rows] = cols[first]
    logp = np.empty(n, np.float32)
    logp[segment_rows] = logits[first] - top - np.log(np.add.reduceat(weight, starts))
    return actions, logp


def legal_bools(mask: torch.Tensor) -> np.ndarray:
    """A (B, A) mask of 0 and 1 (or False and True) as a numpy bool matrix: a view of a one-byte
    mask (the envs' int8, the rollout's bool), else a comparison with 0."""
    legal = mask.numpy()
    return legal.view(bool) if legal.dtype.itemsize == 1 else legal != 0


def symlog(x: torch.Tensor) -> torch.Tensor:
    """``sign(x) * log(1 + |x|)``: ``log1p(x)`` for x >= 0, finite and odd for every finite x."""
    return torch.log1p(torch.abs(x)).copysign_(x)


def _layer(layer: nn.Module, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Module:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class PolicyNet(nn.Module):
    """Actor-critic: a trunk, a policy head (one logit per action) and a value head.

    The trunk is an MLP over the observation vector. When ``board_shape = (C, H, W)`` is given (a
    game exposing board planes, e.g. Ginny-O's ``OBS_BOARD_SHAPE``), the ``C*H*W`` entries from
    ``board_offset`` are read as planes by a small conv net whose features join the rest of the
    observation before the MLP.

    ``obs_log1p``: the observation enters as :func:`symlog` (observations hold raw counts, e.g. I
    Doubt It's plays left before the cap, up to 1,000, and signed totals, e.g. Tongits' chips;
    binary entries stay in [0, 0.69]). The flag keeps its old name: checkpoints written when the
    transform was ``log1p`` load unchanged, and symlog equals ``log1p`` on the non-negative
    observations they were trained on.

    ``head``: ``"flat"`` (default; checkpoints without the key) is one linear logit per action,
    (last hidden width) x ``num_actions`` weights. ``"factored"`` (Ginny-O, issue 17) scores the
    ids of ``action_grid = (start, pieces, squares)`` (the game's ``ACTION_GRID``: id = start +
    squares x piece + square, a square being a board square in reading order) as

        logit(piece p at square q) = u_p(x) + <e_p + s(x), k_q>,   k_q = W f_q + b_q

    with ``x`` the trunk's features, ``u`` and ``s`` linear in ``x``, ``e_p`` a learned embedding of
    the piece, ``f_q`` the conv feature map at square q, ``b_q`` a learned embedding of the square
    (all of size ``factor_dim``); ``policy_head`` scores the other ids (draw, pass, ...) one logit
    each. The distribution is still the masked softmax over all action ids: only the logits are
    computed in factored form, with far fewer weights.

    ``prior``: an agent spec (``"heuristic"``, the game's rule-based agent) whose chosen action gets
    a learned logit bonus ``prior_logit`` (initially ``prior_weight``) on top of the head's logit: a
    residual policy (Silver et al. 2018, arXiv:1812.06298). The network's input is then the
    observation followed by one entry, the prior's action id (:func:`with_prior`), except for
    :meth:`value`, which reads the observation alone. With the head's small initial logits the
    untrained policy is the rule-based agent (greedy: exactly; sampled: it deviates with probability
    about (legal - 1) / e^prior_weight), and PPO learns where to leave it.

    ``prior_candidates`` K > 0: the input ends with the prior's K best legal actions instead (its
    ``ranked_actions``, its choice first, padded with -1), the bonus goes to the first, and the
    policy may play only those K (the others get the logit -1e9, as masked actions): exploration,
    and what PPO can learn, stay among the moves the rule-based agent ranks highest.

    ``name`` (not saved) says which policy this is in error messages, e.g. the checkpoint path.
    """

    def __init__(self, obs_size: int, num_actions: int, hidden: tuple[int, ...] = (256, 256),
                 board_shape: tuple[int, int, int] | None = None, board_offset: int = 0,
                 conv_channels: int = 32, obs_log1p: bool = False, head: str = "flat",
                 action_grid: tuple[int, int, int] | None = None, factor_dim: int = 32,
                 prior: str | None = None, prior_weight: float = 5.0, prior_candidates: int = 0):
        super().__init__()
        if prior_candidates < 0 or (prior_candidates and not prior):
            raise ValueError(f"prior_candidates must be 0, or >= 1 with a prior; got {prior_candidates} "
                             f"with prior {prior!r}")
        self.config = {"obs_size": int(obs_size), "num_actions": int(num_actions),
                       "hidden": [int(h) for h in hidden],
                       "board_shape": None if board_shape is None else [int(x) for x in board_shape],
                       "board_offset": int(board_offset), "conv_channels": int(conv_channels),
                       "obs_log1p": bool(obs_log1p), "head": head,
                       "action_grid": (None if head != "factored" or action_grid is None  # the flat head has none
                                       else [int(x) for x in action_grid]),
                       "factor_dim": int(factor_dim), "prior": prior or None,
                       "prior_candidates": int(prior_candidates)}
        self.prior = prior or None
        self.prior_candidates = int(prior_candidates)
        self.prior_width = 0 if not self.prior else max(1, self.prior_candidates)
        """input entries after the observation: the prior's action ids"""
        if self.prior:
            self.prior_logit = nn.Parameter(torch.tensor(float(prior_weight)))
        self.obs_log1p = bool(obs_log1p)
        self.name = "untrained policy"
        self.board_shape = self.config["board_shape"]
        flat = obs_size
        if self.board_shape is not None:
            c, h, w = self.board_shape
            self.board_slice = slice(board_offset, board_offset + c * h * w)
            self.conv = nn.Sequential(
                _layer(nn.Conv2d(c, conv_channels, 3, padding=1)), nn.ReLU(),
                _layer(nn.Conv2d(conv_channels, conv_channels, 3, padding=1)), nn.ReLU())
            self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(4), nn.Flatten())
            flat = obs_size - c * h * w + conv_channels * 16
        layers: list[nn.Module] = []
        for width in hidden:
            layers += [_layer(nn.Linear(flat, width)), nn.Tanh()]
            flat = width
        self.trunk = nn.Sequential(*layers)
        self.grid = None
        """(start, stop, squares) of the factored ids; None for the flat head"""
        if head == "factored":
            start, pieces, squares = self._check_grid(num_actions, action_grid)
            self.grid = (start, start + pieces * squares, squares)
            self.policy_head = _layer(nn.Linear(flat, num_actions - pieces * squares), std=0.01)
            self.piece_logit = _layer(nn.Linear(flat, pieces), std=0.01)
            self.piece_embedding = nn.Parameter(torch.randn(pieces, factor_dim))
            self.state_query = _layer(nn.Linear(flat, factor_dim), std=1.0)
            self.square_key = _layer(nn.Linear(conv_channels, factor_dim), std=0.01)
            self.square_embedding = nn.Parameter(torch.zeros(squares, factor_dim))
        elif head == "flat":
            self.policy_head = _layer(nn.Linear(flat, num_actions), std=0.01)
        else:
            raise ValueError(f"policy head must be 'flat' or 'factored', got {head!r}")
        self.value_head = _layer(nn.Linear(flat, 1), std=1.0)
        self._input_rows: torch.Tensor | None = None
        """the first layer's weight transposed (a row per observation entry), for :meth:`sparse_features`"""
        self._input_key: tuple[int, int] | None = None
        """(storage address, version) of the weight ``_input_rows`` was made from"""

    def __getstate__(self) -> dict:
        """The module's state without the cache of :meth:`sparse_features`."""
        return {**self.__dict__, "_input_rows": None, "_input_key": None}

    def __setstate__(self, state: dict) -> None:
        super().__setstate__({"_input_rows": None, "_input_key": None, **state})

    def _check_grid(self, num_actions: int, action_grid) -> tuple[int, int, int]:
        """``action_grid`` as (start, pieces, squares); ``ValueError`` unless the network reads board
        planes with one square per grid column and the grid lies within the actions."""
        if action_grid is None or self.board_shape is None:
            raise ValueError("the factored policy head needs the game's action grid (ACTION_GRID) and its "
                             "board planes (OBS_BOARD_SHAPE)")
        start, pieces, squares = (int(v) for v in action_grid)
        _, height, width = self.board_shape
        if squares != height * width or pieces < 1 or start < 0 or start + pieces * squares > num_actions:
            raise ValueError(f"action grid {list(action_grid)} does not fit {num_actions} actions and a "
                             f"{height}x{width} board")
        return start, pieces, squares

    def encode(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(the trunk's features, the conv feature map of the board planes (B, C, H, W) or None
        without board planes)."""
        if self.obs_log1p:
            obs = symlog(obs)
        if self.board_shape is None:
            return self.trunk(obs), None
        board_map = self.conv(obs[:, self.board_slice].reshape(-1, *self.board_shape))
        rest = torch.cat([obs[:, :self.board_slice.start], obs[:, self.board_slice.stop:]], dim=1)
        return self.trunk(torch.cat([self.pool(board_map), rest], dim=1)), board_map

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        return self.encode(obs)[0]

    def action_logits(self, x: torch.Tensor, board_map: torch.Tensor | None,
                      ids: torch.Tensor | None = None) -> torch.Tensor:
        """The policy head: logits (B, len(ids)) of the action ``ids`` (ascending; every action
        when None) from :meth:`encode`'s output; the factored head computes only those asked for."""
        head = self.policy_head
        if self.grid is None:
            return head(x) if ids is None else torch.addmm(head.bias[ids], x, head.weight.index_select(0, ids).t())
        start, stop, squares = self.grid
        keys = self.square_key(board_map.flatten(2).transpose(1, 2)) + self.square_embedding  # (B, squares, d)
        square_logit = torch.bmm(keys, self.state_query(x).unsqueeze(2)).squeeze(2)  # <s(x), k_q>
        piece_logit = self.piece_logit(x)
        if ids is None:
            grid = (piece_logit.unsqueeze(2) + square_logit.unsqueeze(1)
                    + torch.matmul(self.piece_embedding, keys.transpose(1, 2)))  # (B, pieces, squares)
            other = head(x)
            return torch.cat([other[:, :start], grid.flatten(1), other[:, start:]], dim=1)
        first, last = torch.searchsorted(ids, torch.tensor([start, stop])).tolist()
        cell = ids[first:last] - start
        piece, square = cell // squares, cell % squares
        grid = (piece_logit[:, piece] + square_logit[:, square]
                + (keys[:, square] * self.piece_embedding[piece]).sum(2))
        other = torch.cat([ids[:first], ids[last:] - (stop - start)])
        other_logit = torch.addmm(head.bias[other], x, head.weight.index_select(0, other).t())
        return torch.cat([other_logit[:, :first], grid, other_logit[:, first:]], dim=1)

    def sparse_features(self, obs: torch.Tensor) -> torch.Tensor:
        """:meth:`features` for acting (no gradient), equal up to float rounding: the first layer
        reads only the observation entries that are nonzero somewhere in the batch (a fifth to a
        third of them in 64 games: card bits and counts are mostly 0, and symlog keeps 0 at 0),
        from its weight kept transposed until the weight changes. Networks with board planes or
        without a hidden layer, observations no longer than the first layer is wide (I Doubt It's
        190 entries: finding the used ones costs about what reading only them saves) and batches
        using most entries use :meth:`features`."""
        if self.board_shape is not None or not len(self.trunk) or obs.shape[1] <= self.trunk[0].out_features:
            return self.features(obs)
        weight = self.trunk[0].weight
        key = (weight.data_ptr(), weight._version)
        if self._input_key != key:
            self._input_rows, self._input_key = weight.detach().t().contiguous(), key
        used = torch.from_numpy(np.flatnonzero(obs.numpy().any(0)))  # (numpy's any: the cheapest reduction here)
        if 2 * len(used) > obs.shape[1]:  # mostly used: dense is faster
            return self.features(obs)
        inputs = obs.index_select(1, used)
        if self.obs_log1p:
            inputs = symlog(inputs)
        h = torch.addmm(self.trunk[0].bias, inputs, self._input_rows.index_select(0, used))
        for layer in itertools.islice(self.trunk, 1, None):  # (slicing the Sequential builds a module)
            h = layer(h)
        return h

    def split_prior(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(observation, the prior's action ids (B, prior_width) or None) of the network's ``inputs``."""
        if not self.prior:
            return inputs, None
        return inputs[:, :-self.prior_width], inputs[:, -self.prior_width:].long()

    def candidate_columns(self, prior: torch.Tensor) -> torch.Tensor:
        """The prior's candidate ids (B, K) with the padding (-1) replaced by the first candidate."""
        return torch.where(prior >= 0, prior, prior[:, :1])

    def forward(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, value) before masking; ``ValueError`` if a logit is not finite."""
        obs, prior = self.split_prior(inputs)
        x, board_map = self.encode(obs)
        logits = self.action_logits(x, board_map)
        if prior is not None:
            logits = logits.scatter_add(1, prior[:, :1], self.prior_logit.expand(len(prior), 1))
            if self.prior_candidates:
                keep = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, self.candidate_columns(prior), True)
                logits = torch.where(keep, logits, torch.full_like(logits, MASK_FILL))
        if not torch.isfinite(logits).all():
            raise ValueError(self.nonfinite_message(obs))
        return logits, self.value_head(x).squeeze(-1)

    def nonfinite_message(self, obs: torch.Tensor) -> str:
        """One line: which policy gave non-finite logits, and the first observation entry that is
        not finite (or the parameters, when every entry is)."""
        bad = (~torch.isfinite(obs)).nonzero()
        if len(bad):
            row, index = (int(v) for v in bad[0])
            cause = f"observation index {index} is {float(obs[row, index])} (batch row {row})"
        else:
            cause = "every observation entry is finite, so the network's parameters are not"
        return f"non-finite logits from {self.name}: {cause}"

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The value head on observations (without a prior's action: the value does not read it)."""
        return self.value_head(self.features(obs)).squeeze(-1)

    def legal_logits(self, x: torch.Tensor, board_map: torch.Tensor | None,
                     mask: torch.Tensor) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
        """(rows, actions, logits) of every legal pair of ``mask`` (B, A), a row's pairs together in
        ascending action order (rows and actions as numpy int64), from :meth:`encode`'s output.
        The head is computed for the actions legal somewhere in the batch; when those are most of
        them (I Doubt It: its 2,381 actions nearly all legal somewhere in 64 games), the rows with
        the fewest legal actions (I Doubt It's doubt decisions: doubt or pass) take theirs and the
        other rows the whole head, as many rows as make the head smallest (bounding the union of
        their actions by their sum and by ``A``). The mask is searched in numpy (its nonzero
        entries a fifth of the time of torch's ``nonzero``)."""
        legal = legal_bools(mask)
        used = np.flatnonzero(legal.any(0))
        n, num_actions = legal.shape
        if 2 * len(used) <= num_actions:
            return self._head_pairs(x, board_map, legal, used)
        counts = legal.sum(1, dtype=np.int32)
        order = counts.argsort(kind="stable")
        size = np.arange(1, n + 1)
        cost = (size + 1) * np.minimum(counts[order].cumsum(), num_actions) + (n - size) * num_actions
        few = int(cost.argmin()) + 1
        if cost[few - 1] >= n * num_actions:
            return self._head_pairs(x, board_map, legal)
        parts = []
        for group, sparse in ((order[:few], True), (order[few:], False)):
            group_legal = legal[group]
            group_rows = torch.from_numpy(group)
            group_map = None if board_map is None else board_map.index_select(0, group_rows)
            ids = np.flatnonzero(group_legal.any(0)) if sparse else None
            rows, cols, logits = self._head_pairs(x.index_select(0, group_rows), group_map, group_legal, ids)
            parts.append((group[rows], cols, logits))
        rows, cols, logits = zip(*parts)
        return np.concatenate(rows), np.concatenate(cols), torch.cat(logits)

    def _head_pairs(self, x: torch.Tensor, board_map: torch.Tensor | None, legal: np.ndarray,
                    ids: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, torch.Tensor]:
        """:meth:`legal_logits` of the bool matrix ``legal`` with the head computed for the actions
        ``ids`` (every legal one among them), or the whole head when None; the legal logits are
        taken from the flattened head by their flat positions."""
        if ids is None:
            head, columns = self.action_logits(x, board_map), legal
        else:
            head, columns = self.action_logits(x, board_map, torch.from_numpy(ids)), legal[:, ids]
        flat = np.flatnonzero(columns)
        rows = flat // columns.shape[1]
        at = flat - rows * columns.shape[1]
        logits = head.reshape(-1).index_select(0, torch.from_numpy(flat))
        return rows, at if ids is None else ids[at], logits

    def choose(self, inputs: torch.Tensor, mask: torch.Tensor, greedy: bool = False,
               generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(actions, their log-probabilities, values) for ``inputs`` (B, obs_size, plus the prior's
        action with a ``prior``) under ``mask`` (B, A): the fast path of acting (the
        log-probabilities carry no gradient). The policy head is computed only where
        :meth:`legal_logits` needs it (the actions legal
        somewhere in the batch: a few hundred of up to 23,509), and :func:`pick_per_row` draws from
        the softmax of the legal logits, the distribution of :func:`masked_distribution` (whose
        masked actions have probability 0), or with ``greedy`` takes the arg-max (the lowest action
        on a tie). ``ValueError`` if a legal logit is not finite or a row has no legal action."""
        obs, prior = self.split_prior(inputs)
        x, board_map = self.encode(obs) if self.board_shape is not None else (self.sparse_features(obs), None)
        rows, cols, legal = self.legal_logits(x, board_map, mask)
        if prior is not None:
            prior_of_pair = prior.numpy()[rows]
            legal = legal + self.prior_logit * torch.from_numpy(cols == prior_of_pair[:, 0])
            if self.prior_candidates:
                candidate = (cols[:, None] == prior_of_pair).any(1)
                legal = torch.where(torch.from_numpy(candidate), legal, torch.full_like(legal, MASK_FILL))
        if not torch.isfinite(legal.sum()) and not torch.isfinite(legal).all():  # (the sum: one cheap pass)
            raise ValueError(self.nonfinite_message(obs))
        uniform = None if greedy else torch.rand(legal.shape, generator=generator).numpy()
        actions, logp = pick_per_row(rows, cols, legal.detach().numpy(), mask.shape[0], uniform)
        return torch.from_numpy(actions), torch.from_numpy(logp), self.value_head(x).squeeze(-1)

    @torch.inference_mode()
    def act(self, obs: np.ndarray, mask: np.ndarray, greedy: bool = False,
            generator: torch.Generator | None = None) -> np.ndarray:
        """Batched actions (numpy in, numpy out) for ``obs`` (the network's inputs) under ``mask`` (B, A),
        see :meth:`choose`."""
        return self.choose(torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(mask), greedy,
                           generator)[0].numpy()


def with_prior(obs: np.ndarray, prior_actions) -> np.ndarray:
    """The inputs of a network with a ``prior``: each observation row followed by its prior's action
    id, or its row of candidate ids (``prior_actions`` (B,) or (B, K), as :func:`prior_ids` gives)."""
    ids = np.asarray(prior_actions, np.float32).reshape(len(obs), -1)
    return np.concatenate([obs, ids], axis=1, dtype=np.float32)


def prior_ids(agent: Agent, observation: np.ndarray, action_mask: np.ndarray, view: dict,
              candidates: int = 0) -> list[int]:
    """A residual policy's input entries after the observation, for one decision of its prior
    ``agent``: the agent's action, or with ``candidates`` K (the network's ``prior_candidates``) its
    K best legal actions, best first, padded with -1."""
    if not candidates:
        return [agent.act(observation, action_mask.copy(), view)]
    best = [int(a) for a in agent.ranked_actions(observation, action_mask.copy(), view)[:candidates]]
    return best + [-1] * (candidates - len(best))
