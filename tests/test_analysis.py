"""fairnet.analysis: path membership and per-link class throughput, on cases worked by hand."""

from __future__ import annotations

import polars as pl
import pytest

from fairnet.analysis import class_link_throughput, class_throughput_on, flow_link_shares
from fairnet.errors import InputError

#: A k = 4 fat-tree: hosts 0–15 (two per edge switch, four per pod), then the switches.
K4 = {"kind": "fat_tree", "k": 4}


def scenario(routing: str) -> dict:
    return {"topology": K4, "engine": {"kind": "packet", "routing": routing, "seed": 3}}


#: Flow 0: host 0 → host 15 (another pod); flow 1: host 0 → host 1 (the same edge switch);
#: flow 2: host 2 → host 15 (another pod).
FLOWS = pl.DataFrame({"src": [0, 0, 2], "dst": [15, 1, 15]})


def test_sprayed_shares_split_evenly_and_count_two_rack_core_links_between_racks() -> None:
    # Under flowcells each hop splits evenly: an inter-pod flow crosses 14 links (shares 1,
    # 1/2 × 2, 1/4 × 4, 1/4 × 4, 1/2 × 2, 1) summing to its 6 hops, and of them the rack–core
    # links are its edge switch's 2 uplinks and the destination edge's 2 downlinks, 1/2 each
    # (2 in all: one uplink and one downlink per path). The intra-rack flow crosses 2 links,
    # neither rack–core.
    s = flow_link_shares(scenario("flowcell"), FLOWS)
    f0 = s.filter(pl.col("flow") == 0)
    assert len(f0) == 14
    assert f0["share"].sum() == pytest.approx(6.0)
    rc = f0.filter(pl.col("rack_core"))
    assert sorted(rc["share"].to_list()) == [0.5, 0.5, 0.5, 0.5]
    f1 = s.filter(pl.col("flow") == 1)
    assert f1["share"].to_list() == [1.0, 1.0]
    assert not f1["rack_core"].any()
    # Per-flow ECMP: the engine's one path, share 1 on each of its 6 links, 2 of them
    # rack–core.
    e = flow_link_shares(scenario("ecmp"), FLOWS).filter(pl.col("flow") == 0)
    assert e["share"].to_list() == [1.0] * 6
    assert e["rack_core"].sum() == 2


def test_class_throughput_is_rate_times_share_summed_over_the_class() -> None:
    # Rates (b/s) at two samples: flow 0 (class 0) 4e9 then 2e9; flow 1 (class 1) 6e9 both
    # times; flow 2 (class 1) 2e9 both times. On the rack–core links (each inter-rack flow
    # crosses 2 in all, the intra-rack flow none): class 0 puts 2 × 4e9 = 8e9 then 4e9, class
    # 1 puts 2 × 2e9 = 4e9 (flow 1 nothing). Averaged over both samples (every = 2): 6e9 and
    # 4e9, labelled by the second sample's time. On one uplink of host 0's edge switch, class
    # 0 puts 1/2 · 4e9 = 2e9 at the first sample and class 1 nothing (flow 2 starts at
    # another edge switch).
    shares = flow_link_shares(scenario("flowcell"), FLOWS)
    rates = pl.DataFrame(
        {
            "time_s": [0.001] * 3 + [0.002] * 3,
            "flow": [0, 1, 2, 0, 1, 2],
            "rate_bps": [4e9, 6e9, 2e9, 2e9, 6e9, 2e9],
        }
    )
    classes = {0: 0, 1: 1, 2: 1}
    rack_core = shares.filter(pl.col("rack_core"))["link"].unique().to_list()
    t = class_throughput_on(rates, shares, classes, rack_core)
    assert t.filter(pl.col("class") == 0)["throughput_bps"].to_list() == [8e9, 4e9]
    assert t.filter(pl.col("class") == 1)["throughput_bps"].to_list() == [4e9, 4e9]
    avg = class_throughput_on(rates, shares, classes, rack_core, every=2)
    assert avg["time_s"].to_list() == [0.002, 0.002]
    assert avg["throughput_bps"].to_list() == [6e9, 4e9]
    up = shares.filter((pl.col("flow") == 0) & pl.col("rack_core"))["link"][0]
    per_link = class_link_throughput(rates, shares, classes, [up])
    first = per_link.filter(pl.col("time_s") == 0.001)
    assert first["class"].to_list() == [0]
    assert first["throughput_bps"].to_list() == [2e9]
    # A table of classes gives the same; a class with no flow sample in an interval is 0.
    table = pl.DataFrame({"flow": [0, 1, 2], "class": [0, 1, 1]})
    assert class_throughput_on(rates, shares, table, rack_core).equals(t)
    quiet = rates.filter(~((pl.col("flow") == 0) & (pl.col("time_s") == 0.002)))
    q = class_throughput_on(quiet, shares, classes, rack_core)
    assert q.filter(pl.col("class") == 0)["throughput_bps"].to_list() == [8e9, 0.0]


def test_bad_input_names_what_is_wrong() -> None:
    with pytest.raises(InputError, match=r"^engine.kind: path membership"):
        flow_link_shares({"topology": K4, "engine": {"kind": "flow"}}, FLOWS)
    with pytest.raises(InputError, match=r"^flows\[1\]: path"):
        flow_link_shares(scenario("ecmp"), pl.DataFrame({"src": [0, 3], "dst": [15, 3]}))
    with pytest.raises(InputError, match=r"^routing: unknown mode"):
        flow_link_shares(scenario("teleport"), FLOWS)
    with pytest.raises(InputError, match=r"^rates: missing column\(s\) rate_bps"):
        class_link_throughput(pl.DataFrame({"time_s": [0.1], "flow": [0]}), FLOWS, {0: 0})
    shares = flow_link_shares(scenario("ecmp"), FLOWS)
    with pytest.raises(InputError, match=r"^every: expected at least 1"):
        class_throughput_on(
            pl.DataFrame({"time_s": [0.1], "flow": [0], "rate_bps": [1.0]}), shares, {0: 0}, [], 0
        )
