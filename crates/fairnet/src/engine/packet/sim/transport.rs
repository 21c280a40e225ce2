//! The transport glue: delivery at the destination host, receivers and their (delayed) ACKs with SACK blocks, and the senders' timers.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    pub(super) fn deliver(&mut self, now: u64, id: PacketId, h: u32, node: NodeId) {
        if self.cfg.routing == RoutingMode::Flowcell && self.pool.get(id).kind == PacketKind::Data {
            return self.deliver_cell(now, id, h, node);
        }
        self.accept(now, id, h, node);
    }

    /// Flowcell routing (Presto §3.2): data of a later flowcell than the receiver's next
    /// expected byte is held until the gap before it fills or [`FLOWCELL_HOLD`] passes; data of
    /// the expected byte's cell (in order, or a gap inside the cell: a loss) goes through, and
    /// then every held packet it unblocks.
    fn deliver_cell(&mut self, now: u64, id: PacketId, h: u32, node: NodeId) {
        let f = self.pool.get(id).flow.0;
        let seq = self.pool.get(id).seq;
        let fl = &mut self.flows[f as usize];
        let Receiver::Tcp(r) = &fl.receiver else {
            return self.accept(now, id, h, node);
        };
        let next = r.rcv_nxt();
        if seq > next && seq / FLOWCELL_BYTES > next / FLOWCELL_BYTES {
            let held = &fl.cell_held;
            let at = held.partition_point(|&p| self.pool.get(p).seq <= seq);
            fl.cell_held.insert(at, id);
            if fl.cell_hold_until == u64::MAX {
                fl.cell_hold_until = now + FLOWCELL_HOLD.0;
                self.events
                    .push(Time(fl.cell_hold_until), Event::CellHold(f));
            }
            return;
        }
        self.accept(now, id, h, node);
        loop {
            let fl = &mut self.flows[f as usize];
            let Receiver::Tcp(r) = &fl.receiver else {
                return;
            };
            let next = r.rcv_nxt();
            match fl.cell_held.first() {
                Some(&p) if self.pool.get(p).seq / FLOWCELL_BYTES <= next / FLOWCELL_BYTES => {
                    fl.cell_held.remove(0);
                    if fl.cell_held.is_empty() {
                        fl.cell_hold_until = u64::MAX;
                    }
                    self.accept(now, p, h, node);
                }
                _ => return,
            }
        }
    }

    /// Flow `f`'s held flowcells waited [`FLOWCELL_HOLD`]: the gap is a loss; hand every held
    /// packet to the receiver in order (its duplicate ACKs and SACK blocks then tell the
    /// sender).
    pub(super) fn on_cell_hold_event(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.cell_hold_until != now {
            return; // the gap filled, or a later hold took its place
        }
        fl.cell_hold_until = u64::MAX;
        let held = std::mem::take(&mut fl.cell_held);
        let node = fl.spec.dst;
        let h = self.host_of_node[node.0 as usize];
        for p in held {
            self.accept(now, p, h, node);
        }
    }

    /// Delivery proper: counted, seen by the host's shim, handed to the transport.
    fn accept(&mut self, now: u64, id: PacketId, h: u32, node: NodeId) {
        let wire = self.pool.get(id).wire as u64;
        self.c.delivered += wire;
        if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
            shim.on_ingress(self.pool.get_mut(id), Time(now));
        }
        let pkt = *self.pool.get(id);
        let f = pkt.flow.0;
        match pkt.kind {
            PacketKind::Data => {
                self.flows[f as usize].rx_wire += wire;
                self.on_data(now, id, &pkt, h, node)
            }
            PacketKind::Ack => {
                self.tell_nic_share(f);
                let fl = &mut self.flows[f as usize];
                if let Sender::Tcp(s) = &mut fl.sender {
                    s.on_ack(
                        &pkt,
                        self.pool.int_hops(id),
                        self.pool.sack_blocks(id),
                        Time(now),
                    );
                    if s.done() && !fl.finished {
                        fl.finished = true;
                        fl.acked = Some(Time(now));
                        self.finished += 1;
                        self.send_fin(now, f);
                    }
                }
                self.pool.release(id);
                if let Sender::Tcp(_) = &self.flows[f as usize].sender {
                    self.sync_rto(f);
                    self.sync_ctrl(f);
                    self.activate(now, f);
                }
            }
            PacketKind::Control => self.on_control_arrival(now, id, &pkt, node),
        }
    }

    pub(super) fn on_data(&mut self, now: u64, id: PacketId, pkt: &Packet, h: u32, node: NodeId) {
        let f = pkt.flow.0;
        let fl = &mut self.flows[f as usize];
        match &mut fl.receiver {
            Receiver::Udp { received } => {
                *received += pkt.payload as u64;
                if *received >= fl.spec.size.0 && !fl.finished {
                    fl.finished = true;
                    fl.end = Some(Time(now));
                    self.finished += 1;
                    self.nic_level_changed(f);
                }
                self.pool.release(id);
            }
            Receiver::Tcp(r) => {
                let prev = r.rcv_nxt();
                let cum = r.on_data(pkt.seq, pkt.payload as u64);
                let size = fl.spec.size.0;
                if cum >= size && fl.end.is_none() {
                    fl.end = Some(Time(now));
                }
                let ce = pkt.ecn == Ecn::Ce;
                let mut echo = (pkt.ts, pkt.max_qdelay, pkt.word);
                if self.cfg.delayed_ack {
                    let in_order = pkt.seq == prev && cum == prev + pkt.payload as u64;
                    let d = fl.delack;
                    if !in_order || cum >= size {
                        // RFC 5681 §4.2: out-of-order data and data filling a hole are
                        // acknowledged at once; so is the last byte (the flow's FCT ends there).
                        fl.delack.pending = 0;
                    } else {
                        if d.pending > 0 && d.ce != ce {
                            // DCTCP §3.1: the CE state changed; acknowledge the pending segment
                            // at once with its own ECE, then start over in the new state.
                            fl.delack.pending = 0;
                            let nid = self.pool.alloc(Packet::default());
                            let echo = (d.ts, d.qdelay, d.word);
                            self.send_ack(now, nid, f, prev, d.ce, echo, 0, None, h, node);
                        }
                        let d = &mut self.flows[f as usize].delack;
                        if d.pending == 0 {
                            // First segment: hold the ACK until a second one or the timeout.
                            *d = DelAck {
                                pending: 1,
                                ce,
                                ts: pkt.ts,
                                qdelay: pkt.max_qdelay,
                                word: pkt.word,
                                deadline: now + self.cfg.delayed_ack_timeout.0,
                                event_at: d.event_at,
                            };
                            let at = d.deadline;
                            arm_timer(&mut self.events, &mut d.event_at, at, Event::DelAck(f));
                            self.pool.release(id);
                            return;
                        }
                        // Second segment: one ACK for both, echoing the earlier timestamp.
                        d.pending = 0;
                        echo = (d.ts, d.qdelay.max(pkt.max_qdelay), pkt.word);
                    }
                }
                let trigger = Some(pkt.seq);
                self.send_ack(now, id, f, cum, ce, echo, pkt.int_len, trigger, h, node);
            }
        }
    }

    /// Turns slot `id` into flow `f`'s ACK (cumulative `cum`, ECE `ece`, echoed timestamp,
    /// `max_qdelay` and RCP rate, `int_len` INT records already in the slot, SACK blocks with `trigger` the
    /// offset of the segment that caused it) and sends it from the receiver's host `h` at
    /// `node`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn send_ack(
        &mut self,
        now: u64,
        id: PacketId,
        f: u32,
        cum: u64,
        ece: bool,
        echo: (Time, Time, u32),
        int_len: u8,
        trigger: Option<u64>,
        h: u32,
        node: NodeId,
    ) {
        let fl = &self.flows[f as usize];
        // Most ACKs find everything in order: no blocks, no call.
        let sack =
            self.cfg.sack && matches!(&fl.receiver, Receiver::Tcp(r) if r.holds_out_of_order());
        self.spray_ctr += 1;
        // Reuse the data packet's slot for its ACK.
        let ack = self.pool.get_mut(id);
        *ack = Packet {
            kind: PacketKind::Ack,
            flow: FlowId(f),
            src: fl.spec.dst,
            dst: fl.spec.src,
            seq: cum,
            payload: 0,
            wire: self.header as u32,
            ecn: Ecn::NotEct,
            ece,
            priority: fl.spec.priority,
            word: echo.2,
            retransmit: false,
            max_qdelay: echo.1,
            ts: echo.0,
            window: u64::MAX,
            // The slot's INT records stay in place: the ACK echoes them.
            int_len,
            sack_len: 0,
            route: fl.route_ack,
            hop: 0,
            live: true,
            at: Time(now),
            next: NO_PACKET,
            spray_key: self.spray_ctr,
        };
        if sack {
            self.write_sack(id, f, trigger);
        }
        let ack = self.pool.get_mut(id);
        if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
            shim.on_egress(ack, Time(now));
        }
        self.c.sent += ack.wire as u64;
        self.forward(now, id, node);
    }

    /// Writes flow `f`'s receiver's SACK blocks (RFC 2018 §4) into ACK `id`'s side table.
    #[cold]
    #[inline(never)]
    pub(super) fn write_sack(&mut self, id: PacketId, f: u32, trigger: Option<u64>) {
        let mut blocks = [(0, 0); MAX_SACK_BLOCKS];
        if let Receiver::Tcp(r) = &mut self.flows[f as usize].receiver {
            let n = r.sack_blocks(trigger, &mut blocks);
            self.pool.set_sack(id, &blocks[..n]);
        }
    }

    /// The delayed-ACK timer of flow `f` may have fired: acknowledge the pending segment, or
    /// wait for a later deadline set since the event was scheduled.
    pub(super) fn on_delack_event(&mut self, now: u64, f: u32) {
        let d = &mut self.flows[f as usize].delack;
        if d.event_at != now {
            return;
        }
        d.event_at = u64::MAX;
        if d.pending == 0 {
            return;
        }
        if d.deadline > now {
            let at = d.deadline;
            arm_timer(&mut self.events, &mut d.event_at, at, Event::DelAck(f));
            return;
        }
        d.pending = 0;
        let (ce, echo) = (d.ce, (d.ts, d.qdelay, d.word));
        let fl = &self.flows[f as usize];
        let Receiver::Tcp(r) = &fl.receiver else {
            return;
        };
        let cum = r.rcv_nxt();
        let node = fl.spec.dst;
        let h = self.host_of_node[node.0 as usize];
        let nid = self.pool.alloc(Packet::default());
        self.send_ack(now, nid, f, cum, ce, echo, 0, None, h, node);
    }

    /// Makes sure an `Rto` event is pending no later than the sender's timer deadline.
    #[inline]
    pub(super) fn sync_rto(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.finished {
            return; // no more retransmissions (a stopped flow may still get ACKs)
        }
        let Sender::Tcp(s) = &fl.sender else { return };
        let d = s.rto_deadline; // u64::MAX when the timer is not armed: nothing to schedule
        arm_timer(&mut self.events, &mut fl.rto_event_at, d, Event::Rto(f));
    }

    pub(super) fn on_rto_event(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.rto_event_at != now {
            return; // superseded by an earlier event
        }
        fl.rto_event_at = u64::MAX;
        if fl.finished {
            return; // stopped (`stop_flow`) or done: no more retransmissions
        }
        let Sender::Tcp(s) = &mut fl.sender else {
            return;
        };
        let d = s.rto_deadline;
        if d == u64::MAX {
            return;
        }
        if d > now {
            // The timer was restarted since this event was scheduled: sleep until the deadline.
            arm_timer(&mut self.events, &mut fl.rto_event_at, d, Event::Rto(f));
            return;
        }
        s.on_timeout(Time(now));
        self.sync_rto(f);
        self.sync_ctrl(f);
        self.activate(now, f);
    }
}
