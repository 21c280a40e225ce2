"""The JSON problem and result files of ``fairnet allocate``.

PROBLEM.json::

    {"links": [{"id": "l0", "capacity": 100e9}, ...],
     "flows": [{"id": 1, "path": ["l0", ...], "weight": 2, "demand": 5e9, "guarantee": 1e9}, ...]}

Capacities, demands and guarantees are bits per second, as numbers or unit strings
(``"100Gbps"``). ``weight`` defaults to 1, ``demand`` to none, ``guarantee`` to 0. Ids may be
strings or integers and must be unique.

RESULT.json::

    {"rates": {flow id: bps}, "bottleneck": {flow id: link id or null},
     "iterations": {"k1": n, "k2": n, "kinf": n}}
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fairnet import _core
from fairnet.alloc import Allocation
from fairnet.errors import InputError

LINK_KEYS = {"id", "capacity"}
FLOW_KEYS = {"id", "path", "weight", "demand", "guarantee"}


@dataclass
class ProblemSpec:
    """A problem in array form, with the file's ids kept for the result."""

    link_ids: list[Any]
    flow_ids: list[Any]
    capacities: np.ndarray
    paths: tuple[np.ndarray, np.ndarray]
    weights: np.ndarray
    demands: np.ndarray | None
    guarantees: np.ndarray | None

    def names(self) -> dict[str, list[str]]:
        """The file's ids as names for error messages and reports."""
        return {
            "flow_names": [str(f) for f in self.flow_ids],
            "link_names": [str(link) for link in self.link_ids],
        }


