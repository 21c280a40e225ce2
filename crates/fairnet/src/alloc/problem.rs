//! The allocation problem: link capacities, single-path flows, weights, caps and guarantees.
//!
//! Paths are stored in CSR form (`path_ptr`, `path_links`): flow `f` crosses
//! `path_links[path_ptr[f]..path_ptr[f + 1]]`. A [`Problem`] is validated once, when it is built;
//! the solvers and the checker assume a valid problem.

use crate::error::{Error, Result};

/// Relative tolerance used when comparing sums of rates with capacities.
pub const REL_TOL: f64 = 1e-9;

/// A validated weighted max-min allocation problem.
#[derive(Debug, Clone)]
pub struct Problem {
    capacities: Vec<f64>,
    path_ptr: Vec<usize>,
    path_links: Vec<u32>,
    weights: Vec<f64>,
    demands: Option<Vec<f64>>,
    guarantees: Option<Vec<f64>>,
    flow_names: Option<Vec<String>>,
    link_names: Option<Vec<String>>,
    max_path_len: usize,
}

/// Everything needed to build a [`Problem`]; `None` weights mean all 1, `None` demands mean
/// uncapped, `None` guarantees mean 0. Rates and capacities are in bits per second.
#[derive(Debug, Clone, Default)]
pub struct ProblemInput {
    /// Capacity of each link, bits per second.
    pub capacities: Vec<f64>,
    /// CSR row pointers of the paths (length = number of flows + 1).
    pub path_ptr: Vec<usize>,
    /// CSR link indices of the paths.
    pub path_links: Vec<u32>,
    /// Per-flow weight (> 0).
    pub weights: Option<Vec<f64>>,
    /// Per-flow rate cap, bits per second (`f64::INFINITY` for none).
    pub demands: Option<Vec<f64>>,
    /// Per-flow minimum guarantee, bits per second.
    pub guarantees: Option<Vec<f64>>,
    /// Names used in error messages instead of indices (e.g. the ids of a JSON problem).
    pub flow_names: Option<Vec<String>>,
    /// Names used in error messages instead of indices.
    pub link_names: Option<Vec<String>>,
}

impl ProblemInput {
    /// Builds the input from one `Vec` of link indices per flow.
    pub fn from_paths(capacities: Vec<f64>, paths: &[Vec<u32>]) -> ProblemInput {
        let mut path_ptr = Vec::with_capacity(paths.len() + 1);
        let mut path_links = Vec::new();
        path_ptr.push(0);
        for p in paths {
            path_links.extend_from_slice(p);
            path_ptr.push(path_links.len());
        }
        ProblemInput {
            capacities,
            path_ptr,
            path_links,
            ..Default::default()
        }
    }
}

impl Problem {
    /// Validates `input` and builds the problem. Errors name the offending flow or link.
    pub fn new(input: ProblemInput) -> Result<Problem> {
        let ProblemInput {
            capacities,
            path_ptr,
            path_links,
            weights,
            demands,
            guarantees,
            flow_names,
            link_names,
        } = input;
        if path_ptr.is_empty() || path_ptr[0] != 0 {
            return Err(Error::invalid(
                "paths",
                "CSR row pointers must start with 0",
            ));
        }
        let n_flows = path_ptr.len() - 1;
        if n_flows > super::flow_lists::MAX_FLOWS {
            return Err(Error::invalid(
                "paths",
                format!(
                    "{n_flows} flows, more than the oracle's {}",
                    super::flow_lists::MAX_FLOWS
                ),
            ));
        }
        if *path_ptr.last().unwrap() != path_links.len() {
            return Err(Error::invalid(
                "paths",
                format!(
                    "CSR row pointers end at {} but there are {} link indices",
                    path_ptr.last().unwrap(),
                    path_links.len()
                ),
            ));
        }
        let weights = weights.unwrap_or_else(|| vec![1.0; n_flows]);
        let mut p = Problem {
            capacities,
            path_ptr,
            path_links,
            weights,
            demands,
            guarantees,
            flow_names,
            link_names,
            max_path_len: 0,
        };
        p.validate()?;
        p.max_path_len = p
            .path_ptr
            .windows(2)
            .map(|w| w[1] - w[0])
            .max()
            .unwrap_or(0);
        Ok(p)
    }

    fn check_len(&self, what: &str, len: Option<usize>, expected: usize, of: &str) -> Result<()> {
        match len {
            Some(n) if n != expected => Err(Error::invalid(
                what,
                format!("has {n} entries but there are {expected} {of}"),
            )),
            _ => Ok(()),
        }
    }

