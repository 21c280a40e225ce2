"""``fairnet run`` and ``fairnet.run``: a scenario to Parquet tables, a summary, plots and a report.

Output directory layout:

- ``scenario.json`` — the resolved scenario (every default filled in, overrides applied):
  shipped size distributions by name, relative user files relative to this directory, so
  ``fairnet run OUTDIR`` reruns it (:func:`relocate`),
- ``flows.parquet`` — one row per flow: src, dst, size, weight, tag, start/end/fct/ideal (s),
  slowdown, and the FCT under the ideal weighted max-min allocation (``maxmin_fct_s``: the
  flow-level engine on the same flows and paths); the packet engine also the HPCC ns-3
  simulator's definitions (``ack_s``: the sender held the ACK of the last byte, ``fct_ack_s``,
  ``ideal_fct_ref_s``: its standalone FCT, ``slowdown_ref = fct_ack_s / ideal_fct_ref_s``;
  NaN for the other engines and for flows without ACKs) and ``retransmitted_bytes`` (payload
  bytes sent more than once: 0 means the flow lost nothing); the rounds engine adds ``rate_bps``
  and ``oracle_rate_bps``,
- ``summary.json`` — headline metrics: FCT slowdown percentiles by size bin, Jain's index of
  throughput against the max-min reference, simulated time, events, completeness; the rounds
  engine adds a ``rounds`` block (convergence rounds, N1/N2/N∞, the 6·N2 bound check) and
  ``warnings``, a packet run with Söze senders a ``soze`` block (Lemma 3.2's runtime check) and
  ``warnings``, an eBA run (packet or flow) an ``eba`` block (its VM-flows' distance from the
  oracle's allocation with guarantees, ``fairnet::systems::eba::oracle``); ``complete``:
  every flow finished; ``partial``: the run stopped before its end
  (``interrupted`` by Ctrl-C, or a ``failure``), so it is never counted as done;
  ``files``: the outputs this run wrote,
- ``provenance.json`` — what made the run and what varies from one run to the next
  (:mod:`fairnet.provenance`: versions, commit, command line, start, wall-clock time and
  events/s, the scenario's hash and seed); every other data file repeats bit for bit for the
  same scenario and seed,
- ``links.parquet`` — packet engine: per link (id, endpoints, capacity) the bytes sent,
  utilization, drops, ECN marks, largest and mean queue, PFC pauses sent and received and
  time paused (``pfc_pauses_sent``, ``pfc_pauses_received``, ``pfc_paused_s``),
- ``pfc.txt`` — lossless packet runs: every PFC frame as it took effect, in the HPCC ns-3
  simulator's format (``time_ns node node_type if_index type``, type 1 pause, 0 resume);
  ``summary.json``'s ``pfc``: pauses, paused links, the longest paused time,
- ``rates.parquet`` — when recorded (flow engine: ``engine.rate_interval``; packet engine:
  ``engine.record``): every active flow's rate at each sample time (``time_s``, ``flow``,
  ``rate_bps``: the flow engine's allocated rate, the packet engine's wire throughput over the
  interval; packet engine also ``send_rate_bps``: the congestion control's sending rate),
- ``queues.parquet`` — packet engine with ``engine.record.queues``: ``time_s``, ``link``,
  ``queue_bytes``, ``qdelay_s`` (the queue over the link's line rate); a model's queue outputs,
- ``qdisc_gauges.parquet`` — packet engine with ``engine.record``: what the ports' queueing
  disciplines publish of their own state at each sample (long format: ``time_s``, ``link``,
  ``gauge``, ``value``; e.g. MAY's ``nu``, ``fair_share``, ``bottlenecked``, ``entries``,
  ``memory_bits``; disciplines that publish nothing add no rows, and without rows there is no
  file),
- ``model.parquet``, ``model.png``/``.svg`` — model engine: ``time_s`` and every named output
  (:mod:`fairnet.model`); ``summary.json`` then has a ``model`` block,
- ``slowdown.png`` / ``slowdown.svg`` — slowdown by flow-size bin,
- ``report.html`` — a self-contained page (plots inlined) that opens offline,
- ``fct.txt`` — with ``--fct-txt``: the HPCC ns-3 simulator's FCT file (:mod:`fairnet.hpcc`),
  under fairnet's definition (the default) or the simulator's (``--fct-def ns3``); the
  summary's ``fct_txt_definition`` says which.

A directory holds one run's outputs: ``summary.json`` (written last) lists them under
``files``, and a new run into the same directory first removes the files the previous run's
summary lists (and only those: files fairnet did not write are never touched). A
``summary.json`` from before the list existed stands for :data:`RUN_FILES`.

Before anything runs, the scenario is checked beyond its schema: every number must be finite
(``workload.load: must be a finite number, got nan``), every file it names must exist
(``workload.path: no such file /path/tried``), and
the memory the run needs (:func:`check_memory`) must fit in what the machine has.
"""

from __future__ import annotations

import base64
import copy
import json
import math
import os
import tempfile
import tomllib
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fairnet import _core
from fairnet.errors import InputError
from fairnet.flowsim import CDF_FILES, cdf_path
from fairnet.provenance import PROVENANCE_FILE, footer_html, now, provenance, scenario_hash
from fairnet.report import pyplot, save_figure

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

#: Flow-size bins of the summary and plots (bytes): the HPCC/pFabric convention.
SIZE_BINS = [
    (0, 10_000, "<10KB"),
    (10_000, 100_000, "10KB-100KB"),
    (100_000, 1_000_000, "100KB-1MB"),
    (1_000_000, float("inf"), ">1MB"),
]


Overrides = Sequence[str] | Mapping[str, Any]

#: Every file a run may write into its directory (the manifest of a summary.json older than
#: its ``files`` list).
RUN_FILES = (
    "scenario.json",
    "flows.parquet",
    "rates.parquet",
    "links.parquet",
    "queues.parquet",
    "qdisc_gauges.parquet",
    "slowdown.png",
    "slowdown.svg",
    "report.html",
    "provenance.json",
    "fct.txt",
    "summary.json",
)

#: Recorded series larger than this get a warning before the run.
LARGE_RECORDS_BYTES = 1 << 30

Warn = Callable[[str], None]


def set_field(doc: dict[str, Any], key: str, value: Any) -> None:
    """Sets the dotted field ``key`` (e.g. ``workload.load``) of ``doc``, creating tables."""
    node = doc
    parts = key.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
        if not isinstance(node, dict):
            raise InputError(f"--set {key}: {p} is not a table")
    node[parts[-1]] = value


