//! Flow dependency graphs (DAG jobs): a flow starts when the flows it depends on have ended.
//!
//! Used by the flow engine (which refuses cycles), by the TPC-H job generator
//! ([`super::tpch`]) and by Söze's critical-path weight policy (weights from the longest path
//! to the end of the DAG, Söze §5.1.6).

use crate::error::{Error, Result};

/// The flows in an order where every flow comes after all its dependencies (Kahn's
/// algorithm). `deps[i]` lists the flows that must end before flow `i` starts. A dependency
/// cycle, or a dependency on a flow that does not exist, is an error naming a flow
/// (`flows[7]: is part of a dependency cycle`).
pub fn topological_order(deps: &[Vec<u32>]) -> Result<Vec<u32>> {
    topological_order_by(deps.len(), |i| &deps[i])
}

/// [`topological_order`] over `n` flows whose dependencies `deps(i)` gives (so callers with
/// their own flow type need not copy the lists).
pub fn topological_order_by<'a>(n: usize, deps: impl Fn(usize) -> &'a [u32]) -> Result<Vec<u32>> {
    let mut indegree: Vec<u32> = (0..n).map(|i| deps(i).len() as u32).collect();
    let children = children_by(n, &deps)?;
    let mut ready: Vec<u32> = (0..n as u32)
        .filter(|&i| indegree[i as usize] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(i) = ready.pop() {
        order.push(i);
        for &c in &children[i as usize] {
            indegree[c as usize] -= 1;
            if indegree[c as usize] == 0 {
                ready.push(c);
            }
        }
    }
    if order.len() < n {
        let i = indegree.iter().position(|&d| d > 0).unwrap_or(0);
        return Err(Error::invalid(
            format!("flows[{i}]"),
            "is part of a dependency cycle",
        ));
    }
    Ok(order)
}

/// For every flow, the flows that depend on it; a dependency on a missing flow is an error.
pub fn children(deps: &[Vec<u32>]) -> Result<Vec<Vec<u32>>> {
    children_by(deps.len(), |i| &deps[i])
}

/// [`children`] over `n` flows whose dependencies `deps(i)` gives.
pub fn children_by<'a>(n: usize, deps: impl Fn(usize) -> &'a [u32]) -> Result<Vec<Vec<u32>>> {
    let mut children = vec![Vec::new(); n];
    for i in 0..n {
        for &d in deps(i) {
            if d as usize >= n || d as usize == i {
                return Err(Error::invalid(
                    format!("flows[{i}].deps"),
                    format!("{d} is not another flow (there are {n} flows)"),
                ));
            }
            children[d as usize].push(i as u32);
        }
    }
    Ok(children)
}

/// For every flow, the number of flows on the longest chain from it to the end of its DAG,
/// itself included: 1 for a flow nothing depends on, `1 + max` over its dependants otherwise.
pub fn longest_path_to_sink(deps: &[Vec<u32>]) -> Result<Vec<u32>> {
    let order = topological_order(deps)?;
    let children = children(deps)?;
    let mut depth = vec![1u32; deps.len()];
    for &i in order.iter().rev() {
        let i = i as usize;
        if let Some(m) = children[i].iter().map(|&c| depth[c as usize]).max() {
            depth[i] = 1 + m;
        }
    }
    Ok(depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_path_counts_flows_to_the_end() {
        // 0 -> 1 -> 3, 2 -> 3, 4 alone; 3 is the last flow of its DAG.
        let deps = vec![vec![], vec![0], vec![], vec![1, 2], vec![]];
        assert_eq!(longest_path_to_sink(&deps).unwrap(), vec![3, 2, 2, 1, 1]);
        let order = topological_order(&deps).unwrap();
        let pos = |f: u32| order.iter().position(|&x| x == f).unwrap();
        assert!(pos(0) < pos(1) && pos(1) < pos(3) && pos(2) < pos(3));
    }

    #[test]
    fn cycles_and_dangling_dependencies_are_errors() {
        let e = topological_order(&[vec![], vec![2], vec![1]]).unwrap_err();
        assert_eq!(e.to_string(), "flows[1]: is part of a dependency cycle");
        let e = longest_path_to_sink(&[vec![5]]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "flows[0].deps: 5 is not another flow (there are 1 flows)"
        );
        let e = children(&[vec![], vec![1]]).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("flows[1].deps: 1 is not another flow"));
    }
}
