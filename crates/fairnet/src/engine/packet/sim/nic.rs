//! The host NIC: which flow sends next (round robin, start-time fair queueing by weight, or a FIFO the flows hand packets to), sleeping paced flows, and making data packets.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Puts a flow on its host's active list (if it is not there, or wakes it if it sleeps:
    /// its transport acted, so it may send sooner) and lets the host send.
    #[inline]
    pub(super) fn activate(&mut self, now: u64, f: u32) {
        self.nic_level_changed(f); // its transport acted, or it started
        let fl = &mut self.flows[f as usize];
        if !fl.started || fl.finished {
            return;
        }
        let h = fl.host;
        if !fl.active || fl.sleep_until != u64::MAX {
            fl.active = true;
            fl.sleep_until = u64::MAX; // its heap entry is now stale
            self.join_list(h, f);
        } else {
            // On the list already: its transport acted (the round robin asks every listed flow
            // at every pull anyway).
            self.recheck_if_listed(f);
        }
        self.host_pull(now, h);
    }

    /// Flow `f` joins the tail of host `h`'s list of flows that may send: the round robin, or
    /// the weighted NIC's start-time fair queueing order (where, as the round robin would, the
    /// next pull asks it whether it may send).
    #[inline]
    pub(super) fn join_list(&mut self, h: u32, f: u32) {
        let host = &mut self.hosts[h as usize];
        if self.cfg.host_nic == HostNic::Weighted {
            let fl = &mut self.flows[f as usize];
            fl.nic_seq = host.sfq.push(f, fl.nic_tag, host.vtime);
            host.sfq_recheck.push(f);
        } else {
            host.active.push_back(f);
        }
    }

    /// Flow `f` of host `h` may not send before `t`: out of the round robin until then.
    #[inline]
    pub(super) fn sleep(&mut self, h: u32, f: u32, t: u64) {
        self.flows[f as usize].sleep_until = t;
        self.hosts[h as usize].sleeping.push(Reverse((t, f)));
    }

    /// Puts the flows of host `h` whose sleep has ended back on its round robin (at the tail,
    /// in wake-up order).
    #[inline]
    pub(super) fn wake_sleepers(&mut self, now: u64, h: u32) {
        while let Some(&Reverse((t, f))) = self.hosts[h as usize].sleeping.peek() {
            if t > now {
                break;
            }
            self.hosts[h as usize].sleeping.pop();
            let fl = &mut self.flows[f as usize];
            if fl.sleep_until == t {
                fl.sleep_until = u64::MAX;
                self.join_list(h, f);
            }
        }
    }

    /// [`HostNic::Pull`]: if the host's NIC is idle with an empty queue, sends one data packet
    /// from the first active flow (round robin) that may send now. [`HostNic::Queue`]: hands
    /// every flow's packets that may be sent now to the NIC queue (round robin).
    /// [`HostNic::Weighted`]: as pull, the flow chosen by start-time fair queueing tags
    /// ([`Self::host_pick_weighted`]). Schedules a wake-up for paced flows.
    pub(super) fn host_pull(&mut self, now: u64, h: u32) {
        let nic = self.hosts[h as usize].nic;
        if nic == u32::MAX {
            return;
        }
        let mode = self.cfg.host_nic;
        if mode == HostNic::Queue {
            self.host_hand_over(now, h);
            self.host_drain(now, h, nic);
            return;
        }
        if self.ports[nic as usize].busy_until > now || self.nic_has_ready(now, nic) {
            return; // the pending PortFree pulls again
        }
        if mode == HostNic::Weighted {
            self.host_pick_weighted(now, h);
        } else {
            self.host_round(now, h, nic, false);
        }
    }

    /// Whether host NIC port `nic` holds a packet that goes ahead of the host's data and may
    /// be sent now (an ACK, data already queued, a control packet): the host pulls no data
    /// while one waits. A control packet held by the control-rate cap
    /// ([`crate::engine::packet::config::ControlConfig::rate`]) is not one, nor are those
    /// queued behind it: they may not go before the cap lets the first go, so the NIC sends
    /// data meanwhile (the cap's wake-up, a `PortFree` at that time, sends it at the next
    /// packet boundary, still ahead of data). Otherwise a host whose control traffic exceeds
    /// the cap would never send data again.
    #[inline]
    fn nic_has_ready(&self, now: u64, nic: u32) -> bool {
        let port = &self.ports[nic as usize];
        let held = port.ctrl.as_ref().map_or(0, |c| match c.q.front() {
            Some(&head) if c.ready_at(now, self.pool.get(PacketId(head)).wire) > now => c.q.len(),
            _ => 0,
        });
        port.waiting() > held
    }

    /// [`HostNic::Weighted`], the NIC idle: sends one data packet from the flow that may send
    /// now with the smallest start tag `max(finish tag, host virtual time)`, then advances
    /// the host's virtual time to that start tag and the flow's finish tag by the packet's
    /// wire bytes over the flow's weight (start-time fair queueing, Goyal, Vin & Cheng,
    /// SIGCOMM 1996); ties go to the earlier flow of the host's list ([`SfqOrder`]). A flow
    /// found unable to send leaves the list (asleep until its pacing time, or inactive until
    /// its transport acts), as in the round robin. Schedules a wake-up for paced flows when
    /// none may send.
    pub(super) fn host_pick_weighted(&mut self, now: u64, h: u32) {
        let hu = h as usize;
        // As the round robin's scan would: wake-ups join the tail; the flow served last and
        // the listed flows whose state something changed since the last pull (their transport
        // acted, their weight changed, they were stopped: `sfq_recheck`) are asked again, and
        // leave the list if they may not send. Every other listed flow could send at the last
        // pull and still can: a pacing time that has come stays come. (A host shim whose
        // release times move on their own is asked only when its flow comes first; the
        // round robin asked it at every pull.)
        self.wake_sleepers(now, h);
        if let Some((f, seq)) = self.hosts[hu].sfq.served.take() {
            if self.may_send_or_leave(now, h, f) {
                let (tag, vtime) = (self.flows[f as usize].nic_tag, self.hosts[hu].vtime);
                debug_assert_eq!(self.flows[f as usize].nic_seq, seq, "served flow's place");
                self.hosts[hu].sfq.insert(f, seq, tag, vtime);
            }
        }
        let mut recheck = std::mem::take(&mut self.hosts[hu].sfq_recheck);
        for &f in &recheck {
            if self.on_weighted_list(f) {
                self.may_send_or_leave(now, h, f);
            }
        }
        recheck.clear();
        self.hosts[hu].sfq_recheck = recheck; // keeps its allocation
        loop {
            let host = &mut self.hosts[hu];
            let Some((f, seq, start)) = host.sfq.pop(host.vtime) else {
                break;
            };
            if self.flows[f as usize].nic_seq != seq {
                continue; // a stale entry: the flow left the list since
            }
            if self.may_send_or_leave(now, h, f) {
                let wire = self.send_data(now, f, false);
                self.hosts[hu].vtime = start;
                let fl = &mut self.flows[f as usize];
                fl.nic_tag = start + wire as f64 / fl.spec.weight;
                self.hosts[hu].sfq.served = Some((f, seq));
                return; // the NIC's PortFree pulls again
            }
        }
        self.schedule_host_wake(h);
    }

    /// Whether flow `f` of host `h` may send now; if not, it leaves the host's list: asleep
    /// until its pacing (or shim) time, or inactive until its transport acts.
    #[inline]
    pub(super) fn may_send_or_leave(&mut self, now: u64, h: u32, f: u32) -> bool {
        let state = self.send_state(now, h, f);
        if state == SendState::Ready {
            return true;
        }
        self.flows[f as usize].nic_seq = u64::MAX;
        match state {
            SendState::Wait(t) => self.sleep(h, f, t.0),
            _ => {
                self.flows[f as usize].active = false;
                self.nic_level_changed(f);
            }
        }
        false
    }

    /// Whether flow `f` of host `h` may send a data packet now (its transport's state, then the
    /// host shim's rate limiter).
    #[inline]
    pub(super) fn send_state(&mut self, now: u64, h: u32, f: u32) -> SendState {
        let fl = &self.flows[f as usize];
        let state = match &fl.sender {
            // A stopped flow (`stop_flow`) sends nothing more.
            _ if fl.finished => SendState::Done,
            Sender::Tcp(s) => s.state(Time(now)),
            Sender::Udp(u) => u.state(Time(now)),
        };
        if state == SendState::Ready {
            if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
                let wire = self.mss as u32 + self.header as u32;
                let t = shim.earliest_send(FlowId(f), wire, Time(now));
                if t.0 > now {
                    return SendState::Wait(t);
                }
            }
        }
        state
    }

    /// Schedules a `HostWake` of host `h` when its first sleeper wakes, unless one is pending
    /// earlier (a stale sleeper at the top only costs a spurious wake-up).
    #[inline]
    pub(super) fn schedule_host_wake(&mut self, h: u32) {
        let host = &mut self.hosts[h as usize];
        let Some(&Reverse((wait, _))) = host.sleeping.peek() else {
            return;
        };
        if wait < host.wake_at {
            host.wake_at = wait;
            self.events.push(Time(wait), Event::HostWake(h));
        }
    }

    /// [`HostNic::Queue`]: every flow that may send now hands its packets to the host's FIFO
    /// (round robin), until none may or the FIFO holds half the NIC's buffer.
    pub(super) fn host_hand_over(&mut self, now: u64, h: u32) {
        let nic = self.hosts[h as usize].nic;
        self.host_round(now, h, nic, true);
    }

    /// [`HostNic::Queue`]: if the NIC is idle with nothing queued (ACKs and other control
    /// packets go through the NIC's own queue, ahead of the FIFO), sends the FIFO's head, its
    /// `max_qdelay` raised to the FIFO's queueing delay (the signal of any port,
    /// [`EngineConfig::qdelay_signal`], without a filter).
    pub(super) fn host_drain(&mut self, now: u64, h: u32, nic: u32) {
        if self.ports[nic as usize].busy_until > now || self.nic_has_ready(now, nic) {
            return; // the pending PortFree pulls again
        }
        let port = &self.ports[nic as usize];
        let host = &mut self.hosts[h as usize];
        let Some(id) = host.fifo.pop_front() else {
            return;
        };
        let pkt = self.pool.get_mut(id);
        host.fifo_bytes -= pkt.wire as u64;
        let qd = hop_qdelay(self.cfg.qdelay_signal, now, pkt, port, host.fifo_bytes);
        pkt.keep_max_qdelay(qd);
        let src = pkt.src;
        self.forward(now, id, src);
    }

    /// One pass of round robin over the host's active flows (repeated in queue mode while
    /// any flow sent); schedules a wake-up for paced flows.
    pub(super) fn host_round(&mut self, now: u64, h: u32, nic: u32, queue: bool) {
        self.wake_sleepers(now, h);
        // HostNic::PullPriority: the highest class (lowest `priority`) among the ready flows
        // sends; round robin within it. Other modes: every class is eligible.
        let class = if !queue && self.cfg.host_nic == HostNic::PullPriority {
            let n = self.hosts[h as usize].active.len();
            (0..n)
                .filter_map(|i| {
                    let f = self.hosts[h as usize].active[i];
                    (self.send_state(now, h, f) == SendState::Ready)
                        .then_some(self.flows[f as usize].spec.priority)
                })
                .min()
                .unwrap_or(u8::MAX)
        } else {
            u8::MAX
        };
        loop {
            let mut sent = false;
            let n = self.hosts[h as usize].active.len();
            for _ in 0..n {
                let f = self.hosts[h as usize]
                    .active
                    .pop_front()
                    .expect("n entries");
                match self.send_state(now, h, f) {
                    SendState::Ready if self.flows[f as usize].spec.priority > class => {
                        // HostNic::PullPriority: a higher class is ready; this flow waits
                        // for the next pull (the NIC is about to be busy).
                        self.hosts[h as usize].active.push_back(f);
                    }
                    SendState::Ready => {
                        self.hosts[h as usize].active.push_back(f);
                        self.send_data(now, f, queue);
                        if !queue {
                            return;
                        }
                        if self.hosts[h as usize].fifo_bytes > self.ports[nic as usize].buffer.0 / 2
                        {
                            return; // the NIC's PortFree pulls again
                        }
                        sent = true;
                    }
                    SendState::Wait(t) => self.sleep(h, f, t.0),
                    SendState::Blocked | SendState::Done => {
                        self.flows[f as usize].active = false;
                        self.nic_level_changed(f);
                    }
                }
            }
            // Queue mode: rounds until none of the flows may send now.
            if !sent {
                break;
            }
        }
        self.schedule_host_wake(h);
    }

    /// Builds flow `f`'s next data packet and sends it, or with `to_fifo` hands it to the
    /// host's FIFO ([`HostNic::Queue`]); returns the packet's wire bytes.
    pub(super) fn send_data(&mut self, now: u64, f: u32, to_fifo: bool) -> u64 {
        let fl = &mut self.flows[f as usize];
        let size = fl.spec.size.0;
        let (seg, ecn, word) = match &mut fl.sender {
            Sender::Tcp(s) => {
                let ecn = if s.cc.ecn_capable() {
                    Ecn::Ect
                } else {
                    Ecn::NotEct
                };
                let word = s.cc.header_word(size - s.snd_una());
                (s.next_segment(Time(now)), ecn, word)
            }
            Sender::Udp(u) => (u.next_segment(), Ecn::NotEct, 0),
        };
        self.spray_ctr += 1;
        // Flowcells: every packet of a cell carries the cell's key (flow, cell number).
        let spray_key = if self.cfg.routing == RoutingMode::Flowcell {
            ((f as u64) << 32) ^ (seg.seq / FLOWCELL_BYTES)
        } else {
            self.spray_ctr
        };
        let mut pkt = Packet {
            kind: PacketKind::Data,
            flow: FlowId(f),
            src: fl.spec.src,
            dst: fl.spec.dst,
            seq: seg.seq,
            payload: seg.len,
            wire: seg.len + self.header as u32,
            ecn,
            priority: fl.spec.priority,
            word,
            retransmit: seg.retransmit,
            ts: Time(now),
            route: fl.route_data,
            spray_key,
            ..Packet::default()
        };
        let src = fl.spec.src;
        let h = fl.host as usize;
        if let Some(shim) = self.hosts[h].shim.as_mut() {
            shim.on_egress(&mut pkt, Time(now));
        }
        self.c.sent += pkt.wire as u64;
        let wire = pkt.wire as u64;
        let id = self.pool.alloc(pkt);
        self.sync_rto(f);
        if to_fifo {
            self.pool.get_mut(id).at = Time(now);
            let host = &mut self.hosts[h];
            host.fifo.push_back(id);
            host.fifo_bytes += wire;
        } else {
            self.forward(now, id, src);
        }
        wire
    }

    /// [`HostNic::Weighted`]: if flow `f` is on its host's list, the next pull asks it again
    /// whether it may send (something other than the pull changed its state).
    pub(super) fn recheck_if_listed(&mut self, f: u32) {
        if self.cfg.host_nic == HostNic::Weighted && self.on_weighted_list(f) {
            let h = self.flows[f as usize].host;
            self.hosts[h as usize].sfq_recheck.push(f);
        }
    }

    /// [`HostNic::Weighted`]: whether flow `f` is on its host's list (active, awake, with a
    /// live place).
    #[inline]
    pub(super) fn on_weighted_list(&self, f: u32) -> bool {
        let fl = &self.flows[f as usize];
        fl.active && fl.sleep_until == u64::MAX && fl.nic_seq != u64::MAX
    }
}

