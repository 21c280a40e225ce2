#!/usr/bin/env bash
# Sets up fairnet and runs the main job:
#  1. the exact weighted max-min allocation of 20,000 weighted flows on a k=8 fat-tree, checked
#     independently (results/demo/), and
#  2. the default scenario, weighted web-search flows on a k=4 fat-tree in the fluid engine, with
#     its Parquet table, summary, plots and HTML report (results/default/report.html).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/fairnet ]; then
    echo "demo: checking the installation in .venv (seconds unless the Rust core changed)..."
else
    echo "demo: first run: creating .venv, installing the Python packages and compiling the Rust"
    echo "      core in release mode; this takes about 3 to 5 minutes and prints nothing meanwhile..."
fi
start=$SECONDS
bash scripts/setup.sh
echo "demo: set up in $((SECONDS - start)) s"
echo "demo: 1/2 solving the weighted max-min allocation of 20,000 flows on a k=8 fat-tree..."
.venv/bin/fairnet demo -o results/demo
echo "demo: 2/2 running scenarios/default.toml (5,000 web-search flows, fluid engine)..."
.venv/bin/fairnet run scenarios/default.toml -o results/default "$@"
echo "demo: done; open results/default/report.html in a browser"
