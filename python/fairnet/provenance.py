"""What made a result: written beside every run's data (``provenance.json``) and into every
paper entry's ``results.json`` (under ``provenance``).

Everything that varies from one run of the same scenario and seed to the next (the start time,
the wall-clock time, the command line, the machine) lives here, so that the data files
(Parquet tables, ``summary.json``, ``scenario.json``) repeat bit for bit. Fields:

- ``fairnet``: the package version; ``git``: ``{"commit", "dirty"}`` when fairnet runs from a
  git checkout (found from the package's own location, never the working directory; absent
  otherwise); ``rustc``: the ``rustc --version`` that built the extension;
- ``python``, ``platform``: the interpreter version and ``platform.platform()``;
- ``command``: the command line; ``started``: the wall-clock start (UTC, ISO 8601);
  ``wall_seconds`` and, for a run, ``events_per_second``;
- for a run: ``scenario_sha256`` (:func:`scenario_hash` of ``scenario.json``) and ``seed``.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import platform
import shlex
import subprocess
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

#: The file of a run directory that holds its provenance.
PROVENANCE_FILE = "provenance.json"

#: The fields that say which fairnet made a result (``fairnet compare`` names a difference).
VERSION_FIELDS = ("fairnet", "git", "rustc")


def scenario_hash(scenario: Mapping[str, Any]) -> str:
    """SHA-256 of the scenario's canonical JSON (keys sorted, no spaces, ASCII)."""
    text = json.dumps(scenario, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def fairnet_version() -> str:
    """The installed package's version (the extension's if the package metadata is absent)."""
    try:
        return metadata.version("fairnet")
    except metadata.PackageNotFoundError:
        from fairnet import _core

        return str(_core.__version__)


@functools.cache
def git_state(package_dir: Path | None = None) -> dict[str, Any] | None:
    """``{"commit": sha, "dirty": bool}`` of the git checkout fairnet runs from (the checkout
    whose ``python/fairnet`` is this package), or None outside one (or without git). Dirty:
    a tracked file differs from the commit."""
    pkg = (package_dir or Path(__file__).resolve().parent).resolve()

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(pkg), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    # The package must be this checkout's own python/fairnet, not an install that happens
    # to sit inside some other repository (a virtualenv in a user's project).
    if not top or (Path(top) / "python" / "fairnet").resolve() != pkg:
        return None
    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    if commit is None or status is None:
        return None
    return {"commit": commit, "dirty": bool(status)}


def rustc_version() -> str:
    """The ``rustc --version`` that built the extension (recorded at build time)."""
    from fairnet import _core

    return str(getattr(_core, "RUSTC_VERSION", "unknown"))


def command_line(argv: list[str] | None = None) -> str:
    """The command line of this process; the ``fairnet`` script (or ``python -m
    fairnet.cli``) is named ``fairnet``, wherever it is installed."""
    argv = list(sys.argv if argv is None else argv)
    cli = Path(__file__).resolve().parent / "cli.py"
    if argv and (Path(argv[0]).name == "fairnet" or Path(argv[0]).resolve() == cli):
        argv[0] = "fairnet"
    return shlex.join(argv)


def now() -> str:
    """The current wall-clock time, UTC, ISO 8601 to the second."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def provenance(started: str, **extra: Any) -> dict[str, Any]:
    """What made a result started at ``started`` (:func:`now`); ``extra`` fields follow."""
    doc: dict[str, Any] = {"fairnet": fairnet_version()}
    git = git_state()
    if git is not None:
        doc["git"] = git
    doc |= {
        "rustc": rustc_version(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "command": command_line(),
        "started": started,
    }
    return doc | extra


def version_of(prov: Mapping[str, Any]) -> str:
    """One line naming the fairnet that made a result: version, commit (``+dirty``)."""
    git = prov.get("git")
    commit = f" at {git['commit'][:12]}{' (dirty)' if git.get('dirty') else ''}" if git else ""
    return f"fairnet {prov.get('fairnet', '?')}{commit}"


def footer_html(prov: Mapping[str, Any]) -> str:
    """A small HTML footer with the provenance, for the reports."""
    import html

    parts = [version_of(prov), str(prov.get("rustc", "rustc ?"))]
    parts += [f"Python {prov.get('python', '?')}", str(prov.get("platform", "?"))]
    if "scenario_sha256" in prov:
        parts.append(f"scenario sha256 {prov['scenario_sha256'][:16]}")
    if prov.get("seed") is not None:
        parts.append(f"seed {prov['seed']}")
    parts.append(f"started {prov.get('started', '?')}")
    line = " · ".join(html.escape(str(p)) for p in parts)
    command = html.escape(str(prov.get("command", "")))
    return (
        '<footer style="margin-top:3em;font-size:80%;color:#666">'
        f"{line}<br>command: <code>{command}</code></footer>"
    )