/// The weighted NIC's share of a flow ([`HostNic::Weighted`]) and its start tag when its
/// weight changes.
impl<S: SchemeSet> PacketSim<S> {
    /// [`HostNic::Weighted`]: flow `f` of host `h` started; it joins the host's senders (the
    /// finished ones are dropped first when the list is about to grow).
    pub(super) fn note_sender(&mut self, h: u32, f: u32) {
        if self.cfg.host_nic != HostNic::Weighted {
            return;
        }
        let flows = &self.flows;
        let senders = &mut self.hosts[h as usize].senders;
        if senders.len() == senders.capacity() {
            senders.retain(|&g| !flows[g as usize].finished);
        }
        senders.push(f);
    }

    /// [`HostNic::Weighted`]: tells flow `f`'s congestion control, if it wants it
    /// ([`CongestionControl::wants_nic_share`]), what its host's NIC can give it now (the
    /// weighted max-min share of the line rate beside the host's other started flows: a flow
    /// that may send now or after its pacing time wants its pacing rate, the line rate at most
    /// and without pacing; one that may not send — window full, nothing left — wants nothing),
    /// read from the host's [`NicLevels`] tree in O(log n). The first time a flow of the host
    /// asks, the tree is built from the host's started flows; from then on it is kept up to
    /// date through [`Self::nic_level_changed`].
    pub(super) fn tell_nic_share(&mut self, f: u32) {
        if self.cfg.host_nic != HostNic::Weighted {
            return;
        }
        let fl = &self.flows[f as usize];
        let Sender::Tcp(s) = &fl.sender else {
            return;
        };
        if !s.cc.wants_nic_share() {
            return;
        }
        let (h, weight) = (fl.host as usize, fl.spec.weight);
        let nic = self.hosts[h].nic;
        if nic == u32::MAX {
            return;
        }
        let line = self.ports[nic as usize].rate.0;
        if self.hosts[h].levels.is_none() {
            self.start_levels(h);
        }
        // Bring the tree up to date; the asking flow leaves it (it is asked about as a flow
        // that would take all it is given) and is marked to come back with its new demand.
        let mut levels = self.hosts[h].levels.take().expect("started above");
        for g in levels.dirty.drain(..) {
            self.levels.unmark(g);
            self.refresh_level(&mut levels.root, g, line);
        }
        if self.levels.entry(f).is_some() {
            self.levels.remove(&mut levels.root, f);
        }
        if self.levels.mark(f) {
            levels.dirty.push(f);
        }
        let share = self.levels.share(levels.root, line, weight);
        self.hosts[h].levels = Some(levels);
        #[cfg(test)]
        self.check_nic_share(f, share);
        if let Sender::Tcp(s) = &mut self.flows[f as usize].sender {
            s.cc.on_nic_share(Rate(share as u64));
        }
    }

