//! Disjoint sets over `u32` ids, as a parent array (union–find with path halving).

/// The representative of `item`'s set, halving the path on the way up.
pub(crate) fn find(parent: &mut [u32], mut item: u32) -> u32 {
    while parent[item as usize] != item {
        let grandparent = parent[parent[item as usize] as usize];
        parent[item as usize] = grandparent;
        item = grandparent;
    }
    item
}

/// Joins two sets; the smaller representative wins, so the result never depends
/// on the order of the unions.
pub(crate) fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra < rb {
        parent[rb as usize] = ra;
    } else if rb < ra {
        parent[ra as usize] = rb;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unions_keep_the_smallest_id() {
        let mut parent: Vec<u32> = (0..6).collect();
        union(&mut parent, 4, 5);
        union(&mut parent, 5, 2);
        union(&mut parent, 0, 1);
        let roots: Vec<u32> = (0..6).map(|i| find(&mut parent, i)).collect();
        assert_eq!(roots, [0, 0, 2, 3, 2, 2]);
    }
}
