//! Priority flow control (IEEE 802.1Qbb) and the lossless switch memory
//! ([`super::super::config::PfcConfig`]): per-ingress-port, per-priority accounting at every
//! switch, pause and resume frames to the upstream port (with the reverse link's delay, after
//! the packet it is serializing), paused ports that stop serving data, the counters and the
//! pause time series, and the detection of a deadlock (a cyclic buffer dependency).
//!
//! The accounting follows the HPCC ns-3 simulator's switch MMU (`switch-mmu.cc`): a data packet
//! arriving at a switch over link `i` with priority `p` is added to `i`'s bytes: within the
//! `reserve`, then to the shared pool while `i`'s shared bytes stay within the pause threshold,
//! then to `i`'s headroom; it is dropped only when the headroom is full too. It is taken off
//! when it leaves the switch (headroom first). Pause: headroom bytes, or shared bytes at the
//! threshold; resume: no headroom bytes and shared bytes zero or `xon_offset` below the
//! threshold (static: at most `xon`).
//!
//! Our choices: only data packets are accounted and paused (ACKs ahead of the discipline,
//! `ack_first`, and control packets are the unpaused class, as the reference's highest-priority
//! queue); a paused priority stops the port's whole discipline, which is exact for the
//! single-FIFO disciplines (one queue holds every priority) and blocks a multi-queue
//! discipline's other classes too (dequeue by class is not modelled); frames do not take the
//! serializer (64 bytes: their time is added to the delay). A deadlock is a set of paused
//! ports whose far ends hold bytes only queued at ports of the set: no byte can leave, so no
//! resume can come. It is checked whenever a pause takes effect; the run stops there with an
//! error naming the ports.

use super::*;
use crate::engine::packet::config::PfcConfig;
use crate::engine::packet::records::PfcFrame;
use std::collections::HashMap;

/// Priority classes (the 3-bit PCP of 802.1Q).
const CLASSES: usize = 8;

/// The lossless memory of every switch and the PFC state of every link.
pub(super) struct Pfc {
    cfg: PfcConfig,
    /// Switch memory (`shared_buffer.size`).
    buffer: u64,
    /// Per link (an ingress port of the switch at its far end), per priority: bytes held
    /// within the reserve and the shared pool, and in the headroom.
    ingress: Vec<[u64; CLASSES]>,
    hdrm: Vec<[u64; CLASSES]>,
    /// Per link: the priorities its far end has paused (a pause sent, no resume since).
    sent: Vec<u8>,
    /// Per link: its headroom and its dynamic threshold's shift.
    headroom: Vec<u64>,
    shift: Vec<u8>,
    /// Per node: shared bytes in use, and the headroom and reserve of all its ports.
    shared_used: Vec<u64>,
    set_aside: Vec<u64>,
    /// Per link: the link in the other direction (where its frames travel).
    rev: Vec<u32>,
    /// Bytes that came in over link `i` and wait at egress port `e` (`(i, e)`).
    via: HashMap<(u32, u32), u64>,
    /// Per link: pauses sent by its far end, pauses received at its port, paused time and
    /// since when (while paused).
    pub pauses_sent: Vec<u64>,
    pub pauses_received: Vec<u64>,
    pub paused_time: Vec<u64>,
    paused_since: Vec<u64>,
    /// The pause time series.
    pub frames: Vec<PfcFrame>,
    /// Set when a deadlock was found: what it is.
    pub deadlock: Option<String>,
}

