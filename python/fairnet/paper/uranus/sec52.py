"""Uranus §5.2's intra-slice experiments as scenario documents, shared by ``uranus-fig10``
(one slice at a time) and ``uranus-fig11-12`` (a DS and a CS slice together).

What §5.2 says and what we run (every choice the paper leaves open is marked *ours*):

- Network: "a 4-ary Fat-Tree … 4 core switches, 8 aggregator switches, 8 ToR switches, each
  ToR switch connected to 8 nodes … edge links … 1 Gbps, and core links 10 Gbps … ECN marking
  threshold set to 65 packets … maximum end-to-end RTT is 300 usec": ``kind =
  "uranus_fat_tree"`` (25 µs per link, 1 MB buffers, *ours*) and DCTCP's step marking at 65
  packets on every port. Routing: "The network is equipped with flowcell load balancing
  module for this simulation" (§5.2): :data:`ROUTING` = ``"flowcell"``, Presto's 64 KB
  flowcells (He et al. §3.1) sprayed over the equal-cost paths, the receiver holding a later
  cell up to 500 µs (§3.2's reassembly; Presto's adaptive timeout not reproduced). The first
  version ran per-flow ECMP; docs/systems/uranus.md gives both.
- Transports: "Deadline-sensitive traffic uses D²TCP … completion-sensitive traffic uses
  L²DCT" — one run, a transport per flow tag (``engine.tag_transports``); the background flows
  run DCTCP (*ours*: the paper does not name theirs; D²TCP without a deadline is DCTCP).
  Timers: RTO floor 10 ms (*ours*: DCTCP's evaluation setting for datacenter RTTs; the
  engine's 1 ms default fires spuriously once a few 65-packet queues at 1 Gb/s add up).
- Workload: web search, Poisson with ``λ = link rate · load / mean size`` (``kind =
  "poisson"``). *Which* link's load (:data:`LOAD_ON`, *ours*): the racks' uplinks
  (``load_on = "rack_uplinks"``: load 1 fills each rack's two 1 Gb/s uplinks in expectation,
  i.e. 18 Gb/s offered in all, load 0.28 of the hosts' links). The reasons: §5.2.2 sets λ "so
  that the average bandwidth requirement of the generated traffic accords with network load",
  and on §5.2's 4:1 fat-tree the network's bottleneck is the rack uplinks (§2.2: "the
  oversubscription usually happens to links between the rack level and the core level");
  §5.2.1 calls slice traffic plus 10% background "a little overloaded", which load 0.9 + 0.1
  on the uplinks is, while on the hosts' links the uplinks would be overloaded ×3.6 at 0.9 and
  past saturation from load 0.17 — leaving Fig. 10 no "lower load pressure" where "the network
  is less congested"; and the transports' own papers (D²TCP, L²DCT, as we recall them) load
  the bottleneck link of their topologies. The hosts' reading (``"hosts"``) was this entry's
  first; docs/systems/uranus.md compares the two. Deadlines exponential with mean 20 ms
  (*ours*: "using guidelines from [27]", L²DCT's, which the repository does not have; about
  1.5× the mean web-search flow's 13 ms alone at 1 Gb/s, as
  ``scenarios/uranus_ds_slice.toml``).
- Background: "background traffic randomly among racks, consuming around 10% bandwidth
  resource" (§5.2.1, the setup of every §5.2 experiment in our reading): ``background = {
  load = 0.1 }``, 10% of the capacity the workload's load refers to (the racks' uplinks),
  between racks, web-search sizes.
- With Uranus: ``host_shim = "wvcc"`` over the same guests, the slice scheduler every 1 ms
  (the scenario default), each slice's ``W_S`` = :data:`SLICE_WEIGHT`, the background in a CS
  slice of its own whose weight is in proportion to its load (*ours*: every flow under WVCC
  needs a weight, and the paper's background is in no slice). Without Uranus: no shim, no
  slices, the guests alone.
- Coexistence (§5.2.2): "the two slices share the same Poisson parameters": one Poisson
  process at the run's load split in two (``workload.tags = 2``: tag 0 DS, tag 1 CS, each
  half the load, *ours*: the total is the figure's load, as in the one-slice runs). The CS
  flows also draw deadlines (the generator draws them for every flow) that nothing reads:
  L²DCT and Algorithm 2 ignore them and only tag 0's misses are counted.
"""

