#!/usr/bin/env bash
# Sets up fairnet and runs the main job: a weighted max-min allocation on a k=8 fat-tree,
# checked independently, with a summary printed and results written to results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/fairnet demo -o results/demo "$@"