impl Pfc {
    /// The state for `topo` (every link needs a reverse for its frames).
    pub(super) fn new(topo: &Topology, cfg: PfcConfig, buffer: u64) -> Result<Pfc> {
        let n = topo.num_links();
        if n >= 1 << 28 {
            return Err(Error::invalid(
                "lossless",
                format!("{n} links; PFC supports fewer than 2^28"),
            ));
        }
        let rev = topo.reverse_links();
        let mut out = Vec::with_capacity(n);
        for (i, r) in rev.iter().enumerate() {
            match r {
                Some(l) => out.push(l.0),
                None => {
                    return Err(Error::invalid(
                        format!("link {i}"),
                        "has no link back for PFC frames (lossless = true needs both directions)",
                    ))
                }
            }
        }
        // The hosts' NIC rate (the slowest, if they differ): ports faster than it get a
        // larger share of the free memory (the reference's `pfc_a_shift`).
        let nic = topo
            .hosts()
            .iter()
            .filter_map(|&h| topo.out_links(h).first().map(|&l| topo.link(l).capacity))
            .min()
            .map_or(0, |r| r.0);
        let mut headroom = Vec::with_capacity(n);
        let mut shift = Vec::with_capacity(n);
        let mut set_aside = vec![0u64; topo.num_nodes()];
        for l in topo.links() {
            let h = cfg.headroom.map_or_else(
                || 3 * (l.capacity.0 as u128 * l.delay.0 as u128 / 8 / Time::S as u128) as u64,
                |b| b.0,
            );
            headroom.push(h);
            let mut s = cfg.alpha_shift;
            let mut rate = l.capacity.0;
            while nic > 0 && rate > nic && s > 0 {
                s -= 1;
                rate /= 2;
            }
            shift.push(s);
            if !topo.is_host(l.dst) {
                set_aside[l.dst.idx()] += h + cfg.reserve.0;
            }
        }
        for (node, &a) in set_aside.iter().enumerate() {
            if a > buffer {
                return Err(Error::invalid(
                    "pfc.headroom",
                    format!(
                        "node {node}: its ports' headroom and reserve ({}) exceed the switch \
                         buffer ({})",
                        Bytes(a),
                        Bytes(buffer)
                    ),
                ));
            }
        }
        Ok(Pfc {
            cfg,
            buffer,
            ingress: vec![[0; CLASSES]; n],
            hdrm: vec![[0; CLASSES]; n],
            sent: vec![0; n],
            headroom,
            shift,
            shared_used: vec![0; topo.num_nodes()],
            set_aside,
            rev: out,
            via: HashMap::new(),
            pauses_sent: vec![0; n],
            pauses_received: vec![0; n],
            paused_time: vec![0; n],
            paused_since: vec![0; n],
            frames: Vec::new(),
            deadlock: None,
        })
    }

    /// Link `i`'s paused time up to `now` (counting a pause still in force).
    pub(super) fn paused_time_to(&self, i: usize, now: u64, paused: bool) -> u64 {
        self.paused_time[i]
            + if paused {
                now - self.paused_since[i]
            } else {
                0
            }
    }

    /// Shared bytes of ingress `i`, priority `p`.
    fn shared(&self, i: usize, p: usize) -> u64 {
        self.ingress[i][p].saturating_sub(self.cfg.reserve.0)
    }

    /// The pause threshold of ingress `i` at `node`.
    fn threshold(&self, i: usize, node: usize) -> u64 {
        match self.cfg.xoff {
            Some(x) => x.0,
            None => {
                let free = self
                    .buffer
                    .saturating_sub(self.set_aside[node] + self.shared_used[node]);
                free >> self.shift[i]
            }
        }
    }

    fn should_pause(&self, i: usize, p: usize, node: usize) -> bool {
        self.sent[i] & (1 << p) == 0
            && (self.hdrm[i][p] > 0 || self.shared(i, p) >= self.threshold(i, node))
    }

    fn should_resume(&self, i: usize, p: usize, node: usize) -> bool {
        if self.sent[i] & (1 << p) == 0 || self.hdrm[i][p] > 0 {
            return false;
        }
        let shared = self.shared(i, p);
        match (self.cfg.xoff, self.cfg.xon) {
            (Some(x), xon) => {
                shared <= xon.map_or(x.0.saturating_sub(self.cfg.xon_offset.0), |b| b.0)
            }
            (None, _) => shared == 0 || shared + self.cfg.xon_offset.0 <= self.threshold(i, node),
        }
    }
}

impl<S: SchemeSet> PacketSim<S> {
    /// The link data packet `id` came into its current switch over (its route's previous hop).
    #[inline]
    fn pfc_ingress(&self, id: PacketId) -> (usize, usize) {
        let pkt = self.pool.get(id);
        let i = self.paths[pkt.route as usize + pkt.hop as usize - 2] as usize;
        (i, (pkt.priority as usize) % CLASSES)
    }

    /// Ingress admission of data packet `id` at switch egress `e`: false when the headroom
    /// is full too (the packet is dropped).
    pub(super) fn pfc_admits(&self, e: u32, id: PacketId) -> bool {
        let Some(pfc) = self.pfc.as_deref() else {
            return true;
        };
        let (i, p) = self.pfc_ingress(id);
        let node = self.ports[e as usize].node.idx();
        let size = self.pool.get(id).wire as u64;
        pfc.hdrm[i][p] + size <= pfc.headroom[i]
            || pfc.shared(i, p) + size <= pfc.threshold(i, node)
    }

    /// Accounts data packet `id`, queued at switch egress `e`; pauses its ingress if due.
    pub(super) fn pfc_add(&mut self, now: u64, e: u32, id: PacketId) {
        let (i, p) = self.pfc_ingress(id);
        let node = self.ports[e as usize].node.idx();
        let size = self.pool.get(id).wire as u64;
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let reserve = pfc.cfg.reserve.0;
        let held = pfc.ingress[i][p] + size;
        if held <= reserve {
            pfc.ingress[i][p] = held;
        } else if held - reserve > pfc.threshold(i, node) {
            pfc.hdrm[i][p] += size;
        } else {
            pfc.ingress[i][p] = held;
            pfc.shared_used[node] += size.min(held - reserve);
        }
        *pfc.via.entry((i as u32, e)).or_insert(0) += size;
        if pfc.should_pause(i, p, node) {
            pfc.sent[i] |= 1 << p;
            pfc.pauses_sent[i] += 1;
            self.pfc_send(now, i, p, true);
        }
    }

