//! Control packets: sent when a congestion control or a host shim asks, carried ahead of data at every port, reflected by the receiver, and handed back to whoever sent them.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Makes sure a `Control` event is pending no later than the time flow `f`'s congestion
    /// control wants to send its next control packet.
    #[inline]
    pub(super) fn sync_ctrl(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.finished || !fl.started {
            return;
        }
        let Sender::Tcp(s) = &fl.sender else { return };
        let Some(at) = s.cc.control_at() else { return };
        let at = at.0.max(self.events.now().0);
        arm_timer(
            &mut self.events,
            &mut fl.ctrl_event_at,
            at,
            Event::Control(f),
        );
    }

    pub(super) fn on_control_event(&mut self, now: u64, f: u32) {
        let fl = &mut self.flows[f as usize];
        if fl.ctrl_event_at != now {
            return; // superseded by an earlier event
        }
        fl.ctrl_event_at = u64::MAX;
        if fl.finished {
            return;
        }
        let Sender::Tcp(s) = &mut fl.sender else {
            return;
        };
        match s.cc.control_at() {
            Some(t) if t.0 <= now => {
                let mut area = CtrlArea::default();
                let unsent = fl.spec.size.0.saturating_sub(s.snd_nxt());
                let send = s.cc.make_control(Time(now), unsent, &mut area);
                self.nic_level_changed(f); // its congestion control was called
                if send {
                    self.send_control(now, f, 0, &area);
                }
            }
            _ => {}
        }
        self.sync_ctrl(f);
    }

    /// Makes sure a `ShimTimer` event is pending no later than the time host `h`'s shim asks
    /// for ([`HostShim::next_timer`]).
    pub(super) fn sync_shim_timer(&mut self, h: u32) {
        let host = &mut self.hosts[h as usize];
        let Some(at) = host.shim.as_ref().and_then(|s| s.next_timer()) else {
            return;
        };
        let at = at.0.max(self.events.now().0);
        arm_timer(
            &mut self.events,
            &mut host.shim_timer_at,
            at,
            Event::ShimTimer(h),
        );
    }

    /// A `ShimTimer` event of host `h`: if its shim's time has come, sends the control packets
    /// the shim lists ([`HostShim::on_timer`]) on their flows' data paths.
    pub(super) fn on_shim_timer_event(&mut self, now: u64, h: u32) {
        let host = &mut self.hosts[h as usize];
        if host.shim_timer_at != now {
            return; // superseded by an earlier event
        }
        host.shim_timer_at = u64::MAX;
        let Some(shim) = host.shim.as_mut() else {
            return;
        };
        if shim.next_timer().is_some_and(|t| t.0 <= now) {
            let mut out = std::mem::take(&mut self.shim_out);
            shim.on_timer(Time(now), &mut out);
            for mut c in out.drain(..) {
                let fl = self.flows.get(c.flow.idx());
                if !fl.is_some_and(|fl| fl.host == h && fl.started && !fl.finished) {
                    continue; // not a live flow of this host: it has no data path to take
                }
                c.area.shim = true;
                c.area.reflected = false;
                self.send_control(now, c.flow.0, c.word, &c.area);
            }
            self.shim_out = out;
        }
        self.sync_shim_timer(h);
    }

    /// Sends a control packet of flow `f` with header word `word` and control area `area` from
    /// its source, on the flow's data path.
    pub(super) fn send_control(&mut self, now: u64, f: u32, word: u32, area: &CtrlArea) {
        let fl = &self.flows[f as usize];
        self.spray_ctr += 1;
        let pkt = Packet {
            kind: PacketKind::Control,
            flow: FlowId(f),
            src: fl.spec.src,
            dst: fl.spec.dst,
            wire: self.cfg.control.size.0 as u32,
            priority: 0,
            word,
            ts: Time(now),
            route: fl.route_data,
            spray_key: self.spray_ctr,
            ..Packet::default()
        };
        let src = fl.spec.src;
        self.c.sent += pkt.wire as u64;
        let id = self.pool.alloc(pkt);
        self.pool.set_ctrl(id, area);
        self.forward(now, id, src);
    }

    /// Flow `f` ended: lets its congestion control send a FIN control packet.
    pub(super) fn send_fin(&mut self, now: u64, f: u32) {
        let Sender::Tcp(s) = &mut self.flows[f as usize].sender else {
            return;
        };
        let mut area = CtrlArea::default();
        if s.cc.make_fin(Time(now), &mut area) {
            area.fin = true;
            self.send_control(now, f, 0, &area);
        }
    }

    /// A control packet arrived at host `node`: the receiver reflects it back to the sender
    /// (on the flow's ACK path; agents leave reflected packets alone at dequeue, and with
    /// [`EngineConfig::two_way_control`] that path is the reversed data path and each node
    /// hands the packet to [`PortAgent::on_reverse`], see `reverse_update`) and consumes a
    /// FIN; the sender hands a reflected one to its host's shim if the shim made it, else to
    /// the flow's congestion control.
    pub(super) fn on_control_arrival(
        &mut self,
        now: u64,
        id: PacketId,
        pkt: &Packet,
        node: NodeId,
    ) {
        let f = pkt.flow.0;
        let area = self.pool.ctrl(id);
        if !area.reflected {
            if area.fin {
                self.pool.release(id);
                return;
            }
            let fl = &self.flows[f as usize];
            self.pool.ctrl_mut(id).reflected = true;
            self.spray_ctr += 1;
            let p = self.pool.get_mut(id);
            p.src = pkt.dst;
            p.dst = pkt.src;
            p.route = fl.route_ack;
            p.hop = 0;
            p.spray_key = self.spray_ctr;
            self.c.sent += p.wire as u64;
            self.forward(now, id, node);
            return;
        }
        if area.shim {
            let h = self.flows[f as usize].host;
            if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
                shim.on_control(pkt, self.pool.ctrl(id), Time(now));
            }
            self.pool.release(id);
            self.sync_shim_timer(h);
            return;
        }
        let fl = &mut self.flows[f as usize];
        if let Sender::Tcp(s) = &mut fl.sender {
            if !fl.finished {
                s.cc.on_control(pkt, self.pool.ctrl(id), Time(now));
                s.repace();
            }
        }
        self.pool.release(id);
        self.sync_ctrl(f);
        self.activate(now, f);
    }
}
