//! The baselines the papers compare against, one file per scheme, each with its citation,
//! its configuration (serde, units, defaults citing their source) and its unit tests.
//!
//! Each implements one of the packet engine's extension traits
//! ([`crate::engine::packet::CongestionControl`], [`crate::engine::packet::Qdisc`],
//! [`crate::engine::packet::PortAgent`]) or, for a baseline's analytical model, the model
//! engine's ([`crate::engine::model`]); the registry (`crate::registry`) maps scenario names
//! to them. A scheme may use another's parts (pFabric and the delay AIMD reuse DCTCP's
//! [`dctcp::AimdWindow`], D2TCP and L2DCT its [`dctcp::AlphaEstimator`] too); none imports `crate::systems` or the registry.
//!
//! | file | scheme | kind |
//! | --- | --- | --- |
//! | [`dctcp`] | DCTCP (SIGCOMM 2010), NewReno (RFC 5681/6582) with or without ECN (RFC 3168) | congestion control |
//! | [`d2tcp`] | D2TCP (SIGCOMM 2012): deadline-aware DCTCP | congestion control |
//! | [`l2dct`] | L2DCT (INFOCOM 2013): least-attained-service DCTCP | congestion control |
//! | [`cubic`] | CUBIC (RFC 9438) | congestion control |
//! | [`hpcc`] | HPCC (SIGCOMM 2019) | congestion control |
//! | [`dcqcn`] | DCQCN (SIGCOMM 2015) | congestion control |
//! | [`timely`] | TIMELY (SIGCOMM 2015) | congestion control |
//! | [`delay_aimd`] | Söze §5.3.1's queueing-delay AIMD | congestion control |
//! | [`rcp`] | RCP (Dukkipati, 2008): sender and router agent | congestion control + port agent |
//! | [`pfabric`] | pFabric (SIGCOMM 2013): host transport and switch queue | congestion control + qdisc |
//! | [`fifo`] | drop-tail, DCTCP's step ECN marking | qdisc |
//! | [`red`] | RED, gentle RED, Adaptive RED | qdisc |
//! | [`sched`] | strict priority, DRR, WRR | qdisc |
//! | [`las`] | least attained service (Rai et al., IEEE Network 2005) | qdisc |
//! | [`int`] | HPCC's in-band network telemetry | port agent |
//! | [`acdc`] | AC/DC TCP (SIGCOMM 2016) and the virtual congestion control core WVCC shares | host shim |
//! | [`dctcp_fluid`] | DCTCP's fluid model (Alizadeh, Javanmard, Prabhakar, SIGMETRICS 2011) | model |
//! | [`chiu_jain`] | Chiu and Jain's AIMD map (1989) | model |

pub mod acdc;
pub mod chiu_jain;
pub mod cubic;
pub mod d2tcp;
pub mod dcqcn;
pub mod dctcp;
pub mod dctcp_fluid;
pub mod delay_aimd;
pub mod fifo;
pub mod hpcc;
pub mod int;
pub mod l2dct;
pub mod las;
pub mod pfabric;
pub mod rcp;
pub mod red;
pub mod sched;
pub mod timely;