def _rate(value: Any, at: str, *, allow_none: bool = False) -> float:
    if value is None and allow_none:
        return math.inf
    if isinstance(value, bool):
        raise InputError(f"{at}: expected a rate in bits/s, got {value!r}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(_core.parse_rate(value))
        except ValueError as e:
            raise InputError(f"{at}: {e}") from None
    raise InputError(f"{at}: expected a rate in bits/s (a number or a string like '100Gbps')")


def _id(value: Any, at: str) -> Any:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return value
    raise InputError(f"{at}: expected a string or integer id, got {value!r}")


def parse_problem(doc: Any, source: str = "problem") -> ProblemSpec:
    """Validates a decoded PROBLEM.json document; errors name the field path."""
    if not isinstance(doc, dict):
        raise InputError(f"{source}: expected an object with 'links' and 'flows'")
    unknown = set(doc) - {"links", "flows"}
    if unknown:
        raise InputError(
            f"{source}: unknown key {sorted(unknown)[0]!r} (expected 'links', 'flows')"
        )
    links, flows = doc.get("links"), doc.get("flows")
    if not isinstance(links, list):
        raise InputError(f"{source}: 'links' must be a list")
    if not isinstance(flows, list):
        raise InputError(f"{source}: 'flows' must be a list")
    link_index: dict[Any, int] = {}
    caps = np.empty(len(links))
    for i, link in enumerate(links):
        at = f"links[{i}]"
        if not isinstance(link, dict):
            raise InputError(f"{at}: expected an object with 'id' and 'capacity'")
        extra = set(link) - LINK_KEYS
        if extra:
            raise InputError(f"{at}: unknown key {sorted(extra)[0]!r}")
        if "id" not in link or "capacity" not in link:
            raise InputError(f"{at}: needs 'id' and 'capacity'")
        lid = _id(link["id"], f"{at}.id")
        if lid in link_index:
            raise InputError(f"{at}.id: duplicate link id {lid!r}")
        link_index[lid] = i
        caps[i] = _rate(link["capacity"], f"{at}.capacity")
    flow_ids: list[Any] = []
    seen: set[Any] = set()
    indptr = np.zeros(len(flows) + 1, dtype=np.int64)
    indices: list[int] = []
    weights = np.ones(len(flows))
    demands = np.full(len(flows), math.inf)
    guarantees = np.zeros(len(flows))
    for i, flow in enumerate(flows):
        at = f"flows[{i}]"
        if not isinstance(flow, dict):
            raise InputError(f"{at}: expected an object with 'id' and 'path'")
        extra = set(flow) - FLOW_KEYS
        if extra:
            raise InputError(f"{at}: unknown key {sorted(extra)[0]!r}")
        if "id" not in flow or "path" not in flow:
            raise InputError(f"{at}: needs 'id' and 'path'")
        fid = _id(flow["id"], f"{at}.id")
        if fid in seen:
            raise InputError(f"{at}.id: duplicate flow id {fid!r}")
        seen.add(fid)
        flow_ids.append(fid)
        path = flow["path"]
        if not isinstance(path, list):
            raise InputError(f"{at}.path: expected a list of link ids")
        for j, lid in enumerate(path):
            try:
                indices.append(link_index[lid])
            except (KeyError, TypeError):
                raise InputError(f"{at}.path[{j}]: unknown link id {lid!r}") from None
        indptr[i + 1] = len(indices)
        if "weight" in flow:
            w = flow["weight"]
            if isinstance(w, bool) or not isinstance(w, int | float):
                raise InputError(f"{at}.weight: expected a positive number, got {w!r}")
            weights[i] = float(w)
        if "demand" in flow:
            demands[i] = _rate(flow["demand"], f"{at}.demand", allow_none=True)
        if "guarantee" in flow:
            guarantees[i] = _rate(flow["guarantee"], f"{at}.guarantee")
    return ProblemSpec(
        link_ids=list(link_index),
        flow_ids=flow_ids,
        capacities=caps,
        paths=(indptr, np.asarray(indices, dtype=np.int64)),
        weights=weights,
        demands=demands if np.isfinite(demands).any() else None,
        guarantees=guarantees if guarantees.any() else None,
    )


def load_problem(path: str | Path) -> ProblemSpec:
    """Reads and validates PROBLEM.json."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(
            f"{p}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None
    return parse_problem(doc, str(p))


def result_document(spec: ProblemSpec, alloc: Allocation, iterations: bool = True) -> dict:
    """The RESULT.json document for ``alloc``, keyed by the problem's own ids."""
    keys = [str(f) for f in spec.flow_ids]
    bottleneck = alloc.bottleneck
    doc: dict[str, Any] = {
        "rates": dict(zip(keys, alloc.rates.tolist(), strict=True)),
        "bottleneck": {
            k: (spec.link_ids[b] if b >= 0 else None)
            for k, b in zip(keys, bottleneck.tolist(), strict=True)
        },
    }
    if iterations:
        doc["iterations"] = alloc.iterations
    return doc


def problem_document(spec: ProblemSpec) -> dict:
    """The PROBLEM.json document of ``spec`` (used to save generated problems)."""
    indptr, indices = spec.paths
    flows = []
    for i, fid in enumerate(spec.flow_ids):
        f: dict[str, Any] = {
            "id": fid,
            "path": [spec.link_ids[j] for j in indices[indptr[i] : indptr[i + 1]].tolist()],
            "weight": float(spec.weights[i]),
        }
        if spec.demands is not None and math.isfinite(spec.demands[i]):
            f["demand"] = float(spec.demands[i])
        if spec.guarantees is not None and spec.guarantees[i] > 0:
            f["guarantee"] = float(spec.guarantees[i])
        flows.append(f)
    links = [
        {"id": lid, "capacity": float(c)}
        for lid, c in zip(spec.link_ids, spec.capacities.tolist(), strict=True)
    ]
    return {"links": links, "flows": flows}


def load_rates(path: str | Path, spec: ProblemSpec) -> np.ndarray:
    """Reads the rates of a RESULT.json, ordered like the problem's flows."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise InputError(
            f"{p}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
        ) from None
    rates = doc.get("rates") if isinstance(doc, dict) else None
    if not isinstance(rates, dict):
        raise InputError(f"{p}: expected an object with 'rates': {{flow id: bps}}")
    out = np.empty(len(spec.flow_ids))
    for i, fid in enumerate(spec.flow_ids):
        if str(fid) not in rates:
            raise InputError(f"{p}: rates: no rate for flow {fid!r}")
        out[i] = _rate(rates[str(fid)], f"rates[{str(fid)!r}]")
    return out
