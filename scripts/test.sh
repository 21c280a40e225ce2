#!/usr/bin/env bash
# Sets up fairnet and runs every check: formatting, lints, Rust tests, Python tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "== no merge-conflict markers"
if git grep -nE '^(<<<<<<<|>>>>>>>) ' -- . ':!target'; then
    echo "merge-conflict markers in the files above" >&2
    exit 1
fi
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== ruff"
.venv/bin/ruff check python tests
echo "== cargo test"
cargo test --workspace --release --quiet
echo "== pytest"
.venv/bin/python -m pytest -q tests
