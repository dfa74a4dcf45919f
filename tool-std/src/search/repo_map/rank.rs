//! PageRank over the files of a repository: an edge from the file that refers to a name to
//! the file that defines it, personalized toward the files the caller is focused on.

/// Power iterations: the ranks of a few thousand files settle well within them.
const ITERATIONS: usize = 30;
/// The chance a walker follows an edge rather than jumping to a personalized node.
const DAMPING: f64 = 0.85;

/// A weighted edge, `from` refers to something `to` defines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub from: usize,
    pub to: usize,
    pub weight: f64,
}

/// The rank of each of `nodes` nodes. `personalization` weighs where a walker jumps to (and
/// where a node with no edge out sends its rank); all zero or empty means uniform.
pub(crate) fn pagerank(nodes: usize, edges: &[Edge], personalization: &[f64]) -> Vec<f64> {
    if nodes == 0 {
        return Vec::new();
    }
    let total: f64 = personalization.iter().sum();
    let jump: Vec<f64> = if personalization.len() == nodes && total > 0.0 {
        personalization.iter().map(|p| p / total).collect()
    } else {
        vec![1.0 / nodes as f64; nodes]
    };
    let mut out_weight = vec![0.0; nodes];
    for edge in edges {
        out_weight[edge.from] += edge.weight;
    }
    let mut rank = jump.clone();
    for _ in 0..ITERATIONS {
        let dangling: f64 = (0..nodes)
            .filter(|&node| out_weight[node] <= 0.0)
            .map(|node| rank[node])
            .sum();
        let mut next: Vec<f64> = jump
            .iter()
            .map(|j| (1.0 - DAMPING) * j + DAMPING * dangling * j)
            .collect();
        for edge in edges {
            next[edge.to] += DAMPING * rank[edge.from] * edge.weight / out_weight[edge.from];
        }
        rank = next;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_node_everyone_points_at_ranks_first_and_ranks_sum_to_one() {
        let edges = [
            Edge {
                from: 1,
                to: 0,
                weight: 1.0,
            },
            Edge {
                from: 2,
                to: 0,
                weight: 1.0,
            },
            Edge {
                from: 3,
                to: 0,
                weight: 1.0,
            },
            Edge {
                from: 0,
                to: 3,
                weight: 1.0,
            },
        ];
        let rank = pagerank(4, &edges, &[]);
        assert!((rank.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(rank[0] > rank[3] && rank[3] > rank[1]);
        let focused = pagerank(4, &edges, &[0.0, 0.0, 1.0, 0.0]);
        assert!(focused[2] > focused[1]);
    }
}
