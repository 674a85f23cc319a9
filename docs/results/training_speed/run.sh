#!/bin/bash
# Training speed with 1 or 2 rollout workers (--rollout-workers) and 1 or 2 torch threads (--torch-threads),
# three recipes of docs/training.md, each alone on the 2-core machine, one after another.
set -e  # run from anywhere: bash docs/results/training_speed/run.sh
cd "$(dirname "$0")/../../.."
CR="--game contract_rummy --prior heuristic --prior-candidates 3 --prior-weight 3 --gamma 0.99 --gae-lambda 1.0 --return-per-deal --learner-reward deal_win_loss --hidden 256,256 --num-envs 64 --num-steps 64 --learning-rate 2.5e-4 --no-anneal-lr --ent-coef 0.001 --opponents heuristic --eval-every 0 --total-timesteps 49152"
RM="--game rummy --prior heuristic --opt reward_mode=zero_sum --gamma 0.99 --gae-lambda 1.0 --return-per-deal --hidden 256,256 --num-envs 64 --num-steps 128 --learning-rate 2.5e-4 --no-anneal-lr --ent-coef 0.001 --reward-scale 0.02 --opponents heuristic --eval-every 0 --total-timesteps 98304"
GO="--game ginny_o --hidden 256,64 --conv-channels 16 --head factored --num-envs 16 --num-steps 64 --update-epochs 2 --learning-rate 1e-4 --no-anneal-lr --ent-coef 0.001 --opponents heuristic:3,pool:1 --eval-every 0 --total-timesteps 4096"
for recipe in CR RM GO; do
  for wt in "1 1" "2 1" "1 2" "2 2"; do set -- $wt
    .venv/bin/rummy-env train ${!recipe} --seed 1 --torch-threads $2 --rollout-workers $1 --run-dir runs/training_speed/${recipe}_w$1_t$2 --no-resume --no-progress
    mkdir -p docs/results/training_speed/${recipe}_w$1_t$2
    cp runs/training_speed/${recipe}_w$1_t$2/{summary.json,train.csv} docs/results/training_speed/${recipe}_w$1_t$2/
  done
done
