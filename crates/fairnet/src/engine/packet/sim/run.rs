//! The event loop: running to a time or to completion, and the dispatch of each event.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Runs every event up to and including time `t`, then checks the invariants and reports.
    pub fn run_until(&mut self, t: Time) -> Result<PacketResults> {
        while let Some(next) = self.events.peek_time() {
            if next > t {
                break;
            }
            let (now, ev) = self.events.pop().expect("peeked");
            if now.0 > self.next_sample {
                self.sample_before(now.0);
            }
            self.handle(now.0, ev);
            if self.halted {
                return self.results();
            }
        }
        self.events.advance_to(t);
        self.sample_before(t.0.saturating_add(1));
        self.results()
    }

    /// Runs until every flow has finished, no event is left, or `max_time` is reached.
    pub fn run_to_completion(&mut self, max_time: Time) -> Result<PacketResults> {
        self.run_to_completion_with_progress(max_time, &Progress::default())
    }

    /// [`PacketSim::run_to_completion`], reporting to `progress` every [`Progress::EVERY`]
    /// events; a cancelled `progress` stops the run there (the results show what finished).
    pub fn run_to_completion_with_progress(
        &mut self,
        max_time: Time,
        progress: &Progress,
    ) -> Result<PacketResults> {
        let mut handled = 0u64;
        while self.finished < self.flows.len() {
            match self.events.peek_time() {
                Some(next) if next <= max_time => {
                    let (now, ev) = self.events.pop().expect("peeked");
                    if now.0 > self.next_sample {
                        self.sample_before(now.0);
                    }
                    self.handle(now.0, ev);
                    if self.halted {
                        return self.results();
                    }
                    handled += 1;
                    if handled & (Progress::EVERY - 1) == 0
                        && !progress.update(now, self.events.popped(), self.finished as u64)
                    {
                        break;
                    }
                }
                Some(_) => {
                    // Stopped by the horizon: nothing happens before it, so the samples up to
                    // it are known.
                    self.sample_before(max_time.0.saturating_add(1));
                    return self.results();
                }
                None => break,
            }
        }
        self.sample_before(self.events.now().0.saturating_add(1));
        self.results()
    }

    #[inline]
    pub(super) fn handle(&mut self, now: u64, ev: Event) {
        match ev {
            Event::Arrive(link) => {
                let port = &mut self.ports[link as usize];
                let id = port.wire_head;
                debug_assert_ne!(id, NO_PACKET, "an Arrive event has a packet on the wire");
                let pkt = self.pool.get_mut(PacketId(id));
                debug_assert_eq!(pkt.at.0, now);
                port.wire_head = pkt.next;
                pkt.next = NO_PACKET;
                if port.wire_head != NO_PACKET {
                    let next = self.pool.get(PacketId(port.wire_head)).at;
                    self.events.push(next, Event::Arrive(link));
                }
                self.on_arrive(now, PacketId(id), link);
            }
            Event::PortFree(p) => {
                let port = &mut self.ports[p as usize];
                port.wake_pending = false;
                if let Some(c) = port.ctrl.as_mut() {
                    if c.wake_at <= now {
                        c.wake_at = 0;
                    }
                }
                self.port_try_start(now, p);
                let port = &self.ports[p as usize];
                if port.host_nic && port.busy_until <= now {
                    let h = self.host_of_node[port.node.idx()];
                    self.host_pull(now, h);
                }
            }
            Event::HostWake(h) => {
                if self.hosts[h as usize].wake_at == now {
                    self.hosts[h as usize].wake_at = u64::MAX;
                    self.host_pull(now, h);
                }
            }
            Event::FlowStart(f) => {
                let fl = &mut self.flows[f as usize];
                fl.started = true;
                let h = fl.host;
                if let Some(shim) = self.hosts[h as usize].shim.as_mut() {
                    shim.on_flow_start(FlowId(f), &fl.spec, Time(now));
                    self.sync_shim_timer(h);
                }
                self.note_sender(h, f);
                self.sync_ctrl(f);
                self.activate(now, f);
            }
            Event::Rto(f) => self.on_rto_event(now, f),
            Event::DelAck(f) => self.on_delack_event(now, f),
            Event::Weight(i) => {
                let (f, w) = self.weight_changes[i as usize];
                self.set_weight(FlowId(f), w)
                    .expect("checked by schedule_weight");
            }
            Event::Control(f) => self.on_control_event(now, f),
            Event::ShimTimer(h) => self.on_shim_timer_event(now, h),
            Event::Pfc(word) => self.on_pfc_frame(now, word),
            Event::CellHold(f) => self.on_cell_hold_event(now, f),
        }
    }
}