def _parse_override(item: str) -> tuple[str, Any]:
    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise InputError(f"--set: expected KEY.PATH=VALUE, got {item!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word is a string
    return key, value


def read_toml(path: Path) -> dict[str, Any]:
    """Reads a TOML file; a missing or malformed file is an :class:`InputError`."""
    try:
        return tomllib.loads(path.read_text())
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"{path}: invalid TOML: {e}") from None


def scenario_file(path: Path) -> Path:
    """The scenario file ``path`` names: itself, or a run directory's ``scenario.json``."""
    if path.is_dir():
        inner = path / "scenario.json"
        if not inner.is_file():
            raise InputError(f"{path}: a directory without scenario.json (not a run directory)")
        return inner
    return path


def read_scenario(path: Path) -> dict[str, Any]:
    """Reads a scenario file, TOML or JSON: by its extension (``.toml``, ``.json``), else by
    its content. A run directory stands for its ``scenario.json``. A missing or malformed
    file is an :class:`InputError`; one that is neither format names both."""
    path = scenario_file(path)
    try:
        text = path.read_text()
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        return read_toml(path)
    try:
        doc = json.loads(text)
    except ValueError as e:
        if suffix == ".json":
            raise InputError(f"{path}: invalid JSON: {e}") from None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as t:
            raise InputError(
                f"{path}: neither a TOML nor a JSON scenario (TOML: {t}; JSON: {e})"
            ) from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: a JSON scenario must be an object, got {type(doc).__name__}")
    return doc


def apply_overrides(doc: dict[str, Any], overrides: Overrides = ()) -> dict[str, Any]:
    """Returns a copy of ``doc`` with overrides applied: ``"key.path=value"`` strings (values in
    TOML syntax) or a mapping from dotted field path to value."""
    doc = copy.deepcopy(doc)
    items = (
        list(overrides.items())
        if isinstance(overrides, Mapping)
        else [_parse_override(o) for o in overrides]
    )
    for key, value in items:
        set_field(doc, key, value)
    return doc


def load_scenario(path: Path, overrides: Overrides = ()) -> dict[str, Any]:
    """Reads a scenario file (TOML or JSON, :func:`read_scenario`) and applies overrides (see
    :func:`apply_overrides`)."""
    return apply_overrides(read_scenario(path), overrides)


def prepare(
    scenario: str | Path | Mapping[str, Any], overrides: Overrides = ()
) -> tuple[dict[str, Any], Path]:
    """The scenario document to run (overrides applied) and the directory its relative file
    paths are resolved against (the scenario file's, or the working directory for a dict).
    Non-finite numbers and unknown size distributions are :class:`InputError`\\ s."""
    if isinstance(scenario, Mapping):
        doc, base_dir = apply_overrides(dict(scenario), overrides), Path.cwd()
    else:
        path = scenario_file(Path(scenario))
        doc, base_dir = load_scenario(path, overrides), path.resolve().parent
    check_finite(doc)
    check_files(doc, base_dir)
    return doc, base_dir


def check_finite(value: Any, path: str = "") -> None:
    """Every number of a scenario document must be finite: a NaN or infinity (TOML ``nan``,
    ``inf``; a Python float) is an :class:`InputError` naming its field."""
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{path or 'scenario'}: must be a finite number, got {value}")
    if isinstance(value, Mapping):
        for k, v in value.items():
            check_finite(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_finite(v, f"{path}[{i}]")


#: The fields naming a size distribution: a shipped one's name (:data:`CDF_FILES`) or a file.
CDF_FIELDS = ("workload.cdf", "workload.background.cdf")


def file_fields(doc: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], str]]:
    """The fields of a scenario document that name a file: (field path, the table holding it,
    its key), for those present: ``topology.path`` (a topology file), ``workload.cdf`` and
    ``workload.background.cdf`` (size distributions, :data:`CDF_FIELDS`) and
    ``workload.path`` (a flow file)."""
    found = []
    for name in ("topology.path", *CDF_FIELDS, "workload.path"):
        *tables, key = name.split(".")
        node: Any = doc
        for t in tables:
            node = node.get(t) if isinstance(node, Mapping) else None
        if isinstance(node, Mapping) and isinstance(node.get(key), str):
            found.append((name, node, key))
    return found


def check_files(doc: Mapping[str, Any], base_dir: Path) -> None:
    """Every file a scenario names must exist (relative paths from ``base_dir``, the scenario
    file's directory); the :class:`InputError` names the field and the path tried."""
    for name, node, key in file_fields(doc):
        value = node[key]
        if name in CDF_FIELDS and value in CDF_FILES:
            continue
        tried = base_dir / value
        if tried.is_file():
            continue
        if name in CDF_FIELDS:
            raise InputError(
                f"{name}: no distribution named {value!r} and no such file {tried}; "
                f"shipped distributions: {', '.join(CDF_FILES)}"
            )
        raise InputError(f"{name}: no such file {tried}")


def _engine_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The document handed to the engine: a shipped distribution's name becomes its installed
    file (the scenario itself keeps the name, so that it runs on any machine)."""
    doc = copy.deepcopy(dict(doc))
    for name, node, key in file_fields(doc):
        if name in CDF_FIELDS and node[key] in CDF_FILES:
            node[key] = cdf_path(node[key])  # type: ignore[index]
    return doc


def relocate(doc: Mapping[str, Any], base_dir: Path, outdir: Path) -> dict[str, Any]:
    """``doc`` with each relative user file path (taken from ``base_dir``) rewritten relative
    to ``outdir``, so that the ``scenario.json`` written there reruns from there; absolute
    paths and shipped distributions' names stay as they are."""
    doc = copy.deepcopy(dict(doc))
    for name, node, key in file_fields(doc):
        value = node[key]
        if (name in CDF_FIELDS and value in CDF_FILES) or Path(value).is_absolute():
            continue
        node[key] = Path(os.path.relpath(base_dir / value, outdir.resolve())).as_posix()
    return doc


