"""The standing check of fairnet's lossless RDMA baselines against the HPCC ns-3 simulator.

``tests/data/hpcc_ns3/`` holds the simulator's own inputs (a k = 4 fat-tree at 100 Gb/s and
1 µs written by ``fairnet topology build``, web-search flow lists from its traffic generator, a
15-to-1 incast) and its outputs (``fct.txt``, ``pfc.txt``) for ``run.py --cc hp``, ``dcqcn``,
``dcqcn_paper``, ``dctcp`` and ``timely``; its README says exactly how they were made. Here
fairnet runs the same files with the matching settings (:func:`fairnet.hpcc.run_py_engine`:
presets, marking, lossless switches with the simulator's MMU) and each figure is held against
the simulator's, under the simulator's definition: the FCT ends at the sender's ACK of the
last byte and is divided by the simulator's standalone FCT of the same flow
(:func:`fairnet.hpcc.match_fct`), clamped at 1 as its ``fct_analysis.py`` does.

The cases are the smallest that show every scheme's behaviour in every size bucket: 496 flows
at 30% and at 50% load (64 / 199 / 80 / 153 flows below 10 KB, to 100 KB, to 1 MB, above; the
same flows, the arrivals closer at 50%), about 1 s of CPU per scheme and load.
docs/validation.md sets the larger cases (2,114 flows at 30% and 50%) side by side through
``scripts/hpcc_ns3_validation.py``.

Tolerances, and why. The two simulators run the same algorithms on the same flows, but not
the same packet orders (ECMP hashes, RED's random marks and tie-breaking differ), so each
figure carries seed noise. It was measured on these cases by rerunning fairnet under five
ECMP seeds (``python scripts/hpcc_ns3_validation.py smoke30 --seeds 5``, and ``smoke50``;
written down in docs/validation.md). At 30% the max/min ratio over seeds of a bucket's median
slowdown is at most 1.23; of a bucket's mean at most 1.35 above 100 KB and 1.36 below (64
flows); of the overall p95 at most 1.19, of the overall p99 up to 2.08; fairnet / ns-3 over
the five seeds spans 0.88–1.14 for the medians and 0.84–1.40 for the means. At 50% the same
except the medians below 100 KB (up to 1.89, below) and the overall p95 and p99 (1.39 and
1.51). The reference's own noise is of the same kind. Hence, per scheme, fairnet / ns-3:

- the median of each bucket within ``P50_TOL`` (25%): the seed spread, with the reference's
  noise beside it; a lost knob moves a bucket's median more (fairnet's default DCQCN preset,
  the DCQCN paper's values with its target-rate clamping, in place of the simulator's: above
  1 MB, 1.93 against the simulator's 2.65, −27%). At 50% load the medians of the two buckets
  below 100 KB within a factor ``P50_SMALL_50`` (2): there a small flow either meets a
  standing queue or not, and its bucket's median moves with the ECMP seed far more (five
  seeds, ``scripts/hpcc_ns3_validation.py smoke50 --seeds 5``: a max/min of up to 1.89,
  ``dcqcn_paper`` below 10 KB, 1.23 to 2.32; at most 1.26 for the other schemes);
- the mean of each bucket and of all flows within a factor ``MEAN_TOL`` (1.5 above 100 KB and
  overall, 2 below, where 64 flows give a tail-dominated mean);
- the overall p95 within a factor 2 and the p99 within a factor 3 (the tail's seed spread is
  up to 2.1 on its own).

Every scheme is held to the same tolerances; the differences that remain inside them (DCTCP's
tails, the small flows' tails under DCQCN and TIMELY) are measured and explained in
docs/validation.md.
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fairnet
from fairnet.hpcc import match_fct, read_fct, run_py_scenario
from fairnet.runner import slowdown_by_size

DATA = Path(__file__).parent / "data" / "hpcc_ns3"
#: maxRtt of the k = 4 fat-tree at 100 Gb/s, 1 µs (the simulator prints ``maxRtt=12480``).
MAX_RTT_NS = 12_480
CCS = ("hp", "dcqcn", "dcqcn_paper", "dctcp", "timely")
#: The flow lists held side by side: 496 flows at 30% and at 50% load.
CASES = ("smoke30", "smoke50")
P50_TOL = 0.25
#: At 50% load, the factor for the medians of the buckets below 100 KB (the seed spread there).
P50_SMALL_50 = 2.0
MEAN_TOL = {"small": 2.0, "large": 1.5}
P95_TOL, P99_TOL = 2.0, 3.0
#: The incast's pause count: fairnet's spread over ECMP seeds 0-7 (6 to 24 pauses).
PAUSE_TOL = 4.0


def _buckets(size: np.ndarray, slowdown: np.ndarray) -> dict[str, dict[str, Any]]:
    sd = np.where(np.isfinite(slowdown), np.maximum(slowdown, 1.0), np.nan)
    rows = {r["bin"]: r for r in slowdown_by_size(size, sd)}
    done = np.isfinite(sd)
    rows["all"] = {
        "flows": int(done.sum()),
        **{f"p{q}": float(np.percentile(sd[done], q)) for q in (50, 95, 99)},
        "mean": float(sd[done].mean()),
    }
    return rows


def _scenario(flows: str, cc: str, buffer: str | None = None) -> dict[str, Any]:
    sc = run_py_scenario(DATA / "fat4.txt", DATA / flows, cc, max_rtt_ns=MAX_RTT_NS)
    if buffer is not None:  # BUFFER_SIZE in MiB, as the simulator's config reads it
        sc["engine"]["shared_buffer"] = {"size": buffer}
        sc["topology"]["buffer"] = buffer
    return sc


@pytest.fixture(scope="module", params=[(case, cc) for case in CASES for cc in CCS])
def side_by_side(request: pytest.FixtureRequest) -> tuple[str, dict, dict]:
    case, cc = request.param
    fct = read_fct(DATA / f"fct_{case}_{cc}.txt")
    theirs = _buckets(fct["size"].to_numpy(), fct["slowdown"].to_numpy())
    run = fairnet.run(_scenario(f"{case}.txt", cc))
    assert run.summary["pfc"]["pauses"] == 0  # the simulator sent none at these loads either
    f = match_fct(run.flows, fct)
    ours = _buckets(f["size"].to_numpy(), f["slowdown_ns3"].fill_null(np.nan).to_numpy())
    return f"{case} {cc}", theirs, ours


def test_the_data_is_what_the_readme_says() -> None:
    # The smoke flow lists and each reference fct.txt: 496 flows on 16 hosts at each load, every
    # flow finished in the simulator; the incast: 15 senders of 1 MB to host 0.
    from fairnet.hpcc import read_flows

    for case in CASES:
        flows = read_flows(DATA / f"{case}.txt")
        assert flows.height == 496 and set(flows["src"]) | set(flows["dst"]) <= set(range(16))
        for cc in CCS:
            assert read_fct(DATA / f"fct_{case}_{cc}.txt").height == 496, (case, cc)
    incast = read_flows(DATA / "incast.txt")
    assert incast.height == 15 and set(incast["dst"]) == {0} and set(incast["size"]) == {10**6}


def test_fairnet_matches_the_simulator_per_size_bucket(side_by_side: tuple) -> None:
    label, theirs, ours = side_by_side  # label: "smoke50 dcqcn"
    half_load = label.startswith("smoke50")
    report = "\n".join(
        f"{label} {b}: ns-3 p50/p95/p99/mean {t['p50']:.2f}/{t['p95']:.2f}/{t['p99']:.2f}/"
        f"{t['mean']:.2f}, fairnet {ours[b]['p50']:.2f}/{ours[b]['p95']:.2f}/"
        f"{ours[b]['p99']:.2f}/{ours[b]['mean']:.2f}"
        for b, t in theirs.items()
    )
    print(report)
    for b, t in theirs.items():
        o = ours[b]
        assert o["flows"] == t["flows"], f"{label} {b}: a flow did not finish in fairnet\n{report}"
        small = b in ("<10KB", "10KB-100KB")
        p50 = P50_SMALL_50 if small and half_load else 1 + P50_TOL
        checks = [("p50", p50), ("mean", MEAN_TOL["small" if small else "large"])]
        if b == "all":
            checks += [("p95", P95_TOL), ("p99", P99_TOL)]
        for figure, factor in checks:
            ratio = o[figure] / t[figure]
            assert 1 / factor <= ratio <= factor, (
                f"{label} {b} {figure}: fairnet {o[figure]:.3f} / ns-3 {t[figure]:.3f} = "
                f"{ratio:.3f}, outside x{factor}\n{report}"
            )


def _pauses(text: str) -> collections.Counter:
    """Pause frames per (node, node type, interface) of a ``pfc.txt`` (type 1 = pause)."""
    c: collections.Counter = collections.Counter()
    for line in text.splitlines():
        _, node, kind, ifx, typ = line.split()
        if typ == "1":
            c[(int(node), int(kind), int(ifx))] += 1
    return c


@pytest.mark.parametrize(
    ("case", "cc", "buffer"),
    [("incast", "dcqcn", None), ("incast", "hp", None), ("incast4mb", "dcqcn", "4MiB")],
)
def test_incast_pauses_beside_the_simulators_pfc_txt(
    case: str, cc: str, buffer: str | None
) -> None:
    # A 15-to-1 incast of 1 MB flows into host 0. With run.py's 32 MiB of switch memory DCQCN
    # (starting at line rate) fills the memory of pod 0's edge switch until it pauses the
    # aggregation switches feeding it, and only them; HPCC keeps its queues near empty and
    # never pauses. With 4 MiB the pauses propagate back through the cores to the senders'
    # NICs. Expected in fairnet as in the simulator: the same of those three outcomes (no
    # pause / switch ports only / hosts too), the pause count within PAUSE_TOL (which of the
    # aggregation switches the 15 flows hash to decides how often each pauses: over fairnet's
    # ECMP seeds 0-7 the 32 MiB case pauses 6 to 24 times, a spread of 4; the simulator's 23
    # and 581 lie inside fairnet's seed ranges, 6-24 and 602-722), and the last FCT within
    # 20% of the simulator's (the incast's drain time; seeds 0-7: 1,425-1,495 µs against its
    # 1,430, and 1,315-1,530 against 1,472).
    sc = _scenario("incast.txt", cc, buffer)
    run = fairnet.run(sc)
    ours = _pauses(run.pfc_txt or "")
    theirs = _pauses((DATA / f"pfc_{case}_{cc}.txt").read_text())
    f = match_fct(run.flows, read_fct(DATA / f"fct_{case}_{cc}.txt"))
    n_ours, n_theirs = sum(ours.values()), sum(theirs.values())
    msg = f"{case} {cc}: fairnet {n_ours} pauses {dict(ours)}; ns-3 {n_theirs} {dict(theirs)}"
    print(msg)
    hosts = {
        k: any(kind == 0 for (_, kind, _) in c) for k, c in (("ours", ours), ("theirs", theirs))
    }
    assert (n_ours == 0) == (n_theirs == 0), msg
    assert hosts["ours"] == hosts["theirs"], msg
    if n_theirs:
        assert 1 / PAUSE_TOL <= n_ours / n_theirs <= PAUSE_TOL, msg
    last = f["fct_ack_s"].max() / f["fct_ns3_s"].max()
    assert 1 / 1.2 <= last <= 1.2, f"{msg}; last FCT ratio {last:.3f}"


def _simulators_paths() -> list[dict[str, Any]]:
    """``engine.paths`` pinning each incast flow to the path the simulator's ECMP gave it
    (``paths_incast.txt``, read from its packet trace; line i: the nodes of flow i)."""
    text = (DATA / "paths_incast.txt").read_text()
    rows = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
    return [{"flow": i, "nodes": [int(n) for n in row]} for i, row in enumerate(rows)]


def test_incast_on_the_simulators_paths_falls_inside_its_own_run_to_run_spread() -> None:
    # The 15-to-1 incast with 4 MiB of switch memory under DCQCN, each flow pinned to the
    # path it takes in the simulator (its ECMP hashes the five-tuple with each switch's node
    # id: the same paths in every run). What is left is RED's random marking, which decides
    # which flows, held at the 1 Gb/s minimum rate behind a queue of about 800 KB (a 6.7% mark
    # probability per packet), see no mark for the 300 µs its rate timer needs to recover.
    # The simulator's own spread over its random-number runs (RngRun 1-10, the kept fct.txt
    # files; docs/validation.md) is a mean FCT of 1,089-1,186 µs and a last FCT of
    # 1,450-1,532 µs, and 535-581 pauses (RngRun 1's pfc.txt: 581). Expected from fairnet on
    # the same paths (seed 0): the mean and the last FCT inside the simulator's ranges, the
    # pause count within 10% of RngRun 1's (its runs reach 8% below it). A measured bound:
    # fairnet's own seeds 0-9 span 1,081-1,173 µs (mean) and 547-609 pauses; on its own ECMP
    # paths seed 0 gives a mean of 1,276 µs, outside.
    sc = _scenario("incast.txt", "dcqcn", "4MiB")
    sc["engine"]["paths"] = _simulators_paths()
    run = fairnet.run(sc)
    runs = [DATA / "fct_incast4mb_dcqcn.txt"] + sorted(DATA.glob("fct_incast4mb_dcqcn_rngrun*.txt"))
    assert len(runs) == 10
    theirs = [read_fct(p)["fct_s"].to_numpy() for p in runs]
    f = match_fct(run.flows, read_fct(runs[0]))
    mean, last = f["fct_ack_s"].mean(), f["fct_ack_s"].max()
    lo_mean, hi_mean = min(t.mean() for t in theirs), max(t.mean() for t in theirs)
    lo_last, hi_last = min(t.max() for t in theirs), max(t.max() for t in theirs)
    pauses = sum(_pauses(run.pfc_txt or "").values())
    ref_pauses = sum(_pauses((DATA / "pfc_incast4mb_dcqcn.txt").read_text()).values())
    msg = (
        f"fairnet mean {mean * 1e6:.0f} us, last {last * 1e6:.0f} us, {pauses} pauses; ns-3 "
        f"runs: mean {lo_mean * 1e6:.0f}-{hi_mean * 1e6:.0f}, last {lo_last * 1e6:.0f}-"
        f"{hi_last * 1e6:.0f}, {ref_pauses} pauses in RngRun 1"
    )
    print(msg)
    assert lo_mean <= mean <= hi_mean, msg
    assert lo_last <= last <= hi_last, msg
    assert abs(pauses / ref_pauses - 1) <= 0.10, msg


def test_hpcc_incast_on_the_simulators_paths_matches_its_fcts() -> None:
    # HPCC has no random element in either simulator (no RED marks; INT feedback), so on the
    # simulator's paths the 15-to-1 incast (32 MiB, no pause in either) is one outcome on each
    # side, and what differs is modelling. Expected: the mean and the last FCT within 2% of
    # the simulator's (measured: 1,218 against 1,216 µs and 1,409 against 1,412 µs; 1,207 and
    # 1,416 before HPCC's paced release followed its rate both ways; on fairnet's own ECMP
    # paths, seeds 0-4, the mean spans 1,194-1,229 µs).
    sc = _scenario("incast.txt", "hp")
    sc["engine"]["paths"] = _simulators_paths()
    run = fairnet.run(sc)
    f = match_fct(run.flows, read_fct(DATA / "fct_incast_hp.txt"))
    for figure, ours, theirs in (
        ("mean", f["fct_ack_s"].mean(), f["fct_ns3_s"].mean()),
        ("last", f["fct_ack_s"].max(), f["fct_ns3_s"].max()),
    ):
        msg = f"{figure} FCT: {ours * 1e6:.0f} against {theirs * 1e6:.0f} us"
        assert abs(ours / theirs - 1) <= 0.02, msg


def test_bad_input_is_one_line_naming_what_is_wrong() -> None:
    # An unknown run.py congestion control, and a simulator fct.txt of another flow list (the
    # incast's flows against the smoke case's file: none of the 15 flows is in it).
    from fairnet.errors import InputError
    from fairnet.hpcc import run_py_engine

    with pytest.raises(InputError, match="cc: unknown run.py congestion control 'bbr'"):
        run_py_engine("bbr", max_rtt_ns=MAX_RTT_NS)
    run = fairnet.run(_scenario("incast.txt", "hp"))
    with pytest.raises(InputError, match=r"fct.txt: 496 of its 496 lines match no flow"):
        match_fct(run.flows, read_fct(DATA / "fct_smoke30_hp.txt"))
