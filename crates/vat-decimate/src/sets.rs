//! Sets of `u32` ids: disjoint sets as a parent array (union–find with path
//! halving), and items grouped into compact lists.

/// Compact lists: the items of group `g` are `items[starts[g]..starts[g + 1]]`.
pub(crate) struct Groups {
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Groups {
    /// Groups the items `0..` by `group_of` (skipping `None`), keeping their order.
    pub(crate) fn new(group_of: impl Iterator<Item = Option<u32>> + Clone, groups: usize) -> Groups {
        let mut starts = vec![0u32; groups + 1];
        for group in group_of.clone().flatten() {
            starts[group as usize + 1] += 1;
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        let mut fill = starts.clone();
        let mut items = vec![0u32; starts[groups] as usize];
        for (item, group) in group_of.enumerate() {
            if let Some(group) = group {
                items[fill[group as usize] as usize] = item as u32;
                fill[group as usize] += 1;
            }
        }
        Groups { starts, items }
    }

    /// [`Groups::new`] where every item has a group.
    pub(crate) fn of(group_of: &[u32], groups: usize) -> Groups {
        Groups::new(group_of.iter().map(|&g| Some(g)), groups)
    }

    pub(crate) fn get(&self, group: usize) -> &[u32] {
        &self.items[self.starts[group] as usize..self.starts[group + 1] as usize]
    }
}

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

    #[test]
    fn groups_keep_item_order_and_skip_the_ungrouped() {
        let groups = Groups::new([Some(1), None, Some(0), Some(1)].into_iter(), 3);
        assert_eq!((groups.get(0), groups.get(1), groups.get(2)), (&[2][..], &[0, 3][..], &[][..]));
        assert_eq!(Groups::of(&[2, 2, 0], 3).get(2), [0, 1]);
    }
}
