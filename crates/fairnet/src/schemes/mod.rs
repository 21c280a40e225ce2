//! Baseline schemes and reference models the papers compare against, one file each.

pub mod chiu_jain;
pub mod dctcp_fluid;