    fn validate(&self) -> Result<()> {
        let n_flows = self.num_flows();
        let n_links = self.num_links();
        self.check_len("weights", Some(self.weights.len()), n_flows, "flows")?;
        self.check_len(
            "demands",
            self.demands.as_ref().map(Vec::len),
            n_flows,
            "flows",
        )?;
        self.check_len(
            "guarantees",
            self.guarantees.as_ref().map(Vec::len),
            n_flows,
            "flows",
        )?;
        self.check_len(
            "flow names",
            self.flow_names.as_ref().map(Vec::len),
            n_flows,
            "flows",
        )?;
        self.check_len(
            "link names",
            self.link_names.as_ref().map(Vec::len),
            n_links,
            "links",
        )?;
        for (l, &c) in self.capacities.iter().enumerate() {
            if !(c.is_finite() && c > 0.0) {
                return Err(Error::invalid(
                    self.link_label(l),
                    format!("capacity must be a positive finite number of bits/s, got {c}"),
                ));
            }
        }
        for f in 0..n_flows {
            if self.path_ptr[f + 1] < self.path_ptr[f] {
                return Err(Error::invalid(
                    self.flow_label(f),
                    format!(
                        "CSR row pointers decrease ({} then {})",
                        self.path_ptr[f],
                        self.path_ptr[f + 1]
                    ),
                ));
            }
            let path = self.path_raw(f);
            if path.is_empty() {
                return Err(Error::invalid(self.flow_label(f), "path is empty"));
            }
            for (i, &l) in path.iter().enumerate() {
                if l as usize >= n_links {
                    return Err(Error::invalid(
                        self.flow_label(f),
                        format!(
                            "path goes through unknown link index {l} (there are {n_links} links)"
                        ),
                    ));
                }
                if path[..i].contains(&l) {
                    return Err(Error::invalid(
                        self.flow_label(f),
                        format!("path crosses {} twice", self.link_label(l as usize)),
                    ));
                }
            }
            let w = self.weights[f];
            if !(w.is_finite() && w > 0.0) {
                return Err(Error::invalid(
                    self.flow_label(f),
                    format!("weight must be a positive finite number, got {w}"),
                ));
            }
            let d = self.demand(f);
            if d.is_nan() || d < 0.0 {
                return Err(Error::invalid(
                    self.flow_label(f),
                    format!("demand must be a non-negative number of bits/s (or absent), got {d}"),
                ));
            }
            let g = self.guarantee(f);
            if !(g.is_finite() && g >= 0.0) {
                return Err(Error::invalid(
                    self.flow_label(f),
                    format!("guarantee must be a non-negative finite number of bits/s, got {g}"),
                ));
            }
            if g > d {
                return Err(Error::invalid(
                    self.flow_label(f),
                    format!("guarantee {g} bits/s is above its demand {d} bits/s"),
                ));
            }
        }
        if let Some(gs) = &self.guarantees {
            let mut sum = vec![0.0f64; n_links];
            for (f, &g) in gs.iter().enumerate() {
                for &l in self.path_raw(f) {
                    sum[l as usize] += g;
                }
            }
            for (l, (&s, &c)) in sum.iter().zip(&self.capacities).enumerate() {
                if s > c * (1.0 + REL_TOL) {
                    return Err(Error::invalid(
                        self.link_label(l),
                        format!("guarantees of its flows sum to {s} bits/s, above its capacity {c} bits/s"),
                    ));
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn path_raw(&self, f: usize) -> &[u32] {
        &self.path_links[self.path_ptr[f]..self.path_ptr[f + 1]]
    }

    /// Number of flows.
    pub fn num_flows(&self) -> usize {
        self.path_ptr.len() - 1
    }
    /// Number of links.
    pub fn num_links(&self) -> usize {
        self.capacities.len()
    }
    /// Link capacities, bits per second.
    pub fn capacities(&self) -> &[f64] {
        &self.capacities
    }
    /// The links flow `f` crosses, in order.
    #[inline]
    pub fn path(&self, f: usize) -> &[u32] {
        self.path_raw(f)
    }
    /// The number of links of the longest path (0 without flows).
    pub fn max_path_len(&self) -> usize {
        self.max_path_len
    }
    /// CSR row pointers of the paths.
    pub fn path_ptr(&self) -> &[usize] {
        &self.path_ptr
    }
    /// CSR link indices of the paths.
    pub fn path_links(&self) -> &[u32] {
        &self.path_links
    }
    /// Flow weights.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }
    /// Whether any flow has a finite demand.
    pub fn has_demands(&self) -> bool {
        self.demands.is_some()
    }
    /// Whether any flow has a guarantee.
    pub fn has_guarantees(&self) -> bool {
        self.guarantees.is_some()
    }
    /// Rate cap of flow `f` (`f64::INFINITY` when uncapped).
    #[inline]
    pub fn demand(&self, f: usize) -> f64 {
        self.demands.as_ref().map_or(f64::INFINITY, |d| d[f])
    }
    /// Minimum guarantee of flow `f` (0 when none).
    #[inline]
    pub fn guarantee(&self, f: usize) -> f64 {
        self.guarantees.as_ref().map_or(0.0, |g| g[f])
    }
    /// How errors and reports name flow `f`: its name if the problem has names, else `flows[f]`.
    pub fn flow_label(&self, f: usize) -> String {
        match &self.flow_names {
            Some(n) => format!("flow {:?}", n[f]),
            None => format!("flows[{f}]"),
        }
    }
    /// How errors and reports name link `l`.
    pub fn link_label(&self, l: usize) -> String {
        match &self.link_names {
            Some(n) => format!("link {:?}", n[l]),
            None => format!("links[{l}]"),
        }
    }

    /// The transpose of the routing matrix: for every link, the flows crossing it (CSR).
    pub fn link_flows(&self) -> LinkFlows {
        let n_links = self.num_links();
        let mut ptr = vec![0usize; n_links + 1];
        for &l in &self.path_links {
            ptr[l as usize + 1] += 1;
        }
        for l in 0..n_links {
            ptr[l + 1] += ptr[l];
        }
        let mut fill = ptr[..n_links].to_vec();
        let mut flows = vec![0u32; self.path_links.len()];
        for f in 0..self.num_flows() {
            for &l in self.path_raw(f) {
                let slot = &mut fill[l as usize];
                flows[*slot] = f as u32;
                *slot += 1;
            }
        }
        LinkFlows { ptr, flows }
    }
}

/// For every link, the flows crossing it, in increasing flow index (CSR).
#[derive(Debug, Clone)]
pub struct LinkFlows {
    ptr: Vec<usize>,
    flows: Vec<u32>,
}

impl LinkFlows {
    /// The flows crossing link `l`.
    #[inline]
    pub fn of(&self, l: usize) -> &[u32] {
        &self.flows[self.ptr[l]..self.ptr[l + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(paths: &[Vec<u32>]) -> ProblemInput {
        ProblemInput::from_paths(vec![10.0, 20.0], paths)
    }

    fn err(i: ProblemInput) -> String {
        Problem::new(i).unwrap_err().to_string()
    }

    #[test]
    fn bad_input_names_the_item() {
        assert_eq!(err(input(&[vec![0], vec![]])), "flows[1]: path is empty");
        assert!(err(input(&[vec![0, 2]]))
            .starts_with("flows[0]: path goes through unknown link index 2"));
        assert_eq!(
            err(input(&[vec![1, 1]])),
            "flows[0]: path crosses links[1] twice"
        );
        let mut i = input(&[vec![0]]);
        i.capacities[1] = f64::NAN;
        assert!(err(i).starts_with("links[1]: capacity must be a positive"));
        let mut i = input(&[vec![0], vec![1]]);
        i.weights = Some(vec![1.0, -2.0]);
        assert!(err(i).starts_with("flows[1]: weight must be a positive"));
        let mut i = input(&[vec![0], vec![0, 1]]);
        i.guarantees = Some(vec![6.0, 6.0]);
        assert!(err(i).starts_with("links[0]: guarantees of its flows sum to 12"));
        let mut i = input(&[vec![0]]);
        i.flow_names = Some(vec!["a".into()]);
        i.weights = Some(vec![0.0]);
        assert!(err(i).starts_with("flow \"a\": weight"));
        let mut i = input(&[vec![0]]);
        i.demands = Some(vec![1.0]);
        i.guarantees = Some(vec![2.0]);
        assert!(err(i).contains("above its demand"));
        // Row pointers that go back would slice a path backwards: an error, not a panic.
        let mut i = input(&[vec![0, 1], vec![1]]);
        i.path_ptr = vec![0, 2, 1, 3];
        assert_eq!(err(i), "flows[1]: CSR row pointers decrease (2 then 1)");
    }

    #[test]
    fn link_flows_is_the_transpose() {
        let p = Problem::new(input(&[vec![0, 1], vec![1], vec![0]])).unwrap();
        let lf = p.link_flows();
        assert_eq!(lf.of(0), &[0, 2]);
        assert_eq!(lf.of(1), &[0, 1]);
    }
}
