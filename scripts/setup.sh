#!/usr/bin/env bash
# Creates .venv (if missing) and installs fairnet into it with its Python dependencies; the Rust
# core is compiled by maturin in release mode. Safe to run again: rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo (the Rust toolchain) is required: https://rustup.rs" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet "maturin>=1.7,<2"
# Editable install: Python sources are used in place; the Rust extension is built now.
.venv/bin/python -m pip install --quiet -e ".[dev]"
