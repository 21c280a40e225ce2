"""Analysis of a run's recorded time series: which links each flow crosses (path membership)
and the throughput each class of flows (a slice, a tag) puts on each link, interval by
interval, from the per-flow rate samples.

The packet engine records each flow's delivered rate (``engine.record``, ``rates.parquet``),
not what each link carries of each flow. A link's throughput of a class is therefore computed
as ``Σ_f rate_f(t) · share_{f,l}`` over the class's flows, where ``share_{f,l}`` is the share of
flow ``f``'s data that crosses link ``l`` (:func:`flow_link_shares`): 1 on every link of its path
under per-flow routing (ECMP, host-pair hashing), and under per-packet or per-flowcell spraying
the expected share when every hop picks uniformly among its equal-cost next hops. Two
approximations, both small where the entries use it: a rate sample counts the bits that
*reached the receiver* in the interval (retransmissions included), so bits dropped on the way
are not counted on the links before the drop, and a link carries them up to one path delay
earlier than the sample says; under spraying the per-link split is the expectation (the sum
over one hop's links, e.g. all of a rack's uplinks, is exact).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from fairnet import _core
from fairnet.errors import InputError


def flow_link_shares(scenario: Mapping[str, Any], flows: pl.DataFrame) -> pl.DataFrame:
    """The links each flow of a packet run crosses, with the share of its data on each:
    columns ``flow`` (the flow's row in ``flows``), ``link``, ``share`` and ``rack_core``
    (whether the link joins a rack switch to the rest of the fabric, Uranus §2.2's congested
    links: ``fairnet::metrics::rack_core_links``). ``scenario`` is the run's resolved scenario
    (``Results.scenario``: its ``topology``, ``engine.routing`` and ``engine.seed`` route the
    flows as the engine did), ``flows`` its flow table (``src``, ``dst``). A flow with an
    unroutable pair is an :class:`InputError` naming it (``flows[3]: path …``)."""
    engine = scenario.get("engine") or {}
    if engine.get("kind") != "packet":
        raise InputError(
            f"engine.kind: path membership follows the packet engine's routing, got "
            f"{engine.get('kind')!r}"
        )
    try:
        out = _core.flow_link_shares(
            json.dumps(scenario["topology"]),
            flows["src"].to_numpy().astype(np.uint32).tolist(),
            flows["dst"].to_numpy().astype(np.uint32).tolist(),
            str(engine.get("routing", "ecmp")),
            int(engine.get("seed", 0)),
        )
    except ValueError as e:
        raise InputError(str(e)) from None
    rack_core = np.asarray(out["rack_core"], dtype=bool)
    links = np.asarray(out["link"], dtype=np.int64)
    rows = np.asarray(out["flow"], dtype=np.int64)
    # A run's flow table numbers its flows (``flow``) in row order; another table by its rows.
    ids = flows["flow"].to_numpy().astype(np.int64) if "flow" in flows.columns else None
    return pl.DataFrame(
        {
            "flow": rows if ids is None else ids[rows],
            "link": links,
            "share": np.asarray(out["share"], dtype=np.float64),
            "rack_core": rack_core[links],
        }
    )


def class_link_throughput(
    rates: pl.DataFrame,
    shares: pl.DataFrame,
    flow_class: Mapping[int, int] | pl.DataFrame,
    links: Any = None,
) -> pl.DataFrame:
    """Per sample time, link and class, the throughput (bit/s) the class's flows put on the
    link: ``Σ_f rate_bps(f, t) · share(f, l)`` over the flows ``f`` of the class (see the
    module doc for what a rate sample counts).

    ``rates``: per-flow samples (``time_s``, ``flow``, ``rate_bps``: ``Results.rates``);
    ``shares``: path membership (``flow``, ``link``, ``share``: :func:`flow_link_shares`);
    ``flow_class``: each flow's class, a mapping flow → class or a table (``flow``,
    ``class``); flows without a class are left out. ``links``: only these link ids (e.g. the
    rack–core links), default all. Returns ``time_s``, ``link``, ``class``,
    ``throughput_bps``, sorted; a (time, link, class) with no flow sample is absent (zero)."""
    for name, table, cols in (
        ("rates", rates, ("time_s", "flow", "rate_bps")),
        ("shares", shares, ("flow", "link", "share")),
    ):
        missing = [c for c in cols if c not in table.columns]
        if missing:
            raise InputError(f"{name}: missing column(s) {', '.join(missing)}")
    if isinstance(flow_class, pl.DataFrame):
        classes = flow_class.select(pl.col("flow").cast(pl.Int64), pl.col("class").cast(pl.Int64))
    else:
        classes = pl.DataFrame(
            {
                "flow": np.fromiter(flow_class.keys(), dtype=np.int64, count=len(flow_class)),
                "class": np.fromiter(flow_class.values(), dtype=np.int64, count=len(flow_class)),
            }
        )
    member = shares.select(
        pl.col("flow").cast(pl.Int64), pl.col("link").cast(pl.Int64), pl.col("share")
    )
    if links is not None:
        member = member.filter(pl.col("link").is_in(np.asarray(list(links), dtype=np.int64)))
    member = member.join(classes, on="flow", how="inner")
    return (
        rates.select(pl.col("time_s"), pl.col("flow").cast(pl.Int64), pl.col("rate_bps"))
        .join(member, on="flow", how="inner")
        .group_by("time_s", "link", "class")
        .agg((pl.col("rate_bps") * pl.col("share")).sum().alias("throughput_bps"))
        .sort("time_s", "link", "class")
    )


def class_throughput_on(
    rates: pl.DataFrame,
    shares: pl.DataFrame,
    flow_class: Mapping[int, int] | pl.DataFrame,
    links: Any,
    every: int = 1,
) -> pl.DataFrame:
    """Per interval and class, the throughput the class puts on the links ``links`` together
    (bit/s, a flow counted once per link it crosses: Uranus §5.2.1's ``T_s`` over the
    rack–core links, ``fairnet::metrics::slice_proportionality``): the sum over ``links`` of
    :func:`class_link_throughput`, averaged over ``every`` consecutive samples (intervals of
    ``every`` recording intervals, labelled by their last sample's time; a trailing partial
    interval is dropped). Returns ``time_s``, ``class``, ``throughput_bps``, every class of
    ``flow_class`` at every interval (0 where it sent nothing)."""
    if every < 1:
        raise InputError(f"every: expected at least 1 sample an interval, got {every}")
    per_link = class_link_throughput(rates, shares, flow_class, links)
    times = np.unique(rates["time_s"].to_numpy())
    names = (
        np.unique(flow_class["class"].to_numpy())
        if isinstance(flow_class, pl.DataFrame)
        else np.unique(np.fromiter(flow_class.values(), dtype=np.int64))
    )
    grid = pl.DataFrame(
        {
            "time_s": np.repeat(times, len(names)),
            "class": np.tile(names.astype(np.int64), len(times)),
        }
    )
    summed = per_link.group_by("time_s", "class").agg(pl.col("throughput_bps").sum())
    full = (
        grid.join(summed, on=["time_s", "class"], how="left")
        .with_columns(pl.col("throughput_bps").fill_null(0.0))
        .sort("time_s", "class")
    )
    n = (len(times) // every) * every
    if n == 0:
        return full.clear()
    index = {t: i // every for i, t in enumerate(times[:n])}
    return (
        full.filter(pl.col("time_s").is_in(times[:n]))
        .with_columns(
            pl.col("time_s").replace_strict(index, return_dtype=pl.Int64).alias("interval")
        )
        .group_by("interval", "class")
        .agg(pl.col("time_s").max(), pl.col("throughput_bps").mean())
        .sort("interval", "class")
        .select("time_s", "class", "throughput_bps")
    )


__all__ = ["class_link_throughput", "class_throughput_on", "flow_link_shares"]
