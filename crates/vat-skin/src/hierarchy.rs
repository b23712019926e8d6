//! World matrices: every node's local matrix composed down the hierarchy.

use glam::Mat4;
use vat_model::Model;

use crate::Pose;

/// World matrix of every node for one pose, indexed like `Model::nodes`:
/// `world = parent world · local`.
///
/// The hierarchy may be given in any index order. Nodes are reached first from
/// `Model::scene_roots` through their `children`; nodes outside the scene (a
/// skeleton kept out of the scene, for example) then follow their `parent`
/// chains. A cycle in malformed data is cut where it closes rather than looping.
///
/// # Panics
/// If `pose` has fewer locals than the model has nodes.
///
/// ```
/// use glam::Vec3;
/// use vat_model::{Local, Model, Node, Trs};
///
/// // A parent at x = 1 and its child one unit above it.
/// let at = |translation| Local::Trs(Trs { translation, ..Trs::default() });
/// let parent = Node { name: None, parent: None, children: vec![1], rest: at(Vec3::X), morph_weights: vec![] };
/// let child = Node { name: None, parent: Some(0), children: vec![], rest: at(Vec3::Y), morph_weights: vec![] };
/// let model = Model { nodes: vec![parent, child], scene_roots: vec![0], ..Model::default() };
/// let world = vat_skin::world_matrices(&model, &vat_skin::sample_pose(&model, None, 0.0));
/// assert_eq!(world[1].w_axis.truncate(), Vec3::new(1.0, 1.0, 0.0));
/// ```
pub fn world_matrices(model: &Model, pose: &Pose) -> Vec<Mat4> {
    let node_count = model.nodes.len();
    assert!(pose.locals.len() >= node_count, "pose has {} locals for {node_count} nodes", pose.locals.len());
    let mut worlds = vec![Mat4::IDENTITY; node_count];
    let mut done = vec![false; node_count];

    let mut pending: Vec<(usize, Option<Mat4>)> = model.scene_roots.iter().rev().map(|&root| (root, None)).collect();
    while let Some((node, parent_world)) = pending.pop() {
        if node >= node_count || done[node] {
            continue;
        }
        let world = compose(parent_world, pose.locals[node]);
        worlds[node] = world;
        done[node] = true;
        pending.extend(model.nodes[node].children.iter().rev().map(|&child| (child, Some(world))));
    }

    let mut on_chain = vec![false; node_count];
    let mut chain = Vec::new();
    for start in 0..node_count {
        if done[start] {
            continue;
        }
        // Climb to the nearest ancestor whose world is known (or to a root), then
        // come back down composing.
        chain.clear();
        let mut node = start;
        let parent_world = loop {
            chain.push(node);
            on_chain[node] = true;
            match model.nodes[node].parent {
                Some(parent) if parent < node_count && done[parent] => break Some(worlds[parent]),
                Some(parent) if parent < node_count && !on_chain[parent] => node = parent,
                _ => break None,
            }
        };
        let mut world = parent_world;
        for &node in chain.iter().rev() {
            let node_world = compose(world, pose.locals[node]);
            worlds[node] = node_world;
            done[node] = true;
            on_chain[node] = false;
            world = Some(node_world);
        }
    }
    worlds
}

/// A root's world is its local matrix as is, not `IDENTITY · local`.
fn compose(parent_world: Option<Mat4>, local: Mat4) -> Mat4 {
    parent_world.map_or(local, |parent| parent * local)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample_pose;
    use crate::test_models::{trs_node, with_nodes};
    use glam::Vec3;

    #[test]
    fn children_may_come_before_their_parents() {
        // Node 2 is the root, node 1 its child, node 0 the grandchild.
        let nodes = vec![
            trs_node(Some(1), Vec3::new(0.0, 0.0, 3.0)),
            trs_node(Some(2), Vec3::new(0.0, 2.0, 0.0)),
            trs_node(None, Vec3::new(1.0, 0.0, 0.0)),
        ];
        let model = with_nodes(nodes);
        let worlds = world_matrices(&model, &sample_pose(&model, None, 0.0));
        assert_eq!(worlds[2].w_axis.truncate(), Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(worlds[1].w_axis.truncate(), Vec3::new(1.0, 2.0, 0.0));
        assert_eq!(worlds[0].w_axis.truncate(), Vec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn nodes_outside_the_scene_follow_their_parent_chain() {
        // Node 0 is the scene; nodes 1 ← 2 ← 3 hang off a root (3) that the scene
        // omits, and node 4 names node 0 as parent though node 0 does not list it.
        let nodes = vec![
            trs_node(None, Vec3::new(100.0, 0.0, 0.0)),
            trs_node(Some(2), Vec3::new(0.0, 0.0, 1.0)),
            trs_node(Some(3), Vec3::new(0.0, 1.0, 0.0)),
            trs_node(None, Vec3::new(1.0, 0.0, 0.0)),
            trs_node(Some(0), Vec3::new(0.0, 5.0, 0.0)),
        ];
        let mut model = with_nodes(nodes);
        model.scene_roots = vec![0];
        model.nodes[0].children.clear();
        let worlds = world_matrices(&model, &sample_pose(&model, None, 0.0));
        assert_eq!(worlds[1].w_axis.truncate(), Vec3::new(1.0, 1.0, 1.0));
        assert_eq!(worlds[3].w_axis.truncate(), Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(worlds[4].w_axis.truncate(), Vec3::new(100.0, 5.0, 0.0));
    }

    #[test]
    fn a_parent_cycle_terminates() {
        let model =
            with_nodes(vec![trs_node(Some(1), Vec3::new(1.0, 0.0, 0.0)), trs_node(Some(0), Vec3::new(0.0, 1.0, 0.0))]);
        let worlds = world_matrices(&model, &sample_pose(&model, None, 0.0));
        assert_eq!(worlds[1].w_axis.truncate(), Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(worlds[0].w_axis.truncate(), Vec3::new(1.0, 1.0, 0.0));
    }
}
