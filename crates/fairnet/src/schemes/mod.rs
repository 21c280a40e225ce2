//! Baseline schemes and reference models the papers compare against, one file each with its
//! citation and config.

pub mod chiu_jain;
pub mod dctcp_fluid;
