//! Egress ports: forwarding to the next link, admission (qdisc, port buffer, shared switch memory), serving the queue (control packets first, ACKs first if asked, then the qdisc), telemetry and agents at dequeue, and arrival at the far end.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Sends packet `id`, now at `node`, to its next link.
    #[inline]
    pub(super) fn forward(&mut self, now: u64, id: PacketId, node: NodeId) {
        let pkt = self.pool.get_mut(id);
        let link = if pkt.route != NO_ROUTE {
            let l = self.paths[pkt.route as usize + pkt.hop as usize];
            pkt.hop += 1;
            Some(l)
        } else {
            let sel = PathSelector::Spray {
                seed: self.cfg.seed,
                packet: pkt.spray_key,
            };
            self.routing
                .next_hop(node, pkt.src, pkt.dst, sel)
                .map(|l| l.0)
        };
        match link {
            Some(l) => self.enqueue(now, l, id),
            None => {
                // Unreachable by construction (paths were checked); counted, not a panic.
                self.c.unroutable += 1;
                self.c.dropped += pkt.wire as u64;
                self.pool.release(id);
            }
        }
    }

    #[inline]
    pub(super) fn enqueue(&mut self, now: u64, p: u32, id: PacketId) {
        let port = &mut self.ports[p as usize];
        // Queued now, whichever queue takes it (the sojourn signal's start).
        let pkt = self.pool.get_mut(id);
        pkt.at = Time(now);
        let kind = pkt.kind;
        if kind == PacketKind::Control {
            // Control packets wait in the port's own FIFO, served first (see `CtrlQueue`).
            let wire = self.pool.get(id).wire as u64;
            let rate = port.rate;
            let ctrl = port
                .ctrl
                .get_or_insert_with(|| Box::new(CtrlQueue::new(&self.cfg.control, rate)));
            // A full control FIFO drops it; so does a lossy network (`control.loss`).
            let lost = self.cfg.control.loss > 0.0
                && self.ctrl_loss_rng.gen::<f64>() < self.cfg.control.loss;
            if lost || ctrl.bytes + wire > ctrl.buffer {
                port.stats.ctrl_drops += 1;
                drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                return;
            }
            ctrl.bytes += wire;
            ctrl.q.push_back(id.0);
            self.port_try_start(now, p);
            return;
        }
        if self.cfg.ack_first && kind == PacketKind::Ack {
            port.acks.push_back(id);
            self.port_try_start(now, p);
            return;
        }
        // Lossless switches: the memory admits data by ingress port (`pfc`), in place of the
        // shared buffer's egress admission below.
        let lossless = self.pfc.is_some() && !port.host_nic && kind == PacketKind::Data;
        if lossless && !self.pfc_admits(p, id) {
            let port = &mut self.ports[p as usize];
            drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
            return;
        }
        let port = &mut self.ports[p as usize];
        let before = port.qdisc.bytes();
        let shared = match self.cfg.shared_buffer {
            Some(sb) if lossless => Some(sb.size.0),
            Some(sb) if !port.host_nic => {
                let mem = self.switch_mem[port.node.idx()].used;
                let wire = self.pool.get(id).wire as u64;
                let free = sb.size.0.saturating_sub(mem);
                // First come, first served within the memory; with α, the port's queue may
                // not pass α × the free memory (Choudhury & Hahne's dynamic threshold).
                let fits = wire <= free
                    && sb
                        .alpha
                        .is_none_or(|a| (before + wire) as f64 <= a * free as f64);
                if !fits {
                    drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                    return;
                }
                Some(sb.size.0)
            }
            _ => None,
        };
        match port.qdisc.enqueue(id, &mut self.pool, Time(now)) {
            Enqueued::Dropped => {
                drop_packet(&mut port.stats, &mut self.c, &mut self.pool, id);
                return;
            }
            Enqueued::Marked => port.stats.marks += 1,
            Enqueued::Queued => {}
            Enqueued::Evicting => {
                while let Some(v) = port.qdisc.take_evicted() {
                    drop_packet(&mut port.stats, &mut self.c, &mut self.pool, v);
                }
            }
        }
        if lossless {
            self.pfc_add(now, p, id);
        }
        let port = &mut self.ports[p as usize];
        port.account_queue(now, before);
        if port.qdisc.bytes() > port.buffer.0 {
            self.c.buffer_violations += 1;
        }
        if let Some(size) = shared {
            // A pFabric eviction can shrink the queue: `used` holds `before`, so this stays
            // non-negative.
            let mem = &mut self.switch_mem[port.node.idx()];
            mem.used = mem.used + port.qdisc.bytes() - before;
            mem.peak = mem.peak.max(mem.used);
            if mem.used > size {
                self.c.shared_violations += 1;
            }
        }
        self.port_try_start(now, p);
        // The queue is what waits behind the serializer: measured after a packet arriving at
        // an idle port has left it.
        let port = &mut self.ports[p as usize];
        port.stats.max_queue_bytes = port.stats.max_queue_bytes.max(port.qdisc.bytes());
    }

    /// Starts serializing the next queued packet if the port is free; otherwise makes sure a
    /// `PortFree` event will come.
    #[inline]
    pub(super) fn port_try_start(&mut self, now: u64, p: u32) {
        let port = &mut self.ports[p as usize];
        if port.busy_until > now {
            // Also when a stale `PortFree` (from an earlier busy period) fired early: a host
            // NIC must wake when the serializer frees, to pull the next data packet.
            if !port.wake_pending && (port.host_nic || port.waiting() > 0) {
                port.wake_pending = true;
                self.events.push(Time(port.busy_until), Event::PortFree(p));
            }
            return;
        }
        // Control packets first (strict priority), when the rate limiter allows.
        let mut ctrl = None;
        if let Some(c) = port.ctrl.as_mut() {
            if let Some(&head) = c.q.front() {
                let wire = self.pool.get(PacketId(head)).wire;
                let ready = c.ready_at(now, wire);
                if ready <= now {
                    c.q.pop_front();
                    c.bytes -= wire as u64;
                    c.take(now, wire);
                    port.stats.ctrl_tx_packets += 1;
                    port.stats.ctrl_tx_bytes += wire as u64;
                    ctrl = Some(PacketId(head));
                } else if c.wake_at <= now || ready < c.wake_at {
                    c.wake_at = ready;
                    self.events.push(Time(ready), Event::PortFree(p));
                }
            }
        }
        let id = match ctrl {
            Some(id) => id,
            None => {
                let before = port.qdisc.bytes();
                // ACKs ahead of the queueing discipline (`ack_first`), then the discipline.
                let id = if let Some(id) = port.acks.pop_front() {
                    id
                } else {
                    if port.pfc_paused != 0 {
                        return; // PFC: the far end's resume starts the port again
                    }
                    let Some(id) = port.qdisc.dequeue(&mut self.pool, Time(now)) else {
                        return;
                    };
                    port.stats.marks += port.qdisc.take_dequeue_marks();
                    id
                };
                port.account_queue(now, before);
                if !self.switch_mem.is_empty() && !port.host_nic {
                    self.switch_mem[port.node.idx()].used -= before - port.qdisc.bytes();
                }
                id
            }
        };
        let lossless = self.pfc.is_some() && !port.host_nic && ctrl.is_none();
        let pkt = self.pool.get_mut(id);
        let lossless = lossless && pkt.kind == PacketKind::Data;
        let mut qd = hop_qdelay(self.cfg.qdelay_signal, now, pkt, port, port.qdisc.bytes());
        if let Some(lpf) = port.lpf.as_mut() {
            qd = lpf.sample(now, qd);
        }
        pkt.keep_max_qdelay(qd);
        let wire = pkt.wire as u64;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += wire;
        self.c.packet_hops += 1;
        if pkt.kind == PacketKind::Data {
            port.stats.data_tx_packets += 1;
            self.c.data_hops += 1;
        }
        if port.agent.is_some() {
            let view = port.view(now);
            if let Some(agent) = port.agent.as_mut() {
                agent.on_dequeue(id, &mut self.pool, &view);
            }
        }
        let tx = port.tx_time(wire as u32);
        port.busy_until = now + tx;
        let at = now + tx + port.delay;
        self.pool.get_mut(id).at = Time(at);
        if port.wire_head == NO_PACKET {
            port.wire_head = id.0;
            self.events.push(Time(at), Event::Arrive(p));
        } else {
            self.pool.get_mut(PacketId(port.wire_tail)).next = id.0;
        }
        port.wire_tail = id.0;
        if !port.wake_pending && (port.host_nic || port.waiting() > 0) {
            port.wake_pending = true;
            self.events.push(Time(port.busy_until), Event::PortFree(p));
        }
        if lossless {
            self.pfc_remove(now, p, id);
        }
    }

    pub(super) fn on_arrive(&mut self, now: u64, id: PacketId, link: u32) {
        let node = self.ports[link as usize].to;
        if !self.rev_link.is_empty() {
            self.reverse_update(now, id, link);
        }
        let h = self.host_of_node[node.idx()];
        if h == NO_HOST {
            self.forward(now, id, node);
        } else {
            self.deliver(now, id, h, node);
        }
    }

    /// Two-way control updates (s-PERC §2 assumption 6): a reflected control packet that
    /// arrived over `link` — on the reverse of its flow's data path — is handed to the agent
    /// of the forward link it mirrors, `reverse(link)`, whose port is at this node.
    #[inline]
    pub(super) fn reverse_update(&mut self, now: u64, id: PacketId, link: u32) {
        if self.pool.get(id).kind != PacketKind::Control || !self.pool.ctrl(id).reflected {
            return;
        }
        let fwd = self.rev_link[link as usize];
        let Some(port) = self.ports.get_mut(fwd as usize) else {
            return;
        };
        if port.agent.is_some() {
            let view = port.view(now);
            if let Some(agent) = port.agent.as_mut() {
                agent.on_reverse(id, &mut self.pool, &view);
            }
        }
    }
}
