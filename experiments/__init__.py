"""Tools around the environments: tournaments (``rummy_env.experiments.tournament``), replays
(``rummy_env.experiments.replay``), the demo (``rummy_env.experiments.demo``), crash-safe output (``rummy_env.experiments.io``)
and the ``rummy-env`` command line (``rummy_env.experiments.cli``). Importing this package imports no torch."""
