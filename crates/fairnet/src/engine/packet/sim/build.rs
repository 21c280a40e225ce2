//! Building a simulation: ports from the links (with the scheme set's disciplines and agents), hosts, routes cached per flow, each flow's transport from the scheme set.

use super::*;

impl<S: SchemeSet> PacketSim<S> {
    /// Validates the inputs and builds the simulation at time zero.
    ///
    /// Errors name the item: `flows[3]: src and dst are the same host node 5`,
    /// `flows[2]: unknown dst node 99 (the topology has 20 nodes)`,
    /// `link 7: buffer 500B is smaller than one packet (1048B)`,
    /// `node 4: host has 2 out-links; the packet engine supports one NIC per host`.
    pub fn new(
        topo: &Topology,
        flows: &[FlowSpec],
        cfg: EngineConfig,
        schemes: S,
    ) -> Result<PacketSim<S>> {
        Self::with_paths(topo, flows, cfg, schemes, &[])
    }

    /// As [`PacketSim::new`], with some flows' data paths given rather than routed: `pinned[i]`,
    /// when present and `Some`, is the list of links flow `i`'s data packets take, from its
    /// source to its destination (any such chain of links, shortest or not; the other flows,
    /// and every flow's ACKs, are routed by `cfg.routing` as usual). Used to run the same path
    /// assignment as another simulator. Not with per-packet routing (spraying, flowcells).
    ///
    /// Errors name the flow: `flows[2]: pinned path: link 7 leaves node 18, not node 17`.
    pub fn with_paths(
        topo: &Topology,
        flows: &[FlowSpec],
        cfg: EngineConfig,
        mut schemes: S,
        pinned: &[Option<Vec<LinkId>>],
    ) -> Result<PacketSim<S>> {
        cfg.validate("engine config")?;
        topo.validate()?;
        let mtu_wire = cfg.mtu_wire();
        let n_nodes = topo.num_nodes();
        if u32::try_from(flows.len()).is_err() {
            return Err(Error::invalid("flows", "more than 2^32 - 1 flows"));
        }

        if topo.num_links() >= u32::MAX as usize {
            // Events and packets carry link indices as `u32`.
            return Err(Error::invalid(
                "topology",
                format!(
                    "{} links; the packet engine supports fewer than 2^32 - 1",
                    topo.num_links()
                ),
            ));
        }
        for (i, l) in topo.links().iter().enumerate() {
            if l.buffer < mtu_wire {
                return Err(Error::invalid(
                    format!("link {i}"),
                    format!(
                        "buffer {} is smaller than one packet ({})",
                        l.buffer, mtu_wire
                    ),
                ));
            }
        }

        let mut host_of_node = vec![NO_HOST; n_nodes];
        let mut hosts = Vec::with_capacity(topo.num_hosts());
        for &h in topo.hosts() {
            let out = topo.out_links(h);
            if out.len() > 1 {
                return Err(Error::invalid(
                    format!("{h}"),
                    format!(
                        "host has {} out-links; the packet engine supports one NIC per host",
                        out.len()
                    ),
                ));
            }
            host_of_node[h.idx()] = hosts.len() as u32;
            hosts.push(Host {
                nic: out.first().map_or(u32::MAX, |l| l.0),
                active: VecDeque::new(),
                sleeping: BinaryHeap::new(),
                wake_at: u64::MAX,
                shim: schemes.host_shim(h)?,
                shim_timer_at: u64::MAX,
                fifo: VecDeque::new(),
                fifo_bytes: 0,
                vtime: 0.0,
                sfq: SfqOrder::default(),
                sfq_recheck: Vec::new(),
                senders: Vec::new(),
                levels: None,
            });
        }

        if pinned.len() > flows.len() {
            return Err(Error::invalid(
                "pinned paths",
                format!("{} entries for {} flows", pinned.len(), flows.len()),
            ));
        }
        if cfg.routing.per_packet() && pinned.iter().any(Option::is_some) {
            return Err(Error::invalid(
                "pinned paths",
                "packets of a sprayed flow choose their hops as they go; pin paths with \
                 per-flow routing",
            ));
        }

        let routing = Routing::new(topo);
        let mss = cfg.mtu.0;
        let header = cfg.header.0;
        let tcp_params = TcpParams {
            mss,
            header,
            min_rto: cfg.min_rto,
            initial_rto: cfg.initial_rto,
            max_rto: cfg.max_rto,
            sack: cfg.sack,
            pacing_burst: cfg.pacing_burst.0,
        };
        let mut paths: Vec<u32> = Vec::new();
        let mut path = Vec::new();
        let mut routes = Vec::with_capacity(flows.len());
        // Two-way control updates: each link's reverse-direction link (`NO_LINK`: none).
        let two_way = cfg.two_way_control;
        let rev_link: Vec<u32> = if two_way {
            topo.reverse_links()
                .iter()
                .map(|r| r.map_or(NO_LINK, |l| l.0))
                .collect()
        } else {
            Vec::new()
        };
        for (i, f) in flows.iter().enumerate() {
            let at = || format!("flows[{i}]");
            for (end, node) in [("src", f.src), ("dst", f.dst)] {
                if !topo.contains(node) {
                    return Err(Error::invalid(
                        at(),
                        format!("unknown {end} {node} (the topology has {n_nodes} nodes)"),
                    ));
                }
                if !topo.is_host(node) {
                    return Err(Error::invalid(
                        at(),
                        format!("{end} {node} is a switch, not a host"),
                    ));
                }
            }
            if f.src == f.dst {
                return Err(Error::invalid(
                    at(),
                    format!("src and dst are the same host {}", f.src),
                ));
            }
            if f.size.0 == 0 {
                return Err(Error::invalid(at(), "size must be positive, got 0B"));
            }
            if !(f.weight.is_finite() && f.weight > 0.0) {
                return Err(Error::invalid(
                    at(),
                    format!("weight must be positive and finite, got {}", f.weight),
                ));
            }
            // Paths: cached per flow unless spraying. Also checks reachability either way.
            let key = i as u64;
            // A sprayed flow caches the first path (packets pick their hops as they go).
            let data_sel = cfg
                .routing
                .data_selector(cfg.seed, key)
                .unwrap_or(PathSelector::First);
            // ACKs of a hashed flow hash independently of its data packets.
            let ack_sel = match cfg.routing {
                RoutingMode::Ecmp => PathSelector::FlowHash {
                    seed: cfg.seed,
                    flow: key | ACK_KEY,
                },
                _ => data_sel,
            };
            // A pinned data path (checked) is cached as given; the others are routed.
            let pin = pinned.get(i).and_then(Option::as_ref);
            if let Some(links) = pin {
                check_pinned(topo, f, links)
                    .map_err(|e| Error::invalid(at(), format!("pinned path: {e}")))?;
            }
            let mut route = |src: NodeId,
                             dst: NodeId,
                             sel,
                             pin: Option<&Vec<LinkId>>|
             -> Result<(usize, usize)> {
                path.clear();
                match pin {
                    Some(links) => path.extend_from_slice(links),
                    None => routing
                        .path_into(src, dst, sel, &mut path)
                        .map_err(|e| Error::invalid(at(), e.to_string()))?,
                }
                if path.len() > u16::MAX as usize {
                    return Err(Error::invalid(at(), "path longer than 65535 hops"));
                }
                let start = paths.len();
                if u32::try_from(start).is_err() {
                    return Err(Error::invalid(at(), "more than 2^32 cached path links"));
                }
                paths.extend(path.iter().map(|l| l.0));
                Ok((start, path.len()))
            };
            let data = route(f.src, f.dst, data_sel, pin)?;
            let ack = if two_way {
                // The exact reverse of the data path (s-PERC §2 assumption 6: "across the
                // same set of links"), so each link can update the reflected control packet.
                let (start, len) = data;
                if u32::try_from(start + len).is_err() {
                    return Err(Error::invalid(at(), "more than 2^32 cached path links"));
                }
                for k in (start..start + len).rev() {
                    let l = paths[k];
                    let r = rev_link[l as usize];
                    if r == NO_LINK {
                        return Err(Error::invalid(
                            at(),
                            format!(
                                "link {l} of the data path has no reverse-direction link; \
                                 two-way control updates (sperc.two_way) send the reflected \
                                 control packet back on the reversed path"
                            ),
                        ));
                    }
                    paths.push(r);
                }
                (start + len, len)
            } else {
                route(f.dst, f.src, ack_sel, None)?
            };
            routes.push((data, ack));
        }

        // What congestion controls may know of their flow (base RTT from the cached paths),
        // and Söze's target range, which every flow must share (§3.1.4).
        let ack_wire = Bytes(header);
        let base_rtt = |(d, a): ((usize, usize), (usize, usize))| -> Time {
            let mut t = 0;
            for (&l, wire) in paths[d.0..d.0 + d.1]
                .iter()
                .map(|l| (l, mtu_wire))
                .chain(paths[a.0..a.0 + a.1].iter().map(|l| (l, ack_wire)))
            {
                let link = topo.link(LinkId(l));
                t += link.delay.0 + link.capacity.tx_time(wire).0;
            }
            Time(t)
        };
        let data_routes: Vec<(usize, usize)> = routes.iter().map(|r| r.0).collect();
        schemes.prepare(&FlowPaths {
            topo,
            flows,
            paths: &paths,
            data: &data_routes,
        })?;

        // Ports after `prepare`: a discipline or agent may use what the scheme set derived
        // from every routed flow (e.g. the flows' weights).
        let mut ports = Vec::with_capacity(topo.num_links());
        for (i, l) in topo.links().iter().enumerate() {
            let link = LinkId(i as u32);
            let info = PortInfo {
                queue: QdiscParams {
                    link,
                    buffer: l.buffer,
                    rate: l.capacity,
                    mtu_wire,
                    seed: cfg.seed,
                },
                host_nic: topo.is_host(l.src),
            };
            ports.push(Port {
                link,
                node: l.src,
                to: l.dst,
                rate: l.capacity,
                delay: l.delay.0,
                buffer: l.buffer,
                host_nic: info.host_nic,
                qdisc: schemes.qdisc(&info)?,
                agent: schemes.port_agent(&info)?.map(Box::new),
                ctrl: None,
                busy_until: 0,
                wake_pending: false,
                stats: PortStats::default(),
                tx_cache: (0, 0),
                wire_head: NO_PACKET,
                wire_tail: NO_PACKET,
                lpf: cfg.qdelay_lpf.map(QdelayLpf::new),
                acks: VecDeque::new(),
                pfc_paused: 0,
            });
        }

        let mut states = Vec::with_capacity(flows.len());
        for (i, (f, &r)) in flows.iter().zip(&routes).enumerate() {
            let (route_data, route_ack) = if cfg.routing.per_packet() {
                (NO_ROUTE, NO_ROUTE)
            } else {
                (r.0 .0 as u32, r.1 .0 as u32)
            };
            let nic_rate = topo.link(topo.out_links(f.src)[0]).capacity;
            let ctx = CcContext {
                mss,
                header,
                nic_rate,
                base_rtt: base_rtt(r),
                weight: f.weight,
            };
            let (sender, receiver) = match schemes.transport(i, f, &ctx)? {
                Transport::ConstantRate(rate) => (
                    Sender::Udp(UdpSender::new(f.size, mss, header, rate, f.start)),
                    Receiver::Udp { received: 0 },
                ),
                Transport::Reliable(cc) => {
                    let mut s = TcpSender::new(f.size, tcp_params, cc);
                    s.cc.on_weight(f.weight);
                    (
                        Sender::Tcp(Box::new(s)),
                        Receiver::Tcp(TcpReceiver::default()),
                    )
                }
            };
            let mut spec = f.clone();
            if let Sender::Tcp(s) = &sender {
                // The transport may pick the flow's priority class (asked once, here).
                if let Some(p) = s.cc.priority() {
                    spec.priority = p;
                }
            }
            states.push(FlowState {
                spec,
                host: host_of_node[f.src.idx()],
                sender,
                receiver,
                route_data,
                route_ack,
                started: false,
                active: false,
                sleep_until: u64::MAX,
                finished: false,
                end: None,
                acked: None,
                rto_event_at: u64::MAX,
                ctrl_event_at: u64::MAX,
                delack: DelAck::default(),
                rx_wire: 0,
                rx_wire_sampled: 0,
                nic_tag: 0.0,
                nic_seq: u64::MAX,
                cell_held: Vec::new(),
                cell_hold_until: u64::MAX,
            });
        }

        let cfg_record = cfg.record;
        let mut events = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            events.push(f.start, Event::FlowStart(i as u32));
        }
        for (h, host) in hosts.iter_mut().enumerate() {
            if let Some(t) = host.shim.as_ref().and_then(|s| s.next_timer()) {
                host.shim_timer_at = t.0;
                events.push(t, Event::ShimTimer(h as u32));
            }
        }
        // Lossless switches: the memory decides admission, so no port of a switch may refuse
        // a packet before it.
        let pfc = match (cfg.pfc, cfg.shared_buffer) {
            (Some(pfc), Some(sb)) => {
                for (i, l) in topo.links().iter().enumerate() {
                    if !topo.is_host(l.src) && l.buffer < sb.size {
                        return Err(Error::invalid(
                            format!("link {i}"),
                            format!(
                                "buffer {} is below shared_buffer.size {} (with lossless = \
                                 true the switch memory decides admission: give switch links \
                                 at least the switch's buffer)",
                                l.buffer, sb.size
                            ),
                        ));
                    }
                }
                Some(Box::new(pfc::Pfc::new(topo, pfc, sb.size.0)?))
            }
            _ => None,
        };
        let switch_mem = if cfg.shared_buffer.is_some() {
            vec![SwitchMemory::default(); n_nodes]
        } else {
            Vec::new()
        };
        Ok(PacketSim {
            cfg,
            schemes,
            mss,
            header,
            routing,
            ports,
            host_of_node,
            hosts,
            flows: states,
            paths,
            pool: PacketPool::new(),
            events,
            c: Counters::default(),
            switch_mem,
            finished: 0,
            spray_ctr: 0,
            levels: NicLevels::default(),
            next_sample: cfg_record.map_or(u64::MAX, |r| r.interval.0),
            rec: cfg_record.map_or_else(Recorder::default, |r| Recorder {
                interval: r.interval.0,
                flows: r.flows,
                queues: r.queues,
                ..Recorder::default()
            }),
            weight_changes: Vec::new(),
            rev_link,
            shim_out: Vec::new(),
            pfc,
            halted: false,
            ctrl_loss_rng: ChaCha8Rng::seed_from_u64(cfg.seed ^ CTRL_LOSS_SALT),
        })
    }
}

/// Why `links` is not a path of `f`'s data from its source to its destination (each link
/// leaving the node the previous one enters, no host forwarding, fewer than 65,536 hops).
fn check_pinned(
    topo: &Topology,
    f: &FlowSpec,
    links: &[LinkId],
) -> std::result::Result<(), String> {
    if links.is_empty() || links.len() > u16::MAX as usize {
        return Err(format!("{} links; a path has 1 to 65535", links.len()));
    }
    let mut at = f.src;
    for (k, &l) in links.iter().enumerate() {
        if l.idx() >= topo.num_links() {
            return Err(format!(
                "unknown {l} (the topology has {} links)",
                topo.num_links()
            ));
        }
        if k > 0 && topo.is_host(at) {
            return Err(format!(
                "link {l} leaves {at}, a host; hosts do not forward"
            ));
        }
        let link = topo.link(l);
        if link.src != at {
            return Err(format!("link {l} leaves {}, not {at}", link.src));
        }
        at = link.dst;
    }
    if at != f.dst {
        return Err(format!("ends at {at}, not at the flow's dst {}", f.dst));
    }
    Ok(())
}
