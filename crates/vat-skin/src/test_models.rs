//! Small hand-made models for the unit tests.

use glam::{Mat4, Vec2, Vec3};
use vat_model::{Local, Model, Node, Part, Points, Skin, Trs, MAX_INFLUENCES};

/// A node translated by `translation`, with no children yet.
pub fn trs_node(parent: Option<usize>, translation: Vec3) -> Node {
    Node {
        name: None,
        parent,
        children: Vec::new(),
        rest: Local::Trs(Trs { translation, ..Trs::default() }),
        morph_weights: Vec::new(),
    }
}

/// A model of these nodes, children lists filled from the parents and every
/// parentless node a scene root, as a loader would give it.
pub fn with_nodes(mut nodes: Vec<Node>) -> Model {
    for child in 0..nodes.len() {
        if let Some(parent) = nodes[child].parent {
            nodes[parent].children.push(child);
        }
    }
    let scene_roots = (0..nodes.len()).filter(|&node| nodes[node].parent.is_none()).collect();
    Model { nodes, scene_roots, ..Model::default() }
}

/// A part of `point_count` points starting at point 0.
pub fn part(node: usize, skin: Option<usize>, point_count: usize) -> Part {
    Part {
        node,
        mesh: 0,
        primitive: 0,
        material: None,
        skin,
        first_point: 0,
        point_count,
        first_triangle: 0,
        triangle_count: 0,
        morph_targets: Vec::new(),
    }
}

/// A model whose only part sits on node 0, skinned by one skin over `joints`;
/// each point is (position, joint slots, weights) and has normal +Z.
pub fn skinned_point_model(
    nodes: Vec<Node>,
    joints: Vec<usize>,
    inverse_bind: Vec<Mat4>,
    points: &[(Vec3, [u16; MAX_INFLUENCES], [f32; MAX_INFLUENCES])],
) -> Model {
    let mut model = with_nodes(nodes);
    model.skins = vec![Skin { name: None, joints, inverse_bind, skeleton: None }];
    model.points = Points {
        positions: points.iter().map(|point| point.0).collect(),
        normals: vec![Vec3::Z; points.len()],
        uv0: vec![Vec2::ZERO; points.len()],
        joints: points.iter().map(|point| point.1).collect(),
        weights: points.iter().map(|point| point.2).collect(),
    };
    model.parts = vec![part(0, Some(0), points.len())];
    model
}
