//! Draws a contact sheet, an animation and the texture pictures of a made-up figure (a
//! body and two swinging arms, built from boxes) into the folder given (default: the
//! current one): `cargo run -p vat-preview --example synthetic_sheet -- OUTDIR`.

use std::f32::consts::PI;

use vat_preview::{
    animate, contact_sheet, normal_texture_image, position_texture_image, Bounds, Clip, Frame, Mesh, SheetOptions, View,
};

/// A box from `min` to `max` with flat faces, appended to the lists.
fn push_box(min: [f32; 3], max: [f32; 3], positions: &mut Vec<[f32; 3]>, normals: &mut Vec<[f32; 3]>, mesh: &mut Mesh) {
    for axis in 0..3 {
        for side in [0, 1] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u32;
            for (a, b) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
                let mut p = [0.0; 3];
                p[axis] = if side == 0 { min[axis] } else { max[axis] };
                p[u] = if a == 0 { min[u] } else { max[u] };
                p[v] = if b == 0 { min[v] } else { max[v] };
                positions.push(p);
                let mut n = [0.0; 3];
                n[axis] = if side == 0 { -1.0 } else { 1.0 };
                normals.push(n);
            }
            mesh.triangles.push([base, base + 1, base + 2]);
            mesh.triangles.push([base, base + 2, base + 3]);
        }
    }
}

/// Rotation about the x axis through `pivot`, for points and normals.
fn swing(p: [f32; 3], pivot: [f32; 3], angle: f32) -> [f32; 3] {
    let (s, c) = angle.sin_cos();
    let (y, z) = (p[1] - pivot[1], p[2] - pivot[2]);
    [p[0], pivot[1] + y * c - z * s, pivot[2] + y * s + z * c]
}

/// One row: positions and normals of every point.
type Row = (Vec<[f32; 3]>, Vec<[f32; 3]>);

/// Rows of points and normals as frames.
fn frames(rows: &[Row]) -> Vec<Frame<'_>> {
    rows.iter().map(|(p, n)| Frame { positions: p, normals: n }).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| ".".into()));
    let (mut rest, mut rest_normals, mut mesh) = (Vec::new(), Vec::new(), Mesh::default());
    push_box([-0.3, 0.0, -0.15], [0.3, 1.6, 0.15], &mut rest, &mut rest_normals, &mut mesh);
    push_box([-0.15, 1.6, -0.15], [0.15, 1.9, 0.2], &mut rest, &mut rest_normals, &mut mesh);
    let arm_start = rest.len();
    push_box([-0.45, 0.7, -0.08], [-0.3, 1.5, 0.08], &mut rest, &mut rest_normals, &mut mesh);
    push_box([0.3, 0.7, -0.08], [0.45, 1.5, 0.08], &mut rest, &mut rest_normals, &mut mesh);
    let shoulder = [0.0, 1.45, 0.0];

    // Walk: arms swing opposite ways, the body moves forward. Idle: frozen.
    let walk: Vec<Row> = (0..24)
        .map(|k| {
            let t = k as f32 / 23.0 * 2.0 * PI;
            let mut p = rest.clone();
            let mut n = rest_normals.clone();
            for i in arm_start..rest.len() {
                let angle = 0.7 * t.sin() * if i < arm_start + 24 { 1.0 } else { -1.0 };
                p[i] = swing(p[i], shoulder, angle);
                n[i] = swing(n[i], [0.0; 3], angle);
            }
            for q in &mut p {
                q[2] += k as f32 * 0.03;
            }
            (p, n)
        })
        .collect();
    let idle = vec![(rest.clone(), rest_normals.clone()); 10];
    let all: Vec<[f32; 3]> = walk.iter().chain(&idle).flat_map(|(p, _)| p.iter().copied()).collect();
    let bounds = Bounds::of_points(&all).ok_or("no points")?;
    let walk_frames = frames(&walk);
    let clips = [
        Clip { name: "Walk", slot: Some("walk"), rows: walk_frames.clone(), mesh: None },
        Clip { name: "Idle", slot: Some("idle"), rows: frames(&idle), mesh: None },
    ];
    for view in [View::Front, View::Side, View::Top] {
        let options = SheetOptions { view, frames: 6, width: 128, height: 128, title: Some("synthetic figure".into()) };
        let sheet = contact_sheet(&mesh, &clips, &bounds, &options)?;
        std::fs::write(out.join(format!("sheet-{}.png", view.name())), sheet.image.to_png()?)?;
    }
    std::fs::write(out.join("walk.apng"), animate(&mesh, &walk_frames, &bounds, View::Side, 128, 128, 24.0)?)?;

    // The texture as a bake would store it: one row per frame, one column per point.
    let (width, height) = (rest.len() as u32, walk.len() as u32);
    let unorm = |v: f32, lo: f32, hi: f32| (((v - lo) / (hi - lo).max(1e-6)).clamp(0.0, 1.0) * 65_535.0).round() as u16;
    let texels: Vec<u16> = walk
        .iter()
        .flat_map(|(p, n)| p.iter().zip(n).map(|(p, n)| (*p, *n)).collect::<Vec<_>>())
        .flat_map(|(p, n)| {
            let l1 = n[0].abs() + n[1].abs() + n[2].abs();
            let (x, y) = (n[0] / l1, n[1] / l1);
            let (x, y) = if n[2] < 0.0 { ((1.0 - y.abs()).copysign(x), (1.0 - x.abs()).copysign(y)) } else { (x, y) };
            let code = |v: f32| ((v * 127.5 + 127.5).round() as u16).min(255);
            let o = (code(x) << 8) | code(y);
            let axis = |i: usize| unorm(p[i], bounds.min[i], bounds.max[i]);
            [axis(0), axis(1), axis(2), o]
        })
        .collect();
    std::fs::write(out.join("texture-positions.png"), position_texture_image(&texels, width, height)?.to_png()?)?;
    std::fs::write(out.join("texture-normals.png"), normal_texture_image(&texels, width, height)?.to_png()?)?;
    Ok(())
}
