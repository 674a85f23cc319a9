"""Tools around the environments: tournaments (``experiments.tournament``), replays
(``experiments.replay``), the demo (``experiments.demo``), crash-safe output (``experiments.io``)
and the ``rummy-env`` command line (``experiments.cli``). Importing this package imports no torch."""
