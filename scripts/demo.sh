#!/usr/bin/env bash
# Sets up fairnet and runs the main job:
#  1. the exact weighted max-min allocation of 20,000 weighted flows on a k=8 fat-tree, checked
#     independently (results/demo/), and
#  2. the default scenario, weighted web-search flows on a k=4 fat-tree in the fluid engine, with
#     its Parquet table, summary, plots and HTML report (results/default/report.html).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/fairnet demo -o results/demo
.venv/bin/fairnet run scenarios/default.toml -o results/default "$@"