def check_output_dir(outdir: Path, label: str = "output directory") -> None:
    """Creates ``outdir`` if needed and makes sure a run can write there, before it runs;
    the :class:`InputError` says what is wrong in words (``label`` names the option)."""
    where = f"{label} {outdir}"
    if outdir.exists() and not outdir.is_dir():
        raise InputError(f"{where}: is a file, not a directory")
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        parent = next(p for p in outdir.parents if p.exists())
        raise InputError(f"{where}: {parent} is a file, not a directory") from None
    except PermissionError:
        raise InputError(f"{where}: cannot create it (permission denied)") from None
    except OSError as e:
        raise InputError(f"{where}: cannot create it ({e.strerror or e})") from None
    try:
        tempfile.TemporaryFile(dir=outdir).close()
    except PermissionError:
        raise InputError(f"{where}: cannot write there (permission denied)") from None
    except OSError as e:
        raise InputError(f"{where}: cannot write there ({e.strerror or e})") from None


def available_memory() -> tuple[int, str]:
    """Bytes this process can still allocate, and what limits it: the smallest of the free
    memory (``MemAvailable``), the address-space limit (``ulimit -v``) less what is mapped,
    and the cgroup's memory limit less its usage."""
    import resource

    limits: list[tuple[int, str]] = []
    meminfo = _read_kb_fields(Path("/proc/meminfo"))
    if "MemAvailable" in meminfo:
        limits.append((meminfo["MemAvailable"], "free memory"))
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        mapped = _read_kb_fields(Path("/proc/self/status")).get("VmSize", 0)
        limits.append((max(soft - mapped, 0), "the address-space limit (ulimit -v)"))
    try:
        cg_max = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        cg_now = int(Path("/sys/fs/cgroup/memory.current").read_text())
        if cg_max != "max":
            limits.append((max(int(cg_max) - cg_now, 0), "the cgroup memory limit"))
    except (OSError, ValueError):
        pass
    if not limits:
        return (1 << 62, "no known limit")
    return min(limits)


def _read_kb_fields(path: Path) -> dict[str, int]:
    """``Name: 123 kB`` lines of a /proc file, in bytes."""
    fields = {}
    try:
        for line in path.read_text().splitlines():
            name, _, rest = line.partition(":")
            parts = rest.split()
            if len(parts) == 2 and parts[1] == "kB" and parts[0].isdigit():
                fields[name] = int(parts[0]) * 1024
    except OSError:
        pass
    return fields


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def check_memory(
    doc_json: str, base_dir: Path, *, memory_check: bool, warn: Warn
) -> dict[str, int]:
    """Refuses a run whose estimated memory (``_core.estimate_memory``: flows, packet pool,
    recorded series) exceeds what the machine has, naming both (``memory_check=False``, the
    CLI's ``--no-memory-check``, runs it anyway); warns before enormous recorded series and
    before a run with no flows. Returns the estimate (``flows``, ``total_bytes``, ...)."""
    est = dict(_core.estimate_memory(doc_json, str(base_dir)))
    doc = json.loads(doc_json)
    is_model = (doc.get("engine") or {}).get("kind") == "model"
    if est["flows"] == 0 and "matrix" not in doc and not is_model:
        workload = doc.get("workload") or {}
        field = "workload.flows = 0" if workload.get("kind") == "poisson" else "workload"
        warn(f"{field}: the workload has no flows, nothing will run")
    if est["record_bytes"] > LARGE_RECORDS_BYTES:
        warn(
            f"the recorded series would hold about {est['record_samples']:,} samples "
            f"({_gb(est['record_bytes'])}); a longer record interval or a shorter stop_at "
            "makes them smaller"
        )
    if memory_check:
        detail = f"{est['flows']:,} flows" + (
            f", {est['record_samples']:,} recorded samples" if est["record_samples"] else ""
        )
        require_memory(est["total_bytes"], "this run", detail)
    return est


def require_memory(need: int, what: str, detail: str) -> None:
    """An :class:`InputError` naming the estimate and what the machine has, if ``need`` bytes
    do not fit in :func:`available_memory`."""
    have, limit = available_memory()
    if need > have:
        raise InputError(
            f"{what} needs about {_gb(need)} of memory ({detail}) but {_gb(have)} is available "
            f"({limit}); --no-memory-check (Python: memory_check=False) runs it anyway"
        )


def _python_warning(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=4)


def slowdown_by_size(
    size: np.ndarray,
    slowdown: np.ndarray,
    size_bins: Sequence[tuple[float, float, str]] = SIZE_BINS,
) -> list[dict[str, Any]]:
    """Slowdown percentiles (p50, p95, p99) and mean per size bin (``[lo, hi)`` bytes, label;
    default :data:`SIZE_BINS`), over the finite entries of ``slowdown`` (unfinished flows are
    NaN)."""
    done = np.isfinite(slowdown)
    bins = []
    for lo, hi, label in size_bins:
        sel = done & (size >= lo) & (size < hi)
        s = slowdown[sel]
        bins.append(
            {
                "bin": label,
                "flows": int(sel.sum()),
                **({f"p{q}": float(np.percentile(s, q)) for q in (50, 95, 99)} if len(s) else {}),
                **({"mean": float(s.mean())} if len(s) else {}),
            }
        )
    return bins


def _summary(cols: dict[str, np.ndarray], out: dict[str, Any]) -> dict[str, Any]:
    finished = cols["end_ps"] >= 0
    slowdown = cols["slowdown"]
    bins = slowdown_by_size(cols["size"], slowdown)
    return {
        "engine": out["engine"],
        "flows": int(len(finished)),
        "finished": int(finished.sum()),
        "complete": bool(out["complete"]),
        "simulated_seconds": out["end_time_ps"] / 1e12,
        "events": int(out["events"]),
        "slowdown": {
            "median": float(np.nanmedian(slowdown)) if finished.any() else None,
            "p99": float(np.nanpercentile(slowdown, 99)) if finished.any() else None,
            "by_size": bins,
        },
        "fairness": _fairness(cols),
        "deadlines": _deadlines(cols),
        "counters": dict(out["counters"]),
        **_rounds_summary(cols, out),
        **_soze_summary(out),
        **_eba_summary(out),
    }


def _deadline_columns(cols: dict[str, np.ndarray]) -> dict[str, Any]:
    """The flow table's deadline columns, when any flow has a deadline: ``deadline_s``
    (relative to the start; null without one) and ``deadline_missed`` (null without a deadline
    or when undecided: unfinished, and the run stopped before the deadline). The definition is
    the core's (``fairnet::metrics::deadline_missed``): missed iff the flow ends after start +
    deadline."""
    import pyarrow as pa

    has = cols["deadline_ps"] >= 0
    if not has.any():
        return {}
    missed = cols["deadline_missed"]
    return {
        "deadline_s": pa.array(cols["deadline_ps"] / 1e12, mask=~has),
        "deadline_missed": pa.array(missed == 1, mask=missed < 0),
    }


