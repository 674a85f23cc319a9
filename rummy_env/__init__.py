"""rummy_env: PettingZoo environments for the rummy family of card games."""
