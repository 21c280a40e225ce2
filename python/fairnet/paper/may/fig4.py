"""MAY §III-E, Fig. 4: mean flow completion time (in RTTs) against flow size when every packet
is dropped with a fixed probability p: LAS (p = 0), MAY (p = 1/S₀, S₀ = 1000) and FIFO
(p = 0.01), delayed ACKs, ``ssthresh`` 2 and ∞, 100 runs per size.

Paper: "a simple model of TCP with delayed acknowledgements (one ack per two packets) and
without (upper) limitation in cwnd where each packet is dropped with probability p ... the
standard mathematical model of additive increase - multiplicative decrease cwnd control and
constant loss rate; see [16] or [7]". A plot only: "a slight increase in FCT between MAY and
LAS".

Ours, the model in rounds of one RTT (Padhye et al.'s [16] round model): a round sends
``min(⌊cwnd⌋, left)`` packets, each lost with probability p. Without loss the window grows by
one packet per ACK in slow start (``cwnd < ssthresh``) and by 1/cwnd per ACK in congestion
avoidance, with one ACK per two packets (delayed ACKs): ×1.5 per round, +1/2 per round. A
round with losses ends: if at least three packets followed the first loss (three duplicate
ACKs) the losses are resent by fast recovery, costing one more round, and
``ssthresh = cwnd = max(cwnd/2, 2)`` (a resent packet lost again waits for a timeout);
otherwise a timeout of ``T0`` RTTs passes and the window restarts at 1 with
``ssthresh = max(cwnd/2, 2)``. Choices the paper leaves open: the initial
window (1 packet, ns-2's default ``window_init_``) and ``T0`` (4 RTTs: a 200 ms minimum RTO
over 50 ms RTTs, the RTO floor of [16]'s measurements being a few RTTs). The FCT is the number
of rounds (plus timeouts) until every packet has arrived; a flow of one round takes 1 RTT.

Scales: ``smoke`` 6 sizes × 20 runs; ``full`` 20 sizes (1–1000 packets) × the paper's 100
runs. Seeded: the same run gives the same numbers.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from fairnet.paper.entry import Entry, PaperResult
from fairnet.paper.plots import pyplot, save_figure
from fairnet.paper.tables import Column, ResultTable, key

S0 = 1000
#: Fig. 4's three drop probabilities (§III-E).
SCHEMES = {"LAS": 0.0, "MAY": 1 / S0, "FIFO": 0.01}
#: Fig. 4 is a plot without numbers; §III-E's reading of it.
PAPER = "a plot: a slight increase in FCT between MAY and LAS, FIFO above both"
SSTHRESH = {"∞": math.inf, "2": 2.0}
#: Timeout in RTTs and the initial window (choices: see the module doc).
T0_RTTS = 4.0
INIT_CWND = 1.0
SIZES = {
    "smoke": [1, 10, 50, 100, 500, 1000],
    "full": [
        1,
        2,
        5,
        10,
        20,
        50,
        75,
        100,
        150,
        200,
        250,
        300,
        400,
        500,
        600,
        700,
        800,
        900,
        950,
        1000,
    ],
}


def fct_rtts(size: int, p: float, ssthresh: float, rng: np.random.Generator) -> float:
    """One flow of ``size`` packets under the round model (module doc); its FCT in RTTs."""
    cwnd, thresh, left, t = INIT_CWND, ssthresh, size, 0.0
    while left > 0:
        n = min(int(cwnd), left)
        lost = rng.random(n) < p if p > 0 else np.zeros(n, dtype=bool)
        t += 1.0
        if not lost.any():
            left -= n
            acks = math.ceil(n / 2)  # delayed ACKs: one per two packets
            for _ in range(acks):
                cwnd += 1.0 if cwnd < thresh else 1.0 / cwnd
            continue
        first = int(np.argmax(lost))
        left -= n - int(lost.sum())
        thresh = max(cwnd / 2, 2.0)
        if n - first - 1 >= 3:
            # Fast retransmit: the losses are resent in one more round; a resent packet lost
            # again waits for the timeout.
            t += 1.0
            k = int(lost.sum())
            again = int((rng.random(k) < p).sum())
            left -= k - again
            cwnd = thresh
            if again:
                t += T0_RTTS
                cwnd = 1.0
        else:
            t += T0_RTTS
            cwnd = 1.0
    return t


def run(scale: str, outdir: Path, console: Console, runs: int) -> PaperResult:
    rng = np.random.default_rng(4)
    rows: list[dict[str, Any]] = []
    for st_name, st in SSTHRESH.items():
        for scheme, p in SCHEMES.items():
            for size in SIZES[scale]:
                fct = [fct_rtts(size, p, st, rng) for _ in range(runs)]
                rows.append(
                    {
                        "ssthresh": st_name,
                        "scheme": scheme,
                        "p": p,
                        "size_packets": size,
                        "mean_fct_rtts": float(np.mean(fct)),
                        "paper": PAPER,
                    }
                )
    plt = pyplot()
    fig, axes = plt.subplots(2, 1, figsize=(7.0, 6.5), sharex=True)
    for ax, st_name in zip(axes, SSTHRESH, strict=True):
        for scheme in SCHEMES:
            sel = [r for r in rows if r["ssthresh"] == st_name and r["scheme"] == scheme]
            ax.plot(
                [r["size_packets"] for r in sel],
                [r["mean_fct_rtts"] for r in sel],
                marker="o",
                ms=3,
                label=f"{scheme} (p = {SCHEMES[scheme]:g})",
            )
        ax.set(ylabel="mean FCT (RTTs)", title=f"ssthresh = {st_name}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[1].set_xlabel("flow size (packets)")
    t = ResultTable(
        f"MAY Fig. 4 ({scale}): mean FCT in RTTs, drop probability p, {runs} runs per size",
        (
            key("ssthresh"),
            key("size"),
            Column("LAS p=0", "ours"),
            Column("MAY p=1/S₀", "ours"),
            Column("FIFO p=0.01", "ours"),
            Column("MAY/LAS", "ours"),
        ),
        note="Round model of TCP with delayed ACKs (module doc). Paper: a plot; 'a slight "
        "increase in FCT between MAY and LAS', FIFO well above both.",
    )
    for st_name in SSTHRESH:
        for size in SIZES[scale]:
            v = {
                r["scheme"]: r["mean_fct_rtts"]
                for r in rows
                if r["ssthresh"] == st_name and r["size_packets"] == size
            }
            t.add_row(
                st_name,
                str(size),
                f"{v['LAS']:.2f}",
                f"{v['MAY']:.2f}",
                f"{v['FIFO']:.2f}",
                f"{v['MAY'] / v['LAS']:.3f}",
            )
    t.print(console)
    return PaperResult(rows, save_figure(fig, outdir, "may-fig4"), [t])


ENTRY = Entry(
    name="may-fig4",
    title="MAY: FCT against size under drop probability 0 (LAS), 1/S₀ (MAY), 0.01 (FIFO)",
    paper="MAY (Stanojević & Shorten), §III-E",
    figure="Fig. 4",
    scales={
        "smoke": "6 sizes (1–1000 packets), ssthresh 2 and ∞, 20 runs each",
        "full": "20 sizes, ssthresh 2 and ∞, the paper's 100 runs each",
    },
    run_fn=run,
    runs={"smoke": 20, "full": 100},
)
