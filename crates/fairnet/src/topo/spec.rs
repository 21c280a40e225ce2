//! [`TopologySpec`]: how a scenario file names a topology.
//!
//! ```toml
//! [topology]
//! kind = "fat_tree"
//! k = 16
//! # host_rate = "100Gbps", fabric_rate = "100Gbps", delay = "1us", buffer = "32MB",
//! # oversubscription = 1 are the defaults
//! ```
//!
//! Defaults are those of Söze's ns-3 fat-tree (Söze §5, "NS-3 simulator setup": 100 Gbps
//! links, 1 µs link delay, 32 MB buffer): every rate defaults to [`DEFAULT_RATE`], `delay` to
//! [`DEFAULT_DELAY`], `buffer` to [`DEFAULT_BUFFER`]. Sizes (`k`, counts) have no default.
//! Every link of a generated topology has the same `delay` and `buffer`.

use super::builders::{
    b4, dumbbell, fat_tree, leaf_spine, parking_lot, soze_fig17, star, uranus_fat_tree,
    FatTreeSpec, LeafSpineSpec,
};
use super::formats::{read_topology_file, FileFormat};
use super::{LinkSpec, Topology, DEFAULT_BUFFER, DEFAULT_DELAY, DEFAULT_RATE};
use crate::error::{Error, Result};
use crate::units::{Bytes, Rate, Time};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

fn default_rate() -> Rate {
    DEFAULT_RATE
}
fn default_delay() -> Time {
    DEFAULT_DELAY
}
fn default_buffer() -> Bytes {
    DEFAULT_BUFFER
}
fn one() -> u32 {
    1
}

