//! Records: the time series sampled between events, the invariants, and the results.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Takes every due sample whose time is before `t` (the next event's time): each sees the
    /// state after every event at or before its own time.
    #[cold]
    pub(super) fn sample_before(&mut self, t: u64) {
        while self.next_sample < t {
            let at = self.next_sample;
            self.take_sample(at);
            self.next_sample = at.saturating_add(self.rec.interval);
        }
    }

    pub(super) fn take_sample(&mut self, at: u64) {
        let interval = self.rec.interval as f64 * 1e-12;
        if self.rec.flows {
            for (i, f) in self.flows.iter_mut().enumerate() {
                let bytes = f.rx_wire - f.rx_wire_sampled;
                if !f.started || (f.finished && bytes == 0) {
                    continue;
                }
                f.rx_wire_sampled = f.rx_wire;
                let send_rate = match &f.sender {
                    Sender::Tcp(s) => match s.cc.pacing_rate() {
                        Some(r) => Some(r.bps()),
                        None => s
                            .srtt()
                            .filter(|t| t.0 > 0)
                            .map(|t| s.cc.cwnd() as f64 * 8.0 / (t.0 as f64 * 1e-12)),
                    },
                    Sender::Udp(u) => Some(u.rate().bps()),
                };
                self.rec.flow_samples.push(FlowSample {
                    time: Time(at),
                    flow: FlowId(i as u32),
                    throughput: bytes as f64 * 8.0 / interval,
                    send_rate,
                });
            }
        }
        for p in &self.ports {
            self.rec.gauge_scratch.clear();
            p.qdisc.gauges(&mut self.rec.gauge_scratch);
            for &(name, value) in &self.rec.gauge_scratch {
                self.rec.gauge_samples.push(QdiscGaugeSample {
                    time: Time(at),
                    link: p.link,
                    name,
                    value,
                });
            }
        }
        let all = match self.rec.queues {
            QueueRecord::None => return,
            QueueRecord::All => true,
            QueueRecord::Queued => false,
        };
        for p in &self.ports {
            if all || p.stats.max_queue_bytes > 0 {
                let bytes = p.qdisc.bytes();
                self.rec.queue_samples.push(QueueSample {
                    time: Time(at),
                    link: p.link,
                    bytes,
                    delay: p.rate.tx_time(Bytes(bytes)),
                });
            }
        }
    }

    /// The flow samples recorded so far ([`super::config::RecordConfig`]), in time order.
    pub fn flow_samples(&self) -> &[FlowSample] {
        &self.rec.flow_samples
    }

    /// The queue samples recorded so far ([`super::config::RecordConfig`]), in time order.
    pub fn queue_samples(&self) -> &[QueueSample] {
        &self.rec.queue_samples
    }

    /// The queueing disciplines' gauge samples recorded so far ([`super::config::RecordConfig`],
    /// [`super::Qdisc::gauges`]), in time order (ports in link order at each time).
    pub fn qdisc_gauge_samples(&self) -> &[QdiscGaugeSample] {
        &self.rec.gauge_samples
    }

    /// The records so far; errors if an invariant is violated (byte conservation, a queue
    /// above its buffer, an event scheduled in the past, an unroutable packet).
    pub fn results(&self) -> Result<PacketResults> {
        if let Some(msg) = self.pfc.as_ref().and_then(|f| f.deadlock.as_ref()) {
            return Err(Error::invalid("packet engine", msg));
        }
        self.check_invariants()?;
        Ok(self.records())
    }

    /// The engine's invariants (byte conservation, buffers, event times, routes); an error
    /// names the one broken. [`PacketSim::results`] checks them before reporting.
    pub fn check_invariants(&self) -> Result<()> {
        let now = self.events.now();
        let conservation = Conservation {
            sent: self.c.sent,
            delivered: self.c.delivered,
            dropped: self.c.dropped,
            in_flight: self.pool.live_wire_bytes(),
        };
        if !conservation.holds() {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "byte conservation violated at {now}: sent {} != delivered {} + dropped {} + in flight {}",
                    conservation.sent, conservation.delivered, conservation.dropped, conservation.in_flight
                ),
            ));
        }
        if self.c.buffer_violations > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} enqueues left a queue above its buffer",
                    self.c.buffer_violations
                ),
            ));
        }
        if self.c.shared_violations > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} enqueues left a switch's shared buffer above its size",
                    self.c.shared_violations
                ),
            ));
        }
        if self.events.past_events() > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!(
                    "{} events were scheduled in the past",
                    self.events.past_events()
                ),
            ));
        }
        if self.c.unroutable > 0 {
            return Err(Error::invalid(
                "packet engine",
                format!("{} packets had no route", self.c.unroutable),
            ));
        }
        Ok(())
    }

    /// The records as they stand, without checking the invariants: what a run whose check
    /// failed still writes (marked as failed).
    pub fn records(&self) -> PacketResults {
        let now = self.events.now();
        let conservation = Conservation {
            sent: self.c.sent,
            delivered: self.c.delivered,
            dropped: self.c.dropped,
            in_flight: self.pool.live_wire_bytes(),
        };
        let flows = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let (retx, timeouts, fast) = match &f.sender {
                    Sender::Tcp(s) => (s.bytes_retransmitted, s.timeouts, s.fast_retransmits),
                    Sender::Udp(_) => (0, 0, 0),
                };
                FlowRecord {
                    flow: FlowId(i as u32),
                    src: f.spec.src,
                    dst: f.spec.dst,
                    size: f.spec.size,
                    start: f.spec.start,
                    end: f.end,
                    fct: f.end.map(|e| e - f.spec.start),
                    acked: f.acked,
                    delivered: match &f.receiver {
                        Receiver::Tcp(r) => r.rcv_nxt(),
                        Receiver::Udp { received } => *received,
                    },
                    bytes_retransmitted: retx,
                    timeouts,
                    fast_retransmits: fast,
                    tag: f.spec.tag,
                }
            })
            .collect();
        let links = self
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let q = p.qdisc.bytes();
                let s = &p.stats;
                let pfc = self.pfc.as_deref();
                LinkRecord {
                    link: p.link,
                    tx_packets: s.tx_packets,
                    tx_bytes: s.tx_bytes,
                    drops: s.drops,
                    drop_bytes: s.drop_bytes,
                    marks: s.marks,
                    ctrl_tx_bytes: s.ctrl_tx_bytes,
                    ctrl_drops: s.ctrl_drops,
                    max_queue_bytes: s.max_queue_bytes,
                    queue_bytes: q,
                    queue_integral: s.queue_integral
                        + q as u128 * (now.0.saturating_sub(s.queue_last)) as u128,
                    pfc_pauses_sent: pfc.map_or(0, |f| f.pauses_sent[i]),
                    pfc_pauses_received: pfc.map_or(0, |f| f.pauses_received[i]),
                    pfc_paused_time: Time(
                        pfc.map_or(0, |f| f.paused_time_to(i, now.0, p.pfc_paused != 0)),
                    ),
                }
            })
            .collect();
        PacketResults {
            now,
            complete: self.finished == self.flows.len(),
            finished_flows: self.finished,
            flows,
            links,
            conservation,
            events: self.events.popped(),
            data_packet_hops: self.c.data_hops,
            packet_hops: self.c.packet_hops,
            peak_packets: self.pool.capacity(),
            pending_events: self.events.len(),
            pfc_frames: self
                .pfc
                .as_ref()
                .map_or_else(Vec::new, |f| f.frames.clone()),
        }
    }
}
