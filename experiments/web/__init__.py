"""The web card table (``rummy-env serve``): a lobby, tables of the five games for people and bots,
and a replay viewer for ``games.jsonl``; needs the ``web`` extra (see :mod:`.server`)."""