    /// Takes data packet `id`, leaving switch egress `e`, off its ingress; resumes it if due.
    pub(super) fn pfc_remove(&mut self, now: u64, e: u32, id: PacketId) {
        let (i, p) = self.pfc_ingress(id);
        let node = self.ports[e as usize].node.idx();
        let size = self.pool.get(id).wire as u64;
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let from_hdrm = pfc.hdrm[i][p].min(size);
        let from_shared = (size - from_hdrm).min(pfc.shared(i, p));
        pfc.hdrm[i][p] -= from_hdrm;
        pfc.ingress[i][p] -= size - from_hdrm;
        pfc.shared_used[node] -= from_shared;
        if let Some(b) = pfc.via.get_mut(&(i as u32, e)) {
            *b -= size;
        }
        if pfc.should_resume(i, p, node) {
            pfc.sent[i] &= !(1 << p);
            self.pfc_send(now, i, p, false);
        }
    }

    /// Sends a pause (or resume) for link `i`'s priority `p` from its far end: it arrives at
    /// `i`'s sending port after the packet the reverse link is serializing, the frame's own
    /// serialization and the reverse link's delay.
    fn pfc_send(&mut self, now: u64, i: usize, p: usize, pause: bool) {
        let pfc = self.pfc.as_deref().expect("PFC is on");
        let r = pfc.rev[i] as usize;
        let frame = pfc.cfg.frame;
        let port = &self.ports[r];
        let at = port.busy_until.max(now) + port.rate.tx_time(frame).0 + port.delay;
        let word = (i as u32) << 4 | (p as u32) << 1 | pause as u32;
        self.events.push(Time(at), Event::Pfc(word));
    }

    /// A PFC frame takes effect at the sending port of its link.
    pub(super) fn on_pfc_frame(&mut self, now: u64, word: u32) {
        let (i, p, pause) = ((word >> 4) as usize, (word >> 1) & 7, word & 1 == 1);
        let Some(pfc) = self.pfc.as_deref_mut() else {
            return;
        };
        let port = &mut self.ports[i];
        let was = port.pfc_paused;
        if pause {
            port.pfc_paused |= 1 << p;
            pfc.pauses_received[i] += 1;
        } else {
            port.pfc_paused &= !(1 << p);
        }
        match (was != 0, port.pfc_paused != 0) {
            (false, true) => pfc.paused_since[i] = now,
            (true, false) => pfc.paused_time[i] += now - pfc.paused_since[i],
            _ => {}
        }
        pfc.frames.push(PfcFrame {
            time: Time(now),
            link: LinkId(i as u32),
            priority: p as u8,
            pause,
        });
        if pause {
            self.pfc_check_deadlock(now);
        } else {
            self.port_try_start(now, i as u32);
            let port = &self.ports[i];
            if port.host_nic && port.busy_until <= now {
                let h = self.host_of_node[port.node.idx()];
                self.host_pull(now, h);
            }
        }
    }

    /// Looks for a set of paused ports whose far ends hold bytes only at ports of the set
    /// (the greatest such set: start from every port paused with no resume on its way, drop a
    /// port while some byte it brought waits at a port outside the set); a nonempty set is a
    /// deadlock, and the run stops.
    fn pfc_check_deadlock(&mut self, now: u64) {
        let Some(pfc) = self.pfc.as_deref() else {
            return;
        };
        let mut stuck: Vec<bool> = self
            .ports
            .iter()
            .enumerate()
            .map(|(l, port)| port.pfc_paused & pfc.sent[l] != 0)
            .collect();
        loop {
            let mut changed = false;
            for (&(i, e), &b) in &pfc.via {
                if b > 0 && stuck[i as usize] && !stuck[e as usize] {
                    stuck[i as usize] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let held = |l: usize| pfc.ingress[l].iter().chain(&pfc.hdrm[l]).any(|&b| b > 0);
        let ports: Vec<String> = (0..stuck.len())
            .filter(|&l| stuck[l] && held(l))
            .map(|l| {
                let port = &self.ports[l];
                format!("link {l} ({} -> {})", port.node, port.to)
            })
            .collect();
        if !ports.is_empty() {
            let msg = format!(
                "PFC deadlock at {}: a cyclic buffer dependency among the paused ports {}; \
                 none can resume (their far ends hold bytes only at ports of the set)",
                Time(now),
                ports.join(", ")
            );
            self.pfc.as_deref_mut().expect("PFC is on").deadlock = Some(msg);
            self.halted = true;
        }
    }
}
