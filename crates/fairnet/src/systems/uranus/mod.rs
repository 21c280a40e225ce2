//! Uranus (`../shared/papers/uranus-wvcc.txt`): WVCC, its per-flow weight enforcement (§4,
//! §5.1). The slice scheduler (§3) is not here yet.
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

pub mod model;
pub mod wvcc;

#[cfg(test)]
mod tests;
