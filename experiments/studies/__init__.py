"""One-off studies: the scripts that measured a claim of docs/results once (each docstring names its
results file). They run from a repository checkout, ``python -m rummy_env.experiments.studies.NAME``
in the editable install, and are left out of the wheel (pyproject ``packages``): ``rummy-env`` and
the public Python API need none of them."""