def _miss_counts(missed: np.ndarray) -> tuple[int, int, float | None]:
    """Missed, decided and their ratio (None when nothing is decided) from the core's
    per-flow ``deadline_missed`` codes (1 missed, 0 met, negative undecided or no deadline)."""
    n_missed = int((missed == 1).sum())
    decided = int((missed >= 0).sum())
    return n_missed, decided, (n_missed / decided if decided else None)


def _deadlines(cols: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Deadline misses over the flows with a deadline (None when no flow has one):
    ``miss_ratio`` = missed / decided, a flow decided when it finished or the run stopped at or
    after its deadline."""
    with_deadline = int((cols["deadline_ps"] >= 0).sum())
    if not with_deadline:
        return None
    missed, decided, ratio = _miss_counts(cols["deadline_missed"])
    return {
        "flows": with_deadline,
        "decided": decided,
        "missed": missed,
        "miss_ratio": ratio,
    }


def _slices_summary(
    cols: dict[str, np.ndarray], slices: list[dict[str, Any]] | None
) -> list[dict[str, Any]] | None:
    """Per Uranus slice (``[[slices]]``; None without): its declaration, its flows (by tag),
    how many finished, their mean FCT and, for flows with deadlines, the miss ratio."""
    if not slices:
        return None
    out = []
    for s in slices:
        member = np.isin(cols["tag"], s["tags"])
        fct = cols["fct_s"][member]
        ratio = _miss_counts(cols["deadline_missed"][member])[2]
        out.append(
            {
                "name": s["name"],
                "objective": s["objective"],
                "weight": s["weight"],
                "flows": int(member.sum()),
                "finished": int(np.isfinite(fct).sum()),
                "mean_fct_s": float(np.nanmean(fct)) if np.isfinite(fct).any() else None,
                "deadline_miss_ratio": ratio,
            }
        )
    return out


def _deadlines_html(d: dict[str, Any] | None) -> str:
    if not d:
        return ""
    ratio = "-" if d["miss_ratio"] is None else f"{d['miss_ratio']:.4f}"
    return (
        f"<p>Deadlines: {d['flows']} flows with a deadline, {d['decided']} decided, "
        f"{d['missed']} missed (miss ratio {ratio}).</p>"
    )


def _soze_summary(out: dict[str, Any]) -> dict[str, Any]:
    """A packet run with Söze senders: its ``soze`` block (rate updates, those made where Söze
    Lemma 3.2's ``p > Δt/2·ln(α/β)`` failed with the ``Δt`` of the update rule in force, the
    flows with any, the flows a set ``min_rate`` holds at the end) and a warning when any
    update violated the lemma."""
    c = out["counters"]
    if "soze_flows" not in c:
        return {}
    updates, violated = c["soze_rate_updates"], c["soze_lemma_3_2_violated_updates"]
    share = violated / updates if updates else 0.0
    block = {
        "flows": int(c["soze_flows"]),
        "rate_updates": int(updates),
        "lemma_3_2_violated_updates": int(violated),
        "lemma_3_2_violated_share": share,
        "lemma_3_2_flows": int(c["soze_lemma_3_2_flows"]),
        "held_at_floor": int(c["soze_held_at_floor"]),
    }
    warnings = []
    if violated:
        warnings.append(
            f"Söze Lemma 3.2 (p > Δt/2·ln(α/β)) failed on {share:.1%} of the rate updates, "
            f"in {block['lemma_3_2_flows']} of {block['flows']} flows"
        )
    return {"soze": block, "warnings": warnings}


def _eba_summary(out: dict[str, Any]) -> dict[str, Any]:
    """An eBA run (packet ``host_shim = "eba"`` or flow ``[engine.eba]``): its ``eba`` block,
    the VM-flows' distance from the oracle's allocation with guarantees over the run's last
    settled stretch (``fairnet::systems::eba::oracle``: Jain's index of the rates against the
    oracle's, the largest relative error, the window); ``oracle_distance`` is null when no
    VM-flow was open over a sampled window."""
    c = out["counters"]
    if "eba_oracle_vm_flows" not in c:
        return {}
    block: dict[str, Any] = {}
    if "eba_vm_updates" in c:
        block["vm_updates"] = int(c["eba_vm_updates"])
        block["link_updates"] = int(c["eba_link_updates"])
    if c["eba_oracle_vm_flows"] > 0:
        block["oracle_distance"] = {
            "vm_flows": int(c["eba_oracle_vm_flows"]),
            "jain_vs_oracle": float(c["eba_oracle_jain"]),
            "max_rel_error": float(c["eba_oracle_max_rel_error"]),
            "window_s": [
                float(c["eba_oracle_window_start_s"]),
                float(c["eba_oracle_window_end_s"]),
            ],
        }
    else:
        block["oracle_distance"] = None
    return {"eba": block}


def _eba_html(e: dict[str, Any] | None) -> str:
    """The report's line on an eBA run's distance from the oracle (empty without eBA)."""
    if not e:
        return ""
    d = e.get("oracle_distance")
    if not d:
        return "<p>eBA: no VM-flow was open over a sampled window: no distance from the oracle.</p>"
    a, b = d["window_s"]
    return (
        f"<p>eBA: {d['vm_flows']} VM-flows over {a:.6g}–{b:.6g} s against the oracle's "
        "weighted max-min allocation with guarantees (Eqs. 1–2, capacities μ·C): Jain's index "
        f"{d['jain_vs_oracle']:.4f}, largest relative error {d['max_rel_error']:.2%}.</p>"
    )


def _soze_html(s: dict[str, Any] | None) -> str:
    """The report's line on Söze's Lemma 3.2 check and floor (empty without Söze)."""
    if not s:
        return ""
    return (
        f"<p>Söze: {s['rate_updates']} rate updates in {s['flows']} flows; "
        f"{s['lemma_3_2_violated_updates']} ({s['lemma_3_2_violated_share']:.1%}) made where "
        f"Lemma 3.2 (p &gt; Δt/2·ln(α/β), Δt of the update rule) failed, in "
        f"{s['lemma_3_2_flows']} flows; {s['held_at_floor']} flows held at a set min_rate "
        "at the end.</p>"
    )


def _finite(x: float) -> float | None:
    """A counter as a float, or None when it is NaN (not reached)."""
    return None if np.isnan(x) else float(x)


def _rounds_summary(cols: dict[str, np.ndarray], out: dict[str, Any]) -> dict[str, Any]:
    """The rounds engine's convergence block, and the check made on every run: s-PERC must
    converge within 6·N2 rounds (s-PERC Theorem 4), Fair within 4·N1 (Theorem 3)."""
    if out["engine"] != "rounds":
        return {}
    c = out["counters"]
    conv = c["convergence_rounds"]
    rate, oracle = cols["rate_bps"], cols["oracle_rate_bps"]
    rel = np.abs(rate - oracle) / np.where(oracle > 0, oracle, 1.0)
    algorithm = out.get("algorithm", "")
    warnings = []
    if algorithm in ("s_perc", "s_perc_basic") and c["exceeds_6n2"]:
        warnings.append(f"s-PERC did not converge within 6·N2 = {c['bound_6n2']:.0f} rounds")
    if algorithm == "fair" and c["exceeds_4n1"]:
        warnings.append(f"Fair did not converge within 4·N1 = {c['bound_4n1']:.0f} rounds")
    if not c["converged"]:
        warnings.append(f"not converged after {c['rounds_run']:.1f} rounds")
    return {
        "rounds": {
            "algorithm": algorithm,
            "converged": bool(c["converged"]),
            "convergence_rounds": None if np.isnan(conv) else float(conv),
            "rate_convergence_rounds": _finite(c.get("rate_convergence_rounds", np.nan)),
            "round_s": float(c["round_seconds"]),
            "mean_rtt_s": _finite(c.get("mean_rtt_seconds", np.nan)),
            "n1": int(c["n1"]),
            "n2": int(c["n2"]),
            "ninf": int(c["ninf"]),
            "within_6n2": not bool(c["exceeds_6n2"]),
            "within_4n1": not bool(c["exceeds_4n1"]),
            "max_rel_error": float(rel.max()) if len(rel) else 0.0,
        },
        "warnings": warnings,
    }


def _fairness(cols: dict[str, np.ndarray]) -> dict[str, Any]:
    """How close each flow's throughput came to its weighted max-min fair throughput.

    Over the flows that finished in both the run and the max-min reference, ``x_i`` = max-min
    FCT / FCT (the flow's mean throughput over its max-min throughput): ``jain_vs_maxmin`` is
    Jain's index of the ``x_i`` (Jain, Chiu and Hawe 1984, §3: 1 when every flow gets the same
    fraction of its fair throughput), with percentiles of ``x_i``. A flow-level run is its own
    reference (every ``x_i`` = 1)."""
    x = cols["maxmin_fct_s"] / cols["fct_s"]
    x = x[np.isfinite(x)]
    if not len(x):
        return {"flows": 0, "jain_vs_maxmin": None}
    return {
        "flows": int(len(x)),
        "jain_vs_maxmin": _core.jain_index(np.ascontiguousarray(x, dtype=np.float64)),
        "throughput_over_maxmin": {
            "p1": float(np.percentile(x, 1)),
            "median": float(np.median(x)),
            "p99": float(np.percentile(x, 99)),
        },
    }


def _plot(summary: dict[str, Any], outdir: Path, title: str) -> list[Path]:
    plt = pyplot()
    bins = [b for b in summary["slowdown"]["by_size"] if b["flows"]]
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = np.arange(len(bins))
    for offset, q in ((-0.25, "p50"), (0.0, "p95"), (0.25, "p99")):
        ax.bar(x + offset, [b[q] for b in bins], width=0.25, label=q)
    ax.set_xticks(x, [f"{b['bin']}\n({b['flows']} flows)" for b in bins])
    ax.set_ylabel("FCT slowdown")
    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)  # a slowdown is at least 1
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    paths = [outdir / "slowdown.png", outdir / "slowdown.svg"]
    save_figure(fig, paths)
    return paths


def _fairness_html(f: dict[str, Any]) -> str:
    if not f.get("flows"):
        return ""
    t = f["throughput_over_maxmin"]
    return (
        f"<p>Throughput against the weighted max-min allocation ({f['flows']} flows): "
        f"Jain index {f['jain_vs_maxmin']:.4f}; a flow's throughput over its max-min "
        f"throughput: p1 {t['p1']:.3f}, median {t['median']:.3f}, p99 {t['p99']:.3f}.</p>"
    )


def _report(
    summary: dict[str, Any],
    scenario: dict[str, Any],
    png: Path | None,
    prov: dict[str, Any],
    extra: str = "",
) -> str:
    rows = "".join(
        f"<tr><td>{b['bin']}</td><td>{b['flows']}</td>"
        + "".join(f"<td>{b[q]:.2f}</td>" if q in b else "<td>-</td>" for q in ("p50", "p95", "p99"))
        + "</tr>"
        for b in summary["slowdown"]["by_size"]
    )
    img = ""
    if png is not None:
        data = base64.b64encode(png.read_bytes()).decode()
        img = f'<img alt="slowdown by size" src="data:image/png;base64,{data}">'
    if summary.get("partial"):
        state = "<b>partial</b> (stopped before its end: interrupted or failed)"
    elif summary["complete"]:
        state = "complete"
    else:
        state = "not every flow finished by the end of the run"
    name = scenario.get("name", "scenario")
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{name}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}
td,th{{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:right}}</style></head><body>
<h1>{name}</h1>
<p>{summary["engine"]} engine, {summary["flows"]} flows ({summary["finished"]} finished, {state}),
{summary["simulated_seconds"] * 1e3:.3f} ms simulated in {prov["wall_seconds"]:.2f} s
({summary["events"]} events).</p>
{_fairness_html(summary.get("fairness", {}))}
{_deadlines_html(summary.get("deadlines"))}
    )


{_soze_html(summary.get("soze"))}
{_eba_html(summary.get("eba"))}
<h2>FCT slowdown by flow size</h2>
<table><tr><th>size</th><th>flows</th><th>p50</th><th>p95</th><th>p99</th></tr>{rows}</table>
{img}
{extra}
<h2>Scenario</h2><pre>{json.dumps(scenario, indent=1)}</pre>
{footer_html(prov)}
</body></html>
"""


@dataclass
class Results:
    """The outcome of one run: the flow table, the summary and the resolved scenario."""

    flows_arrow: pa.Table
    summary: dict[str, Any]
    scenario: dict[str, Any]
    #: Rate samples (``time_s``, ``flow``, ``rate_bps``), empty unless the scenario records
    #: them (flow engine: ``engine.rate_interval``).
    rates_arrow: pa.Table | None = None
    #: Per-link counters of a packet-level run (utilization, drops, marks, queues).
    links_arrow: pa.Table | None = None
    #: Queue samples (``time_s``, ``link``, ``queue_bytes``, ``qdelay_s``), empty unless the
    #: scenario records them (packet engine: ``engine.record.queues``).
    queues_arrow: pa.Table | None = None
    #: The queueing disciplines' own gauges (``time_s``, ``link``, ``gauge``, ``value``),
    #: empty unless the scenario records (packet engine: ``engine.record``) and a port's
    #: discipline publishes any (MAY).
    qdisc_gauges_arrow: pa.Table | None = None
    #: A model run's outputs (``time_s`` and one column per output; model engine only).
    model_arrow: pa.Table | None = None
    #: The engine's exact columns (``src``, ``dst``, ``size``, ``start_ps``, ``end_ps`` (-1:
    #: unfinished), ``ideal_fct_ps``), integer picoseconds, for formats that need exact times.
    exact: dict[str, np.ndarray] = field(default_factory=dict)
    #: The directory the scenario's relative file paths are taken from.
    base_dir: Path = field(default_factory=Path.cwd)
    #: What made this run (:mod:`fairnet.provenance`): versions, command line, start and
    #: wall-clock time, the scenario's hash and seed; written to ``provenance.json``.
    provenance: dict[str, Any] = field(default_factory=dict)
    #: A lossless packet run's PFC frames in the HPCC ns-3 simulator's ``pfc.txt`` format.
    pfc_txt: str | None = None

    @property
    def rates(self) -> pl.DataFrame | None:
        """The rate samples as a polars DataFrame, or None if none were recorded."""
        import polars as pl

        if self.rates_arrow is None or not self.rates_arrow.num_rows:
            return None
        return pl.from_arrow(self.rates_arrow)  # type: ignore[return-value]

    @property
    def queues(self) -> pl.DataFrame | None:
        """The queue samples as a polars DataFrame, or None if none were recorded."""
        import polars as pl

        if self.queues_arrow is None or not self.queues_arrow.num_rows:
            return None
        return pl.from_arrow(self.queues_arrow)  # type: ignore[return-value]

    @property
    def qdisc_gauges(self) -> pl.DataFrame | None:
        """The queueing disciplines' gauge samples as a polars DataFrame (``time_s``,
        ``link``, ``gauge``, ``value``), or None if none were recorded."""
        import polars as pl

        if self.qdisc_gauges_arrow is None or not self.qdisc_gauges_arrow.num_rows:
            return None
        return pl.from_arrow(self.qdisc_gauges_arrow)  # type: ignore[return-value]

    @property
    def model(self) -> pl.DataFrame | None:
        """A model run's outputs as a polars DataFrame, or None for the other engines."""
        import polars as pl

        if self.model_arrow is None:
            return None
        return pl.from_arrow(self.model_arrow)  # type: ignore[return-value]

    @property
    def flows(self) -> pl.DataFrame:
        """The flow table as a polars DataFrame (one row per flow)."""
        import polars as pl

        return pl.from_arrow(self.flows_arrow)  # type: ignore[return-value]

    def write(self, outdir: str | Path, *, fct_txt: bool = False, fct_def: str = "fairnet") -> Path:
        """Writes scenario.json, flows.parquet, summary.json, plots and report.html; with
        ``fct_txt`` also the HPCC simulator's ``fct.txt`` under the FCT definition ``fct_def``
        (:data:`fairnet.hpcc.FCT_DEFINITIONS`; see :mod:`fairnet.hpcc`). The files
        of an earlier run in ``outdir`` (those its summary.json lists) are removed first; the
        new summary.json lists this run's files (``summary["files"]``)."""
        import pyarrow.parquet as pq

        outdir = Path(outdir)
        check_output_dir(outdir)
        clear_previous_run(outdir)
        files: list[str] = []

        def table(name: str, t: pa.Table | None) -> None:
            if t is not None and t.num_rows:
                pq.write_table(t, outdir / name)
                files.append(name)

        if fct_txt:
            from fairnet.hpcc import fct_text

            (outdir / "fct.txt").write_text(fct_text(self.exact, fct_def))
            files.append("fct.txt")
            self.summary["fct_txt_definition"] = fct_def
        # Relative user files re-expressed from the run directory: it reruns itself.
        scenario = relocate(self.scenario, self.base_dir, outdir)
        (outdir / "scenario.json").write_text(json.dumps(scenario, indent=1) + "\n")
        files.append("scenario.json")
        pq.write_table(self.flows_arrow, outdir / "flows.parquet")
        files.append("flows.parquet")
        table("rates.parquet", self.rates_arrow)
        table("links.parquet", self.links_arrow)
        if self.pfc_txt is not None:
            (outdir / "pfc.txt").write_text(self.pfc_txt)
            files.append("pfc.txt")
        table("queues.parquet", self.queues_arrow)
        table("qdisc_gauges.parquet", self.qdisc_gauges_arrow)
        png = None
        if self.summary["finished"]:
            plots = _plot(self.summary, outdir, self.scenario.get("name", "scenario"))
            files += [p.name for p in plots]
            png = plots[0]
        extra = ""
        if self.model_arrow is not None:
            from fairnet.model import write_model_outputs

            name = self.scenario.get("name", "scenario")
            extra, written = write_model_outputs(
                self.model_arrow, self.summary["model"], outdir, name
            )
            files += written
        prov = self.provenance | {"scenario_sha256": scenario_hash(scenario)}
        (outdir / PROVENANCE_FILE).write_text(json.dumps(prov, indent=1) + "\n")
        files.append(PROVENANCE_FILE)
        (outdir / "report.html").write_text(_report(self.summary, scenario, png, prov, extra))
        files.append("report.html")
        # Last: a directory with summary.json holds a finished run (sweeps rely on this), and
        # its list is what the next run into this directory removes.
        self.summary["files"] = [*files, "summary.json"]
        (outdir / "summary.json").write_text(json.dumps(self.summary, indent=1) + "\n")
        return outdir


def clear_previous_run(outdir: Path) -> None:
    """Removes the outputs of the run whose summary.json is in ``outdir`` (its ``files``
    list; :data:`RUN_FILES` for a summary without one). Nothing else is touched, so a
    directory never holds files of two runs, and a user's own files survive."""
    summary_path = outdir / "summary.json"
    try:
        summary = json.loads(summary_path.read_text())
    except (OSError, ValueError):
        return  # no finished run here
    listed = summary.get("files") if isinstance(summary, dict) else None
    names = listed if isinstance(listed, list) else RUN_FILES
    # summary.json first: a directory whose removal stops half-way is not a finished run.
    summary_path.unlink()
    for name in names:
        if isinstance(name, str) and name == Path(name).name and name not in ("", ".", ".."):
            (outdir / name).unlink(missing_ok=True)


def run(
    scenario: str | Path | Mapping[str, Any],
    *,
    overrides: Overrides = (),
    output: str | Path | None = None,
    fct_txt: bool = False,
    fct_def: str = "fairnet",
    show_progress: bool = False,
    memory_check: bool = True,
    warn: Warn | None = None,
) -> Results:
    """Runs a scenario (a TOML or JSON file's path, a run directory — which reruns that run —
    or a dict of the same structure) and returns its
    :class:`Results`; with ``output`` also writes every output file there (``fct_txt``: the
    HPCC simulator's ``fct.txt`` too, under ``fct_def``). ``show_progress``: progress on
    stderr for long runs, and Ctrl-C returns (and writes) what finished instead of raising.
    ``memory_check``: refuse a run that would not fit in memory (:func:`check_memory`).
    ``warn`` receives the warnings made before the run (default: :func:`warnings.warn`)."""
    doc, base_dir = prepare(scenario, overrides)
    if fct_def not in ("fairnet", "ns3"):
        raise InputError(f"--fct-def: unknown definition {fct_def!r} (known: fairnet, ns3)")
    kind = (doc.get("engine") or {}).get("kind", "flow")
    if fct_txt and fct_def == "ns3" and kind != "packet":
        raise InputError(
            f"--fct-def ns3: needs the packet engine's ACK times (engine.kind is {kind!r})"
        )
    if output is not None:
        check_output_dir(Path(output))  # before the run, so nothing computed is lost
    results = run_document(
        doc, base_dir, show_progress=show_progress, memory_check=memory_check, warn=warn
    )
    if output is not None:
        results.write(output, fct_txt=fct_txt, fct_def=fct_def)
    return results


def run_document(
    doc: Mapping[str, Any],
    base_dir: Path,
    *,
    show_progress: bool = False,
    memory_check: bool = True,
    warn: Warn | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Results:
    """Runs a prepared scenario document (see :func:`prepare`); nothing is written. Before it
    runs, :func:`check_memory` (``memory_check``, ``warn``). With ``show_progress``, progress
    on stderr (:mod:`fairnet.progress`); Ctrl-C, or ``should_stop()`` turning true, stops the
    run and returns what finished (``summary["interrupted"]``, ``summary["partial"]``)."""
    import pyarrow as pa

    from fairnet.progress import run_scenario_json

    check_finite(doc)
    started = now()
    doc_json = json.dumps(_engine_document(doc), allow_nan=False)
    est = check_memory(doc_json, base_dir, memory_check=memory_check, warn=warn or _python_warning)
    out, interrupted = run_scenario_json(
        doc_json,
        str(base_dir),
        show=show_progress,
        total_flows=est["flows"] or None,
        should_stop=should_stop,
    )
    resolved = json.loads(out.pop("resolved"))
    # The scenario names a shipped distribution by its name, never its installed file.
    named = {name: node[key] for name, node, key in file_fields(doc) if name in CDF_FIELDS}
    for name, node, key in file_fields(resolved):
        if named.get(name) in CDF_FILES:
            node[key] = named[name]  # type: ignore[index]
    cols = {
        k: out.pop(k)
        for k in (
            "src",
            "dst",
            "size",
            "weight",
            "tag",
            "start_ps",
            "end_ps",
            "ideal_fct_ps",
            "acked_end_ps",
            "ideal_fct_ref_ps",
            "maxmin_end_ps",
            "rate_bps",
            "oracle_rate_bps",
            "deadline_ps",
            "deadline_missed",
            "retransmitted_bytes",
        )
    }
    if out["engine"] == "rounds":
        out["algorithm"] = resolved.get("engine", {}).get("algorithm", "")
    finished = cols["end_ps"] >= 0
    cols["fct_s"] = np.where(finished, (cols["end_ps"] - cols["start_ps"]) / 1e12, np.nan)
    cols["ideal_fct_s"] = cols["ideal_fct_ps"] / 1e12
    cols["maxmin_fct_s"] = np.where(
        cols["maxmin_end_ps"] >= 0, (cols["maxmin_end_ps"] - cols["start_ps"]) / 1e12, np.nan
    )
    ideal = cols["ideal_fct_s"]
    # Rounds runs have no sizes or times: their slowdown is NaN, not a division by zero.
    cols["slowdown"] = np.divide(
        cols["fct_s"], ideal, out=np.full(len(ideal), np.nan), where=finished & (ideal > 0)
    )
    # The HPCC ns-3 simulator's definitions (packet engine; NaN where there is no ACK time).
    acked = cols["acked_end_ps"] >= 0
    ack_s = np.where(acked, cols["acked_end_ps"] / 1e12, np.nan)
    fct_ack_s = np.where(acked, (cols["acked_end_ps"] - cols["start_ps"]) / 1e12, np.nan)
    ideal_ref = cols["ideal_fct_ref_ps"] / 1e12
    has_ref = ideal_ref > 0
    ref_cols = {
        "ack_s": ack_s,
        "fct_ack_s": fct_ack_s,
        "ideal_fct_ref_s": np.where(has_ref, ideal_ref, np.nan),
        "slowdown_ref": np.divide(
            fct_ack_s, ideal_ref, out=np.full(len(ideal_ref), np.nan), where=acked & has_ref
        ),
    }
    rounds_cols = (
        {"rate_bps": cols["rate_bps"], "oracle_rate_bps": cols["oracle_rate_bps"]}
        if out["engine"] == "rounds"
        else {}
    )
    table = pa.table(
        {
            "flow": np.arange(len(finished)),
            "src": cols["src"],
            "dst": cols["dst"],
            "size": cols["size"],
            "weight": cols["weight"],
            "tag": cols["tag"],
            "start_s": cols["start_ps"] / 1e12,
            "end_s": np.where(finished, cols["end_ps"] / 1e12, np.nan),
            "fct_s": cols["fct_s"],
            "ideal_fct_s": cols["ideal_fct_s"],
            "slowdown": cols["slowdown"],
            "maxmin_fct_s": cols["maxmin_fct_s"],
            **ref_cols,
            # Packet engine: payload bytes sent more than once (0: the flow lost nothing).
            **(
                {"retransmitted_bytes": cols["retransmitted_bytes"]}
                if out["engine"] == "packet"
                else {}
            ),
            **_deadline_columns(cols),
            **rounds_cols,
        }
    )
    exact = {
        k: cols[k]
        for k in (
            "src",
            "dst",
            "size",
            "start_ps",
            "end_ps",
            "ideal_fct_ps",
            "acked_end_ps",
            "ideal_fct_ref_ps",
        )
    }
    rates = out.pop("rates")
    rate_cols: dict[str, Any] = {
        "time_s": rates["time_ps"] / 1e12,
        "flow": rates["flow"],
        "rate_bps": rates["rate_bps"],
    }
    if "send_rate_bps" in rates:
        send = rates["send_rate_bps"]
        rate_cols["send_rate_bps"] = pa.array(send, mask=np.isnan(send))
    rates_table = pa.table(rate_cols)
    queues = out.pop("queues")
    queues_table = pa.table(
        {
            "time_s": queues["time_ps"] / 1e12,
            "link": queues["link"],
            "queue_bytes": queues["bytes"],
            "qdelay_s": queues["delay_ps"] / 1e12,
        }
    )
    gauges = out.pop("qdisc_gauges")
    gauges_table = pa.table(
        {
            "time_s": gauges["time_ps"] / 1e12,
            "link": gauges["link"],
            "gauge": pa.array(gauges["gauge"], type=pa.string()),
            "value": gauges["value"],
        }
    )
    links = out.pop("links")
    links_table = pa.table(links)
    summary = _summary(cols, out)
    summary["interrupted"] = interrupted
    # An engine invariant broken part-way: what existed is kept, and the run says why it stopped.
    summary["failure"] = out.get("failure")
    # Partial: stopped before its end (Ctrl-C, a failure), so never counted as done. A run
    # that reached its stop_at with flows unfinished is not partial; `complete` says so.
    summary["partial"] = interrupted or summary["failure"] is not None
    summary["links"] = _links_summary(links)
    pfc_txt = out.pop("pfc_txt", None)
    if pfc_txt is not None:
        summary["pfc"] = {
            "pauses": int(links["pfc_pauses_received"].sum()),
            "paused_links": int((links["pfc_pauses_received"] > 0).sum()),
            "max_paused_s": float(links["pfc_paused_s"].max()) if len(links["link"]) else 0.0,
        }
    summary["slices"] = _slices_summary(cols, resolved.get("slices"))
    summary["convergence"] = _convergence(rates, out.pop("maxmin_rates"))
    model_arrow = None
    if "model" in out:
        from fairnet.model import model_arrow as to_arrow
        from fairnet.model import model_summary

        model_arrow = to_arrow(out.pop("model"))
        summary["model"] = model_summary(model_arrow)
    wall = out["wall_seconds"]
    prov = provenance(
        started,
        scenario_sha256=scenario_hash(resolved),
        seed=resolved.get("seed"),
        wall_seconds=wall,
        events_per_second=out["events"] / wall if wall > 0 else None,
    )
    return Results(
        model_arrow=model_arrow,
        flows_arrow=table,
        summary=summary,
        scenario=resolved,
        exact=exact,
        rates_arrow=rates_table,
        links_arrow=links_table,
        queues_arrow=queues_table,
        qdisc_gauges_arrow=gauges_table,
        base_dir=base_dir,
        provenance=prov,
        pfc_txt=pfc_txt,
    )


#: A flow has converged when its sampled throughput is within this of its max-min rate.
CONVERGENCE_TOLERANCE = 0.1


def _convergence(rates: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """When the run's rates settled on the weighted max-min allocation: the first sample time
    from which every later sample has every flow (sampled in both the run and the max-min
    reference at that time) within :data:`CONVERGENCE_TOLERANCE` of its reference rate. The
    run's sample at ``t`` is the throughput over the interval ending at ``t``; the reference's
    is the allocation at ``t``. None without recorded flow samples (packet ``engine.record``);
    ``time_s`` None if the last sample is still off."""
    if not len(ref["time_ps"]) or not len(rates["time_ps"]):
        return None
    import polars as pl

    run = pl.DataFrame({"t": rates["time_ps"], "flow": rates["flow"], "rate": rates["rate_bps"]})
    reference = pl.DataFrame({"t": ref["time_ps"], "flow": ref["flow"], "ref": ref["rate_bps"]})
    both = run.join(reference, on=["t", "flow"]).filter(pl.col("ref") > 0)
    if not both.height:
        return None
    per_time = (
        both.with_columns(((pl.col("rate") - pl.col("ref")).abs() / pl.col("ref")).alias("err"))
        .group_by("t")
        .agg(pl.col("err").max())
        .sort("t")
    )
    off = per_time.filter(pl.col("err") > CONVERGENCE_TOLERANCE)
    times = per_time["t"].to_numpy()
    if not off.height:
        settled = int(times[0])
    elif off["t"].max() == times[-1]:
        settled = None
    else:
        settled = int(times[times > off["t"].max()][0])
    return {
        "tolerance": CONVERGENCE_TOLERANCE,
        "samples": int(per_time.height),
        "time_s": None if settled is None else settled / 1e12,
        "final_max_error": float(per_time["err"][-1]),
    }


def _links_summary(links: dict[str, np.ndarray]) -> dict[str, Any] | None:
    """Utilization (mean transmitted rate over capacity) of the links that carried traffic,
    drops and marks; None for engines without links."""
    if not len(links["link"]):
        return None
    used = links["tx_bytes"] > 0
    u = links["utilization"][used]
    return {
        "links": int(len(links["link"])),
        "links_used": int(used.sum()),
        "utilization_mean": float(u.mean()) if len(u) else 0.0,
        "utilization_max": float(u.max()) if len(u) else 0.0,
        "drops": int(links["drops"].sum()),
        "marks": int(links["marks"].sum()),
        "max_queue_bytes": int(links["max_queue_bytes"].max()),
    }


def default_output(scenario: Path) -> Path:
    """Where ``fairnet run`` writes by default: ``results/<scenario file name>``; rerunning a
    run directory (or its ``scenario.json``) writes ``results/<its name>-rerun``, never over
    the run it repeats."""
    rundir = scenario if scenario.is_dir() else None
    if scenario.name == "scenario.json" and (scenario.parent / "summary.json").is_file():
        rundir = scenario.parent
    if rundir is not None:
        return Path("results") / f"{rundir.resolve().name}-rerun"
    return Path("results") / scenario.stem