    /// Host `h` starts keeping its [`NicLevels`] tree: every started flow of the host is
    /// marked, to enter it at the next look.
    fn start_levels(&mut self, h: usize) {
        if self.levels.is_empty() {
            self.levels = NicLevels::new(self.flows.len());
        }
        let flows = &self.flows;
        self.hosts[h]
            .senders
            .retain(|&g| !flows[g as usize].finished);
        let mut dirty = Vec::with_capacity(self.hosts[h].senders.len());
        for &g in &self.hosts[h].senders {
            if self.levels.mark(g) {
                dirty.push(g);
            }
        }
        self.hosts[h].levels = Some(HostLevels {
            root: NIL_LEVEL,
            dirty,
        });
    }

    /// Flow `g`'s entry in its host's tree (at `root`) made to match its state now: in the
    /// tree with its demand (pacing rate, at most `line`; `line` unpaced) and weight while it
    /// has started, is not finished and is on the host's list or asleep; out of it otherwise.
    fn refresh_level(&mut self, root: &mut u32, g: u32, line: u64) {
        let fl = &self.flows[g as usize];
        let want = (fl.started && !fl.finished && fl.active).then(|| {
            let demand = match &fl.sender {
                Sender::Tcp(s) => s.cc.pacing_rate().map_or(line, |r| r.0.min(line)),
                Sender::Udp(u) => u.rate().0.min(line),
            };
            (demand, fl.spec.weight)
        });
        let have = self.levels.entry(g);
        if want == have {
            return;
        }
        if have.is_some() {
            self.levels.remove(root, g);
        }
        if let Some((demand, weight)) = want {
            self.levels.insert(root, g, demand, weight);
        }
    }

