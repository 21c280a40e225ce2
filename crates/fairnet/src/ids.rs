//! Dense integer ids. Each is an index into the owning table (nodes of a topology, links of a
//! topology, flows of a workload), so lookups are array accesses.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into its table.
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A host or switch of a topology.
    NodeId,
    "node "
);
id_type!(
    /// A directed link of a topology.
    LinkId,
    "link "
);
id_type!(
    /// A flow of a workload.
    FlowId,
    "flow "
);
