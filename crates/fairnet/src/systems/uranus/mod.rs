//! Uranus (`../shared/papers/uranus-wvcc.txt`): WVCC, its per-flow weight enforcement (§4,
//! §5.1), and the slice scheduler (§3) in [`slices`].
//!
//! **What the paper says** (§4.3): a shim in the hypervisor datapath, between unmodified guest
//! TCP stacks and the NIC, keeps per-flow state (the kernel module hashes the 4-tuple,
//! §5.1.2), runs DCTCP's congestion estimate `α` (Eq. 9, once per window of data) and a
//! weighted window `cwnd*` (Eq. 7: a cut `cwnd*·(1 − α/2)` on an ACK echoing CE, at most once
//! per window of data, footnote 1; otherwise `cwnd* + w/cwnd*` packets per ACK), with TCP's
//! slow start, congestion avoidance and fast recovery, and enforces it "through changing the
//! receive window (RWND) field in incoming ACK packets … only when cwnd* is smaller than the
//! original RWND". Switches mark CE above DCTCP's threshold. `w` is the flow's weight, which
//! Uranus's scheduler updates every decision slot (Algorithms 1–2).
//!
//! **What is implemented** ([`wvcc`]): [`wvcc::Wvcc`], a [`crate::engine::packet::HostShim`]
//! on every host (`host_shim = "wvcc"`, `[wvcc] g`), built on the virtual congestion control
//! core it shares with the AC/DC baseline ([`crate::schemes::acdc::VccShim`]; the per-flow
//! state, `α`, loss detection, the window rewrite and ECN handling are described there) with
//! the law of Eq. (7) ([`wvcc::WvccLaw`]). Each flow's `w` is its spec's weight at its start
//! and follows [`crate::engine::packet::PacketSim::set_weight`] /
//! [`crate::engine::packet::PacketSim::schedule_weight`] at any time.
//!
//! **Choices the paper leaves open, and why:**
//! - `g = 1/16`: the paper gives none; WVCC "builds on top of DCTCP" and DCTCP §3.4 uses 1/16.
//! - ECN: the shim marks every guest data packet ECT on egress and clears the ECN echo of
//!   every ACK on ingress, whatever the guest (§4.3 says only "uniform congestion signal (i.e.
//!   ECN)"; clearing it keeps a non-ECN guest unconfused and stops an ECN guest from cutting a
//!   second time for a mark the shim already answered, as AC/DC does). The receiver half of
//!   the shim — echoing CE — is the engine's receiver, which echoes CE per packet as DCTCP.
//! - Slow start is TCP's, unweighted (the paper: "shares same features with TCP, such as slow
//!   start"); the weight acts in congestion avoidance only, as Eq. (7) and the fluid model
//!   (Eq. 8) say.
//! - Eq. (7)'s increase is per ACK *of one packet*: with byte counting, an ACK of `acked`
//!   bytes adds `w·MSS·acked/cwnd*` bytes (the same per packet, and right under delayed ACKs).
//! - `w < 1` in Eq. (7) is not enforced: the law needs no bound, and the oracle's weighted
//!   shares depend only on ratios, so weights of any positive size are accepted.
//! - Loss detection, `α`'s start at 1, the 2-MSS floor, the initial `cwnd*` (the guests'
//!   initial window): as in [`crate::schemes::acdc`]'s module doc.
//!
//! **The fluid model** ([`model`]): Eq. (12) on the model engine (`wvcc_fluid`), with AC/DC's
//! Eq. (17) beside it (`acdc_fluid`) and the steady-state shares of Eqs. (16)–(17)
//! ([`model::FluidLaw::window_shares`]); per-flow round trips beyond the paper.
//!
//! Where we differ from the paper and what we measured: `docs/systems/uranus.md`.
//!
//! **The slice scheduler** ([`slices`], §3): slices (objective DS or CS, weight `W_S`, member
//! flows by tag), the big-switch abstraction (a host's rack is its ToR), and per decision slot
//! Eq. (4)/(5) → Eq. (2) → Algorithm 1/2 lines 5–9, giving every active flow a weight. The
//! paper leaves the composition partly implicit; the reading implemented, and why:
//! - *Which flows are "of rack R_i" in Eqs. (4)–(5)*: a flow counts at its source rack and at
//!   its destination rack, once each. §3.3.1: "each flow connects two racks, the resource
//!   demand of a flow actually indicates the demand of the two racks". The normalisation of
//!   Eq. (4) keeps `Σ Wr = W_S` (Eq. 3) whatever the counting.
//! - *How a rack's weight splits between its source and destination roles*: evenly over the
//!   rack's rack-flows, whichever the direction, as Eq. (2) divides `Wr_X` by `Nr_X` with no
//!   regard to direction. Rack-flows are directed (§3.2: "flows in a slice with the same
//!   source-destination rack pair"), and `Nr_X` counts the rack-flows that start or end at X
//!   (X→Y and Y→X are two). This is "the number of other racks" of Eq. (2) when a pair talks
//!   one way, and is the count for which Eq. (2) preserves the total: `Σ Wr_{X→Y} = Σ Wr_X`.
//!   A slice's intra-rack flows form a rack-flow X→X, counted twice in `Nr_X` (once per role),
//!   for the same reason; they never cross the core, so their weight only matters on the
//!   rack's host links.
//! - *Whose weight Algorithm lines 8–9 divide*: the rack-flow's, `Wr_{X→Y}` of Eq. (2) (line 8
//!   writes `W_{R_i}`). §3.2: "at the intra-rack tier, Uranus dynamically divides a rack-flow's
//!   weight to its current running flows"; dividing a rack's weight would give an inter-rack
//!   flow two shares, and the sum would exceed `W_S`.
//! - *Line 5 compounds*: `W* = d·W_prev` scales the flow's weight of the last slot (Table 1:
//!   `W_i^j` is the flow's weight), so for DS it is a multiplicative correction (d = needed
//!   rate / current rate) and for CS the ratio of two flows grows by the ratio of their
//!   remaining sizes every slot. Implemented as written. A flow new to the scheduler enters at
//!   the mean previous weight of its rack-flow (1 if all are new), so it is neither favoured
//!   nor penalised by its history.
//! - *`d` without a measurement*: `T_c = S/B` needs `B`; a flow not yet measured has `d = 1`
//!   (on schedule). A stalled flow (`B = 0`) takes the bound `d = 10³` (the limit of `T_c/D`
//!   as `B → 0`: most likely to fail). A flow past its deadline (`D ≤ 0`) takes the lowest,
//!   `d = 10⁻³`: it has failed, and §3.3.1's stated aim is "to reduce the deadline-miss ratio
//!   by allocating more weight to more likely-to-fail flows", which weight given to a failed
//!   flow cannot serve. The other limit, `T_c/D → ∞` as `D → 0⁺`, was tried first and measured
//!   worse than no slices at all: line 5 compounds `d` every slot, so the flows that had
//!   already missed took nearly all of their rack-flow's weight and starved the ones that could
//!   still finish (docs/systems/uranus.md, "Decision slot"). Deadline schedulers do the same
//!   (D³ quenches flows that cannot make it). `d` is clamped to `[10⁻³, 10³]` and inside a rack-flow no `W*` falls below `10⁻⁹` of the
//!   largest, so weights stay positive and finite over any number of slots. The paper gives
//!   no bound.
//! - *`r = 1/S`* with `S` the remaining bytes (§3.3.2: "the simplest one").
//!
//! Beside it: SCC, the baseline of §2.4, at flow level ([`scc`]) and as virtual tunnels on
//! the packet engine ([`scc_shim`], chosen by [`packet_level::SliceScheduler`]); Fig. 3's toy networks
//! ([`fig3`]); the scheduler driving the flow engine's exact allocation every decision slot
//! ([`flow_level`]), and driving WVCC on the packet engine, measured against the oracle with
//! its weights ([`packet_level`]). Scenarios reach both through `[[slices]]`.

pub mod fig3;
pub mod flow_level;
pub mod model;
pub mod packet_level;
pub mod scc;
pub mod scc_shim;
pub mod slices;
pub mod wvcc;

#[cfg(test)]
mod tests;