    /// Something that enters flow `f`'s NIC demand changed (its congestion control was called,
    /// it joined or left its host's list, it finished, its weight changed): if its host keeps
    /// a [`NicLevels`] tree, `f` is looked at again before the next share is read. Nothing
    /// to do (one branch) while no host keeps one.
    #[inline]
    pub(super) fn nic_level_changed(&mut self, f: u32) {
        if self.levels.is_empty() {
            return;
        }
        let h = self.flows[f as usize].host as usize;
        if let Some(levels) = self.hosts[h].levels.as_mut() {
            if self.levels.mark(f) {
                levels.dirty.push(f);
            }
        }
    }

    /// Tests only: the share read from the tree is the one [`weighted_share`] computes by
    /// sorting the host's other started, active flows at their demands now (within 1e-12
    /// relative), so a state change the tree missed fails every test that runs Söze behind
    /// the weighted NIC.
    #[cfg(test)]
    fn check_nic_share(&self, f: u32, share: f64) {
        let fl = &self.flows[f as usize];
        let h = fl.host as usize;
        let line = self.ports[self.hosts[h].nic as usize].rate.bps();
        let mut others = Vec::new();
        for &g in &self.hosts[h].senders {
            let other = &self.flows[g as usize];
            if g == f || !other.active || other.finished {
                continue;
            }
            let demand = self.pacing_rate(FlowId(g)).map_or(line, |r| r.min(line));
            others.push((demand, other.spec.weight));
        }
        let want = weighted_share(line, fl.spec.weight, &mut others);
        assert!(
            (share - want).abs() <= 1e-12 * want.abs().max(1.0),
            "flow {f}: NIC share {share} from the levels, {want} by sorting"
        );
    }