from __future__ import annotations

from typing import Any

#: §5.2's ECN marking threshold (packets).
ECN_K = 65
#: Mean of the exponential deadlines (see the module doc).
DEADLINE_MEAN = "20ms"
#: The lower bound on the drawn deadlines (``workload.deadline_min`` /
#: ``deadline_min_fct_alone``): ``None`` (none), a duration (PDQ's ``"3ms"``) or
#: ``"fct_alone"`` (the flow's FCT alone on the empty network), a draw below it clamped to
#: it, or with the suffix ``":redraw"`` redrawn until it passes it
#: (``deadline_min_redraw``). See the module doc.
DEADLINE_FLOOR: str | None = None
#: Load balancing (§5.2: "flowcell load balancing module"; ``engine.routing``).
ROUTING = "flowcell"
#: Which links ``load`` is a fraction of (``workload.load_on``; see the module doc).
LOAD_ON = "rack_uplinks"
#: Background load, a fraction of the same links' capacity (§5.2.1: "around 10%").
BACKGROUND = 0.1
#: Each slice's operator weight ``W_S`` (the DS and CS slices equal: "expected to share the
#: network equally").
SLICE_WEIGHT = 1.0
#: The guests by objective (§5.2: D²TCP for DS, L²DCT for CS).
GUEST = {"ds": "d2tcp", "cs": "l2dct"}


def scenario(
    load: float,
    objectives: tuple[str, ...],
    uranus: bool,
    flows: int,
    seed: int,
    slice_weight: float = SLICE_WEIGHT,
    load_on: str = LOAD_ON,
    routing: str = ROUTING,
    deadline_floor: str | None = DEADLINE_FLOOR,
) -> dict[str, Any]:
    """One §5.2 run: web search at ``load`` (the total of the slices, before the background)
    of the links ``load_on`` names, with one slice per objective in ``objectives`` (tags 0,
    1, … in that order), ``flows`` flows, routed by ``routing``, under Uranus (WVCC and the
    slice scheduler) or the guests alone; DS deadlines bounded below by ``deadline_floor``
    (:data:`DEADLINE_FLOOR`)."""
    workload: dict[str, Any] = {
        "kind": "poisson",
        "cdf": "websearch",
        "load": load,
        "load_on": load_on,
        "flows": flows,
        "background": {"load": BACKGROUND},
    }
    if len(objectives) > 1:
        workload["tags"] = len(objectives)
    if "ds" in objectives:
        workload["deadline_mean"] = DEADLINE_MEAN
        if deadline_floor is not None:
            bound, _, how = deadline_floor.partition(":")
            if bound == "fct_alone":
                workload["deadline_min_fct_alone"] = True
            else:
                workload["deadline_min"] = bound
            if how == "redraw":
                workload["deadline_min_redraw"] = True
    bg_tag = len(objectives)
    engine: dict[str, Any] = {
        "kind": "packet",
        "transport": "dctcp",
        "tag_transports": [
            {"tag": tag, "transport": GUEST[obj]} for tag, obj in enumerate(objectives)
        ],
        "qdisc": {"kind": "ecn", "k": {"packets": ECN_K}},
        "routing": routing,
        "tcp": {"min_rto": "10ms"},
    }
    doc: dict[str, Any] = {
        "name": f"Uranus §5.2: {'+'.join(objectives)} at load {load:g}"
        f"{' with Uranus' if uranus else ''} (seed {seed})",
        "seed": seed,
        "topology": {"kind": "uranus_fat_tree"},
        "workload": workload,
        "engine": engine,
    }
    if uranus:
        engine["host_shim"] = "wvcc"
        per_slice = load / len(objectives)
        doc["slices"] = [
            {"name": obj, "objective": obj, "weight": slice_weight, "tags": [tag]}
            for tag, obj in enumerate(objectives)
        ] + [
            {
                "name": "background",
                "objective": "cs",
                "weight": slice_weight * BACKGROUND / per_slice,
                "tags": [bg_tag],
            }
        ]
    return doc
