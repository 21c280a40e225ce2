//! WVCC's shim: the virtual congestion control core of [`crate::schemes::acdc`] with the
//! weighted law of Uranus Eq. (7).

use crate::error::Result;
use crate::schemes::acdc::{check_gain, VccLaw, VccShim};
use serde::{Deserialize, Serialize};

/// WVCC's law, Uranus §4.3 Eq. (7): on an ACK echoing CE (at most once per window of data,
/// footnote 1) `cwnd* ← cwnd*·(1 − α/2)`, DCTCP's cut; otherwise `cwnd* ← cwnd* + w/cwnd*`
/// in packets, i.e. `w·MSS·acked/cwnd*` bytes for `acked` bytes acknowledged (byte counting,
/// so an ACK covering two segments adds twice as much, as TCP's congestion avoidance).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WvccLaw;

impl VccLaw for WvccLaw {
    fn increase(&self, cwnd: f64, acked: u64, mss: u64, w: f64) -> f64 {
        w * mss as f64 * acked as f64 / cwnd
    }
    fn cut_factor(&self, alpha: f64, _w: f64) -> f64 {
        1.0 - alpha / 2.0
    }
}

/// The WVCC shim of one host.
pub type Wvcc = VccShim<WvccLaw>;

/// WVCC's parameters (`host_shim = "wvcc"` with a `[wvcc]` table). Each flow's weight `w` is
/// its spec's weight at its start and follows every weight change
/// ([`crate::engine::packet::PacketSim::set_weight`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WvccConfig {
    /// DCTCP's gain `g` of Eq. (9) (default 1/16: Uranus §4.3 builds on DCTCP and gives no
    /// value of its own; DCTCP §3.4 uses g = 1/16). Must be in (0, 1) (§4.4).
    pub g: f64,
}

impl Default for WvccConfig {
    fn default() -> WvccConfig {
        WvccConfig {
            g: crate::schemes::dctcp::DCTCP_G,
        }
    }
}

impl WvccConfig {
    /// Checks the ranges; errors name the field under `at`.
    pub fn validate(&self, at: &str) -> Result<()> {
        check_gain(self.g, at)
    }

    /// The shim of one host, for MSS `mss` and the guests' initial window `init_cwnd` bytes.
    /// Weights are not bounded (Eq. 7 writes `w < 1`, but nothing in the law needs it: a
    /// weight of 2 is two unit flows' increase).
    pub fn build(&self, mss: u64, init_cwnd: u64) -> Wvcc {
        VccShim::new(WvccLaw, mss, init_cwnd, self.g, f64::INFINITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packet::host::HostShim;
    use crate::engine::packet::pkt::{Packet, PacketKind};
    use crate::ids::{FlowId, NodeId};
    use crate::units::{Bytes, Time};
    use crate::workload::FlowSpec;

    #[test]
    fn eq_7_adds_w_over_cwnd_packets_per_ack_and_follows_weight_changes() {
        // One CE echo with α = 1 (its initial value) halves cwnd* from 10 to 5 packets and ends
        // slow start; then each one-packet ACK adds w/cwnd* packets (Eq. 7): 0.25/5 packets =
        // 50 bytes with w = 1/4, and 0.75·1000/cwnd* packets after the weight becomes 3/4.
        let mut s = WvccConfig::default().build(1000, 10_000);
        let mut spec = FlowSpec::new(NodeId(0), NodeId(1), Bytes(1 << 40), Time::ZERO);
        spec.weight = 0.25;
        s.on_flow_start(FlowId(0), &spec, Time::ZERO);
        for i in 0..40 {
            let mut d = Packet {
                kind: PacketKind::Data,
                flow: FlowId(0),
                seq: i * 1000,
                payload: 1000,
                ..Packet::default()
            };
            s.on_egress(&mut d, Time::ZERO);
        }
        // One CE echo at 10,000 bytes with α = 1 halves the window and ends slow start.
        let mut a = Packet {
            kind: PacketKind::Ack,
            flow: FlowId(0),
            seq: 1000,
            ece: true,
            ..Packet::default()
        };
        s.on_ingress(&mut a, Time::ZERO);
        assert_eq!(s.flow(FlowId(0)).unwrap().window.cwnd, 5000.0);
        let mut a = Packet {
            kind: PacketKind::Ack,
            flow: FlowId(0),
            seq: 2000,
            ..Packet::default()
        };
        s.on_ingress(&mut a, Time::ZERO);
        assert!(
            (s.flow(FlowId(0)).unwrap().window.cwnd - (5000.0 + 0.25 * 1000.0 / 5.0)).abs() < 1e-9
        );
        s.on_weight(FlowId(0), 0.75);
        let before = s.flow(FlowId(0)).unwrap().window.cwnd;
        let mut a = Packet {
            kind: PacketKind::Ack,
            flow: FlowId(0),
            seq: 3000,
            ..Packet::default()
        };
        s.on_ingress(&mut a, Time::ZERO);
        let grown = s.flow(FlowId(0)).unwrap().window.cwnd - before;
        assert!(
            (grown - 0.75 * 1000.0 * 1000.0 / before).abs() < 1e-9,
            "{grown}"
        );
        assert_eq!(a.window, s.flow(FlowId(0)).unwrap().window.cwnd as u64);
    }

    #[test]
    fn g_outside_0_1_is_an_error() {
        for g in [0.0, 1.0, -0.5, f64::NAN] {
            let e = WvccConfig { g }.validate("packet config.wvcc").unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("packet config.wvcc.g: must be in (0, 1)"),
                "{e}"
            );
        }
    }
}