    /// [`HostNic::Weighted`]: flow `f`'s weight changes from `old` to `new`. The part of its
    /// finish tag ahead of the host's virtual time is bytes it was charged per unit of the old
    /// weight: rescaled to the new weight, `vtime + (tag − vtime) · old / new`, so its next
    /// packet starts where the new weight puts it (a tag at or below the virtual time starts at
    /// the virtual time either way). A flow with a place in the NIC's order moves there: a new
    /// entry (the old one goes stale), which puts it behind flows of equal start tag. The flow
    /// served last (`SfqOrder::served`) has no entry: it goes back at the next pull with the
    /// rescaled tag and its old place.
    pub(super) fn retag(&mut self, f: u32, old: f64, new: f64) {
        if self.cfg.host_nic != HostNic::Weighted {
            return;
        }
        let h = self.flows[f as usize].host as usize;
        let vtime = self.hosts[h].vtime;
        let fl = &mut self.flows[f as usize];
        if fl.nic_tag <= vtime {
            return;
        }
        fl.nic_tag = vtime + (fl.nic_tag - vtime) * old / new;
        let served = self.hosts[h].sfq.served.is_some_and(|(g, _)| g == f);
        if !served && self.on_weighted_list(f) {
            let tag = self.flows[f as usize].nic_tag;
            self.flows[f as usize].nic_seq = self.hosts[h].sfq.push(f, tag, vtime);
        }
    }
}
