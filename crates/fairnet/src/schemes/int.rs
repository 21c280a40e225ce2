//! In-band network telemetry as HPCC defines it (Li et al., SIGCOMM 2019, §3.2 and Fig. 4):
//! every switch egress appends one record to each data packet.

use crate::engine::packet::pkt::{IntHop, PacketId, PacketKind, PacketPool};
use crate::engine::packet::port::{PortAgent, PortView};

/// Appends one HPCC INT record per egress hop to data packets: dequeue time, the port's
/// transmitted-bytes counter, queue length and line rate (HPCC, SIGCOMM 2019, §3.2 and Fig. 4).
/// Packets already holding [`crate::engine::packet::pkt::MAX_INT_HOPS`] records are left unchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntStamp;

impl PortAgent for IntStamp {
    #[inline]
    fn on_dequeue(&mut self, id: PacketId, pool: &mut PacketPool, port: &PortView) {
        if pool.get(id).kind == PacketKind::Data {
            pool.push_int(
                id,
                IntHop {
                    ts: port.now,
                    tx_bytes: port.tx_bytes,
                    qlen: port.queue_bytes,
                    rate: port.rate,
                },
            );
        }
    }
}