/// A topology as a scenario file describes it: a builder and its parameters, or a file.
///
/// Tagged by `kind` (`"fat_tree"`, `"leaf_spine"`, `"dumbbell"`, `"parking_lot"`, `"b4"`, `"star"`,
/// `"soze_fig17"`, `"uranus_fat_tree"`, `"file"`); unknown fields are errors. See the [module docs](self) for the defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TopologySpec {
    /// A k-ary fat-tree ([`fat_tree`]).
    FatTree {
        /// Switch radix (even, >= 4).
        k: u32,
        /// Host ↔ edge rate. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        host_rate: Rate,
        /// Switch ↔ switch rate. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        fabric_rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
        /// Hosts per edge switch are `oversubscription · k/2`. Default 1.
        #[serde(default = "one")]
        oversubscription: u32,
    },
    /// A leaf–spine network ([`leaf_spine`]).
    LeafSpine {
        /// Hosts under each leaf.
        hosts_per_leaf: u32,
        /// Number of leaves.
        leaves: u32,
        /// Number of spines.
        spines: u32,
        /// Host ↔ leaf rate. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        host_rate: Rate,
        /// Leaf ↔ spine rate. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        fabric_rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// A dumbbell ([`dumbbell`]).
    Dumbbell {
        /// Sender/receiver pairs.
        n_pairs: u32,
        /// Host ↔ switch rate. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        access_rate: Rate,
        /// Rate of the middle link. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        bottleneck_rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// A parking lot ([`parking_lot`]).
    ParkingLot {
        /// Number of hops (trunk links).
        n_hops: u32,
        /// Cross-traffic host pairs per hop. Default 1.
        #[serde(default = "one")]
        per_hop_hosts: u32,
        /// Rate of every link. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// A B4-like inter-datacenter WAN of 12 sites and 19 cables ([`b4`]).
    B4 {
        /// Hosts at each site. Default 1.
        #[serde(default = "one")]
        hosts_per_site: u32,
        /// Rate of the inter-site cables.
        rate: Rate,
        /// Rate of the host ↔ site links. Default: `rate`.
        #[serde(default)]
        access_rate: Option<Rate>,
        /// Delay of the host ↔ site links (the cables' delays follow from the sites'
        /// distances). Default 1 µs.
        #[serde(default = "default_delay")]
        access_delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// A single switch with hosts ([`star`]).
    Star {
        /// Number of hosts.
        n_hosts: u32,
        /// Rate of every link. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// Söze Fig. 17's two switches and six flows' hosts ([`soze_fig17`]; the flows are the
    /// scenario's to give).
    SozeFig17 {
        /// Rate of every link. Default 100 Gb/s.
        #[serde(default = "default_rate")]
        rate: Rate,
        /// Link delay. Default 1 µs.
        #[serde(default = "default_delay")]
        delay: Time,
        /// Egress buffer of every link. Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
    /// Uranus §5.2's network ([`uranus_fat_tree`]): a k = 4 fat-tree of 64 hosts, 1 Gb/s host
    /// and ToR–aggregation links, 10 Gb/s core links, 25 µs per link, 1 MB buffers.
    UranusFatTree {},
    /// A topology file ([`read_topology_file`]).
    File {
        /// The file; relative paths are resolved by [`TopologySpec::build_relative_to`]
        /// (against the scenario's directory) or against the working directory by
        /// [`TopologySpec::build`].
        path: PathBuf,
        /// `"hpcc"`, `"toml"` or `"json"`. Default: from the extension (`.txt` is HPCC).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        format: Option<FileFormat>,
        /// Buffer of links that do not state one (all links of an HPCC file). Default 32 MB.
        #[serde(default = "default_buffer")]
        buffer: Bytes,
    },
}

impl TopologySpec {
    /// The `kind` tag of this spec, as written in files.
    pub fn kind(&self) -> &'static str {
        match self {
            TopologySpec::FatTree { .. } => "fat_tree",
            TopologySpec::LeafSpine { .. } => "leaf_spine",
            TopologySpec::Dumbbell { .. } => "dumbbell",
            TopologySpec::ParkingLot { .. } => "parking_lot",
            TopologySpec::B4 { .. } => "b4",
            TopologySpec::Star { .. } => "star",
            TopologySpec::SozeFig17 { .. } => "soze_fig17",
            TopologySpec::UranusFatTree {} => "uranus_fat_tree",
            TopologySpec::File { .. } => "file",
        }
    }

    /// A link spec from named rate, delay and buffer fields, checked with the field names.
    fn link(&self, rate_field: &str, rate: Rate, delay: Time, buffer: Bytes) -> Result<LinkSpec> {
        if rate.0 == 0 {
            return Err(Error::invalid(
                format!("{}.{rate_field}", self.kind()),
                format!("must be positive, got {rate}"),
            ));
        }
        if buffer.0 == 0 {
            return Err(Error::invalid(
                format!("{}.buffer", self.kind()),
                format!("must be positive, got {buffer}"),
            ));
        }
        Ok(LinkSpec::new(rate, delay, buffer))
    }

    /// Builds the topology; a relative file path is taken from the working directory.
    pub fn build(&self) -> Result<Topology> {
        self.build_relative_to(Path::new("."))
    }

    /// Builds the topology; a relative file path is resolved against `dir` (normally the
    /// directory of the scenario file). Errors name the field, e.g.
    /// `fat_tree.host_rate: must be positive, got 0bps` or `fat_tree.k: must be an even number
    /// >= 4, got 5`.
    pub fn build_relative_to(&self, dir: &Path) -> Result<Topology> {
        match *self {
            TopologySpec::FatTree {
                k,
                host_rate,
                fabric_rate,
                delay,
                buffer,
                oversubscription,
            } => fat_tree(FatTreeSpec {
                k,
                host_link: self.link("host_rate", host_rate, delay, buffer)?,
                fabric_link: self.link("fabric_rate", fabric_rate, delay, buffer)?,
                oversubscription,
            }),
            TopologySpec::LeafSpine {
                hosts_per_leaf,
                leaves,
                spines,
                host_rate,
                fabric_rate,
                delay,
                buffer,
            } => leaf_spine(LeafSpineSpec {
                hosts_per_leaf,
                leaves,
                spines,
                host_link: self.link("host_rate", host_rate, delay, buffer)?,
                fabric_link: self.link("fabric_rate", fabric_rate, delay, buffer)?,
            }),
            TopologySpec::Dumbbell {
                n_pairs,
                access_rate,
                bottleneck_rate,
                delay,
                buffer,
            } => dumbbell(
                n_pairs,
                self.link("access_rate", access_rate, delay, buffer)?,
                self.link("bottleneck_rate", bottleneck_rate, delay, buffer)?,
            ),
            TopologySpec::ParkingLot {
                n_hops,
                per_hop_hosts,
                rate,
                delay,
                buffer,
            } => parking_lot(
                n_hops,
                per_hop_hosts,
                self.link("rate", rate, delay, buffer)?,
            ),
            TopologySpec::B4 {
                hosts_per_site,
                rate,
                access_rate,
                access_delay,
                buffer,
            } => b4(
                hosts_per_site,
                self.link(
                    "access_rate",
                    access_rate.unwrap_or(rate),
                    access_delay,
                    buffer,
                )?,
                // The cables' delays are computed by the builder.
                self.link("rate", rate, Time::ZERO, buffer)?,
            ),
            TopologySpec::Star {
                n_hosts,
                rate,
                delay,
                buffer,
            } => star(n_hosts, self.link("rate", rate, delay, buffer)?),
            TopologySpec::SozeFig17 {
                rate,
                delay,
                buffer,
            } => soze_fig17(self.link("rate", rate, delay, buffer)?).map(|p| p.topology),
            TopologySpec::UranusFatTree {} => uranus_fat_tree(),
            TopologySpec::File {
                ref path,
                format,
                buffer,
            } => {
                if buffer.0 == 0 {
                    return Err(Error::invalid("file.buffer", "must be positive, got 0B"));
                }
                let format = match format.or_else(|| FileFormat::from_path(path)) {
                    Some(f) => f,
                    None => {
                        return Err(Error::invalid(
                            "file.format",
                            format!(
                                "cannot tell the format of {} from its extension; set format = \"hpcc\", \"toml\" or \"json\"",
                                path.display()
                            ),
                        ))
                    }
                };
                read_topology_file(&dir.join(path), format, buffer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::LinkId;
    use crate::topo::formats::write_topology_file;

    #[test]
    fn fat_tree_from_toml_with_defaults() {
        let spec: TopologySpec = toml::from_str("kind = \"fat_tree\"\nk = 4\n").unwrap();
        assert_eq!(
            spec,
            TopologySpec::FatTree {
                k: 4,
                host_rate: Rate::gbps(100),
                fabric_rate: Rate::gbps(100),
                delay: Time::from_us(1),
                buffer: Bytes(32_000_000),
                oversubscription: 1,
            }
        );
        let t = spec.build().unwrap();
        assert_eq!((t.num_hosts(), t.num_nodes()), (16, 36));
        assert!(t.links().iter().all(|l| l.spec() == LinkSpec::default()));
    }

    #[test]
    fn uranus_fat_tree_is_named_by_kind_alone() {
        // §5.2's network: 64 hosts; 4 core + 8 aggregation + 8 ToR switches; links as the
        // builder (the same topology, link for link); any other field is an error.
        let spec: TopologySpec = toml::from_str("kind = \"uranus_fat_tree\"\n").unwrap();
        let t = spec.build().unwrap();
        assert_eq!((t.num_hosts(), t.num_nodes()), (64, 84));
        assert_eq!(t, uranus_fat_tree().unwrap());
        assert!(toml::from_str::<TopologySpec>("kind = \"uranus_fat_tree\"\nk = 4\n").is_err());
    }

    #[test]
    fn every_kind_parses_and_builds() {
        let cases = [
            (
                r#"{"kind":"fat_tree","k":4,"oversubscription":2,"fabric_rate":"400Gbps"}"#,
                32,
                20,
            ),
            (
                r#"{"kind":"leaf_spine","hosts_per_leaf":4,"leaves":3,"spines":2}"#,
                12,
                5,
            ),
            (
                r#"{"kind":"b4","rate":"1Gbps","hosts_per_site":3,"access_rate":"10Gbps"}"#,
                36,
                12,
            ),
            (
                r#"{"kind":"dumbbell","n_pairs":3,"bottleneck_rate":"10Gbps","delay":"5us"}"#,
                6,
                2,
            ),
            (r#"{"kind":"parking_lot","n_hops":3}"#, 8, 4),
            (r#"{"kind":"star","n_hosts":5,"buffer":"1MB"}"#, 5, 1),
        ];
        for (json, hosts, switches) in cases {
            let spec: TopologySpec = serde_json::from_str(json).unwrap();
            let t = spec.build().unwrap();
            assert_eq!(
                (t.num_hosts(), t.num_nodes() - t.num_hosts()),
                (hosts, switches),
                "{json}"
            );
            // Serialization round-trips.
            let again: TopologySpec =
                serde_json::from_str(&serde_json::to_string(&spec).unwrap()).unwrap();
            assert_eq!(again, spec);
        }
        let spec: TopologySpec = serde_json::from_str(
            r#"{"kind":"dumbbell","n_pairs":3,"bottleneck_rate":"10Gbps","delay":"5us"}"#,
        )
        .unwrap();
        let t = spec.build().unwrap();
        assert_eq!(t.link(LinkId(0)).capacity, Rate::gbps(10));
        assert_eq!(t.link(LinkId(2)).capacity, Rate::gbps(100));
        assert_eq!(t.link(LinkId(2)).delay, Time::from_us(5));
    }

    #[test]
    fn bad_specs_name_the_field() {
        let err = |text: &str| {
            toml::from_str::<TopologySpec>(text)
                .unwrap_err()
                .to_string()
        };
        assert!(err("kind = \"fat_tree\"\nk = 4\nradix = 8\n").contains("unknown field `radix`"));
        assert!(err("kind = \"torus\"\n").contains("unknown variant `torus`"));
        assert!(err("kind = \"fat_tree\"\n").contains("missing field `k`"));
        assert!(err("kind = \"star\"\nn_hosts = 2\nrate = \"fast\"\n").contains("expected a rate"));

        let build = |text: &str| {
            toml::from_str::<TopologySpec>(text)
                .unwrap()
                .build()
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            build("kind = \"fat_tree\"\nk = 6\nhost_rate = \"0Gbps\"\n"),
            "fat_tree.host_rate: must be positive, got 0bps"
        );
        assert_eq!(
            build("kind = \"fat_tree\"\nk = 5\n"),
            "fat_tree.k: must be an even number >= 4, got 5"
        );
        assert_eq!(
            build("kind = \"star\"\nn_hosts = 3\nbuffer = 0\n"),
            "star.buffer: must be positive, got 0B"
        );
        assert_eq!(
            build("kind = \"parking_lot\"\nn_hops = 0\n"),
            "parking_lot.n_hops: must be at least 1, got 0"
        );
        assert!(
            build("kind = \"file\"\npath = \"topo.dat\"\n").starts_with("file.format: cannot tell")
        );
    }

    #[test]
    fn file_spec_resolves_relative_paths() {
        let dir = std::env::temp_dir().join(format!("fairnet-topo-spec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = crate::topo::builders::star(3, LinkSpec::default()).unwrap();
        write_topology_file(&t, &dir.join("star.txt"), FileFormat::Hpcc).unwrap();
        write_topology_file(&t, &dir.join("star.json"), FileFormat::Json).unwrap();

        let spec: TopologySpec =
            toml::from_str("kind = \"file\"\npath = \"star.txt\"\nbuffer = \"1MB\"\n").unwrap();
        let back = spec.build_relative_to(&dir).unwrap();
        assert_eq!(back.num_hosts(), 3);
        assert!(back.links().iter().all(|l| l.buffer == Bytes(1_000_000)));

        let spec: TopologySpec =
            toml::from_str("kind = \"file\"\npath = \"star.json\"\nformat = \"json\"\n").unwrap();
        assert_eq!(spec.build_relative_to(&dir).unwrap(), t);

        let spec: TopologySpec = toml::from_str("kind = \"file\"\npath = \"nope.toml\"\n").unwrap();
        assert!(matches!(
            spec.build_relative_to(&dir),
            Err(Error::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
