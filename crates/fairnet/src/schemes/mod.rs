//! Baseline schemes the papers compare against, one file each with its citation and config.

pub mod dctcp_fluid;
