"""Agent spec strings (``family[:N][:key=value...]``, :mod:`rummy_env.agents.registry`) -> the keyword
arguments of the family's agent. Every parser names its own family in its errors; the agents check
the values' ranges. ``ValueError`` with a one-line message for anything malformed."""
from __future__ import annotations

import re

LLM_KEYS = ("model", "base_url", "temperature", "retries", "timeout", "fallback")
ISMCTS_KINDS = {"seconds": float, "rollout": str, "c": float, "bias": float, "depth": int, "value": str,
                "claims": str, "moves": str, "candidates": int, "credit": str, "tree": int, "gate": float,
                "baseline": str}
"""The keys of an ``ismcts`` spec and the kind of each value."""
PIMC_KINDS = {"screen": int, "candidates": int, "z": float, "points": float, "depth": int, "value": str,
              "base": str, "claims": str, "moves": str}
"""The keys of a ``pimc`` spec and the kind of each value (``depth`` may also be ``turn``)."""


def spec_number(spec: str, text: str, kind: type, hint: str):
    """``kind(text)`` (``int`` or ``float``), or a ``ValueError`` naming the spec, the part that is not
    a number and ``hint`` (the family's numeric parts, e.g. ``pimc:W test worlds``)."""
    pattern = r"[0-9]+" if kind is int else r"[0-9]*\.?[0-9]+(e-?[0-9]+)?"
    if not re.fullmatch(pattern, text):
        raise ValueError(f"agent spec {spec!r}: {text!r} is not a{'n integer' if kind is int else ' number'} "
                         f"({hint})")
    return kind(text)


def family_parts(spec: str, family: str) -> list[str]:
    """The ``:``-separated parts of ``spec`` after its family name; ``ValueError`` if it is not
    ``family``'s spec."""
    parts = spec.split(":")
    if parts[0] != family:
        raise ValueError(f"not a{'n' if family[0] in 'aeiou' else ''} {family} spec: {spec!r}")
    return parts[1:]


def keyword_parts(spec: str, family: str, count: str, kinds: dict[str, type], hint: str,
                  words: dict[str, str] | None = None) -> dict:
    """The parts of a ``family[:N][:key=value...]`` spec as keyword arguments: the bare number ``N``
    as ``count``, each ``key=value`` as the kind ``kinds[key]`` says (``words``: a key that also takes
    one word, e.g. pimc's ``depth=turn``); ``ValueError`` naming the spec for an unknown key or a
    value that is not a number (``hint``: the family's numeric parts)."""
    words = words or {}
    kwargs: dict = {}
    for part in family_parts(spec, family):
        key, sep, value = part.partition("=")
        if not sep:
            kwargs[count] = spec_number(spec, part, int, hint)
        elif kinds.get(key) is str or words.get(key) == value:
            kwargs[key] = value
        elif key in kinds:
            kwargs[key] = spec_number(spec, value, kinds[key], hint)
        else:
            raise ValueError(f"agent spec {spec!r}: unknown key {key!r} (keys: {', '.join(kinds)})")
    return kwargs


def parse_ismcts_spec(spec: str) -> dict:
    """Keyword arguments of :class:`rummy_env.agents.ismcts.ISMCTSAgent` from a spec
    ``ismcts[:N][:key=value...]``: ``N`` iterations per decision, keys ``seconds`` (a time budget per
    decision; without ``N`` it replaces the iteration budget), ``rollout`` (``random`` or
    ``heuristic``), ``c`` (the exploration constant), ``bias`` (the rule-based agent's progressive
    bias), ``depth`` and ``value`` (truncated rollouts), ``claims`` (I Doubt It's belief), ``moves``
    and ``candidates`` (the rule-based agent's whole moves at the root), ``credit`` (``return`` or
    ``win``), ``tree`` (the tree's depth in the seat's decisions), ``gate`` (standard errors a
    departure from the rule-based move needs) and ``baseline`` (``rule``: paired returns)."""
    kwargs = keyword_parts(spec, "ismcts", "iterations", ISMCTS_KINDS, "ismcts:N iterations, seconds=S, c=C")
    if "c" in kwargs:
        kwargs["exploration"] = kwargs.pop("c")
    if "seconds" in kwargs:
        kwargs.setdefault("iterations", None)
    return kwargs


def parse_pimc_spec(spec: str) -> dict:
    """Keyword arguments of :class:`rummy_env.agents.pimc.PIMCAgent` from
    ``pimc[:W][:screen=S][:candidates=K][:z=Z][:points=P][:value=V][:depth=D|turn]...`` (``W`` test
    worlds per decision)."""
    return keyword_parts(spec, "pimc", "worlds", PIMC_KINDS, "pimc:W test worlds, screen=S, candidates=K, z=Z, points=P, "
                         "depth=D", words={"depth": "turn"})


def parse_llm_spec(spec: str) -> dict:
    """Keyword arguments of :class:`rummy_env.agents.llm.LLMAgent` from ``llm:model=NAME[:key=value...]``.
    A part that does not begin with a known ``key=`` belongs to the value before it, so
    ``base_url=http://127.0.0.1:8000/v1`` and ``model=llama3:8b`` keep their colons."""
    if not spec.startswith("llm:"):
        raise ValueError(f"not an llm spec: {spec!r}; write llm:model=NAME[:base_url=URL]...")
    starts = [m.start() + 1 for m in re.finditer(rf":(?=(?:{'|'.join(LLM_KEYS)})=)", spec)]
    kwargs: dict = {}
    for begin, end in zip(starts, starts[1:] + [len(spec) + 1]):
        key, _, value = spec[begin:end - 1].partition("=")
        if key in kwargs:
            raise ValueError(f"agent spec {spec!r}: {key} given twice")
        kwargs[key] = value
    stray = spec[4:starts[0] - 1] if starts else spec[4:]
    if stray:
        raise ValueError(f"agent spec {spec!r}: {stray!r} is not key=value with a key among {', '.join(LLM_KEYS)}")
    unknown = [part.split("=")[0] for part in spec.split(":")[1:]
               if re.fullmatch(r"[A-Za-z_]+=.*", part) and part.split("=")[0] not in LLM_KEYS]
    if unknown:
        raise ValueError(f"agent spec {spec!r}: unknown key {unknown[0]!r} (keys: {', '.join(LLM_KEYS)})")
    if not kwargs.get("model"):
        raise ValueError(f"agent spec {spec!r} needs model=NAME, e.g. llm:model=gpt-4o-mini")
    for key, kind in (("temperature", float), ("timeout", float), ("retries", int)):
        if key in kwargs:
            kwargs[key] = llm_number(spec, key, kwargs[key], kind)
    return kwargs


def llm_number(spec: str, key: str, text: str, kind: type):
    """``kind(text)``, or a ``ValueError`` naming the spec and the llm key."""
    pattern = r"[0-9]+" if kind is int else r"[0-9]*\.?[0-9]+"
    if not re.fullmatch(pattern, text):
        raise ValueError(f"agent spec {spec!r}: {key} must be a {'whole ' if kind is int else ''}number, got {text!r}")
    return kind(text)
