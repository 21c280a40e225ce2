"""The rounds engine on explicit instances: s-PERC's numerical simulations (§8.1) from Python.

:func:`run_instance` runs one distributed rate algorithm (*Fair*, n-PERC, s-PERC with the
ignore bit, basic s-PERC, s-PERC*) on given link capacities and flow paths, and returns its
convergence time in **rounds** and in **mean control-packet RTTs**, with N₁/N₂/N∞ and the final
error. See ``docs/python-api.md`` and ``docs/rounds-engine.md``.

Two convergence criteria (``criterion``):

- ``"strict"`` (the engine's default): every allocation the control packet carries is within
  ``tolerance`` (default 1e-6) of the flow's max-min rate for every traversal from then on
  (s-PERC §2 assumption 12).
- ``"rate"``: every flow's *sending rate* (the smallest allocation) is within ``tolerance``
  (default 0.01) of its max-min rate from then on: the criterion of the s-PERC authors'
  simulator, the one behind the paper's Fig. 6 ("the last time any flow's rate is more than 1%
  from its max-min rate").

Delay models (``delay``): ``"equal"`` — every hop takes the same delay (10 µs, jittered by at
most 100 ps to break ties at random, as the authors' simulator does), so every flow's RTT is the
same and one round is one RTT (Fig. 6's caption: "s-PERC: 1 round = 1 RTT"); ``"uniform"`` —
the engine's default, a fresh delay in [0, 1 µs] at every hop, one round = the largest possible
RTT = two mean RTTs; or any ``[engine] delay`` table of a rounds scenario as a dict
(``{"kind": "per_link", "min": "0us", "max": "1us"}``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from fairnet import _core
from fairnet.alloc import PathsLike, paths_to_csr

#: Every hop 10 µs (the authors' ``link_delay``), jittered by at most 100 ps so that flows
#: reaching a link at the same nominal time are seen in a random, drifting order (the authors
#: add at most 100·1e-12 µs per hop for the same purpose). All RTTs are equal to within 1e-5.
EQUAL_DELAY: dict[str, str] = {"kind": "uniform", "min": "10us", "max": "10.0001us"}
#: The rounds engine's default: a fresh uniform delay in [0, 1 µs] at every hop.
UNIFORM_DELAY: dict[str, str] = {"kind": "uniform", "min": "0us", "max": "1us"}
DELAYS = {"equal": EQUAL_DELAY, "uniform": UNIFORM_DELAY}
ALGORITHMS = ("fair", "n_perc", "s_perc", "s_perc_basic", "s_perc_star")
DEFAULT_TOLERANCE = {"strict": 1e-6, "rate": 0.01}

Criterion = Literal["strict", "rate"]


@dataclass(frozen=True)
class RoundsResult:
    """One run of the rounds engine on one instance.

    ``rounds`` / ``rtts``: convergence time under the chosen ``criterion`` in rounds and in mean
    control-packet RTTs (``None``: not converged within ``max_rounds``). Both criteria are
    also given (``strict_rounds``, ``rate_rounds``; the rate criterion at ``rate_tolerance``).
    """

    algorithm: str
    criterion: str
    rounds: float | None
    rtts: float | None
    strict_rounds: float | None
    rate_rounds: float | None
    #: Length of a round (the largest possible RTT) and the mean control-packet RTT, seconds.
    round_s: float
    mean_rtt_s: float
    n1: int
    n2: int
    ninf: int
    #: Largest relative error of the final sending rates against the oracle.
    max_rel_error: float
    rounds_run: float
    exceeds_6n2: bool
    exceeds_4n1: bool
    rates: np.ndarray
    oracle: np.ndarray

    def in_rtts(self, rounds: float | None) -> float | None:
        """A time in rounds of this run, in mean RTTs."""
        return None if rounds is None else rounds * self.round_s / self.mean_rtt_s


def run_instance(
    capacities: Sequence[float] | np.ndarray,
    paths: PathsLike,
    *,
    algorithm: str = "s_perc",
    delay: str | dict[str, Any] = "equal",
    criterion: Criterion = "strict",
    tolerance: float | None = None,
    seed: int = 1,
    max_rounds: int = 200,
    timer: str = "round",
    two_way: bool = True,
    stable_rounds: int = 5,
) -> RoundsResult:
    """Runs ``algorithm`` on links of ``capacities`` (b/s) crossed by ``paths`` (each the
    ordered list of its link indices, the order the control packet crosses them).

    ``algorithm``: ``"fair"`` (Algorithm 2), ``"n_perc"`` (Algorithm 3), ``"s_perc"``
    (Algorithm 4, ignore bit), ``"s_perc_basic"`` (no ignore bit: the link propagates
    max(MaxE, b); the variant Fig. 6 plots) or ``"s_perc_star"`` (Algorithm 6).
    Bad input raises ``ValueError`` with a one-line message naming the field.
    """
    if criterion not in DEFAULT_TOLERANCE:
        raise ValueError(f"criterion: expected 'strict' or 'rate', got {criterion!r}")
    if isinstance(delay, str):
        if delay not in DELAYS:
            raise ValueError(f"delay: expected one of {sorted(DELAYS)} or a dict, got {delay!r}")
        delay_table: dict[str, Any] = DELAYS[delay]
    else:
        delay_table = dict(delay)
    tol = DEFAULT_TOLERANCE[criterion] if tolerance is None else float(tolerance)
    spec: dict[str, Any] = {
        "algorithm": algorithm,
        "delay": delay_table,
        "max_rounds": int(max_rounds),
        "timer": timer,
        "two_way": bool(two_way),
        "stable_rounds": int(stable_rounds),
    }
    # The strict criterion keeps the engine's 1e-6 for the rate column too; the rate criterion
    # sets the rate tolerance and leaves the strict one at its default.
    if criterion == "strict":
        spec["tolerance"] = tol
    else:
        spec["rate_tolerance"] = tol
    caps = np.ascontiguousarray(capacities, dtype=np.float64)
    ptr, links = paths_to_csr(paths)
    out = _core.rounds_instance(caps, ptr, links, json.dumps(spec), int(seed))
    strict, rate = out["convergence_rounds"], out["rate_convergence_rounds"]
    chosen = strict if criterion == "strict" else rate
    round_s, mean_rtt_s = float(out["round_s"]), float(out["mean_rtt_s"])
    rtts = None if chosen is None else chosen * round_s / mean_rtt_s
    return RoundsResult(
        algorithm=out["algorithm"],
        criterion=criterion,
        rounds=chosen,
        rtts=rtts,
        strict_rounds=strict,
        rate_rounds=rate,
        round_s=round_s,
        mean_rtt_s=mean_rtt_s,
        n1=int(out["n1"]),
        n2=int(out["n2"]),
        ninf=int(out["ninf"]),
        max_rel_error=float(out["max_rel_error"]),
        rounds_run=float(out["rounds_run"]),
        exceeds_6n2=bool(out["exceeds_6n2"]),
        exceeds_4n1=bool(out["exceeds_4n1"]),
        rates=np.asarray(out["rates"], dtype=np.float64),
        oracle=np.asarray(out["oracle"], dtype=np.float64),
    )
