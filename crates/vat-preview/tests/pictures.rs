//! Facts of the pictures: silhouettes where the points project, motion visible, a turn
//! visible, text drawn, bytes repeatable, odd input refused or drawn blank.

use vat_preview::{
    animate, contact_sheet, render_frame, Bounds, Camera, Clip, Error, Frame, Image, Mesh, Sheet, SheetOptions, View,
};

/// A box with flat faces: 4 points per face (so each face has its own normal), two
/// triangles per face.
fn cuboid(center: [f32; 3], half: [f32; 3]) -> (Vec<[f32; 3]>, Vec<[f32; 3]>, Mesh) {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut triangles = Vec::new();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let base = positions.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = center;
                p[axis] += sign * half[axis];
                p[u] += a * half[u];
                p[v] += b * half[v];
                positions.push(p);
                let mut n = [0.0; 3];
                n[axis] = sign;
                normals.push(n);
            }
            triangles.push([base, base + 1, base + 2]);
            triangles.push([base, base + 2, base + 3]);
        }
    }
    (positions, normals, Mesh { triangles })
}

/// Points of one row.
type Points = Vec<[f32; 3]>;
/// A test clip: name, slot, rows.
type TestClip<'a> = (&'a str, Option<&'a str>, &'a [Points]);

fn translate(points: &[[f32; 3]], by: [f32; 3]) -> Vec<[f32; 3]> {
    points.iter().map(|p| [p[0] + by[0], p[1] + by[1], p[2] + by[2]]).collect()
}

/// Turned by 90° about +Y (x → −z, z → x).
fn turn(points: &[[f32; 3]]) -> Vec<[f32; 3]> {
    points.iter().map(|p| [p[2], p[1], -p[0]]).collect()
}

/// A surface pixel: shaded blue (background, guides and text are grey).
fn is_surface(p: [u8; 4]) -> bool {
    p[2] as i32 - p[0] as i32 > 20
}

/// The smallest box `[x0, y0, x1, y1]` (inclusive) of surface pixels in a `w × h` window
/// at (`x`, `y`), or `None` when there is none.
fn silhouette(image: &Image, x: u32, y: u32, w: u32, h: u32) -> Option<[i64; 4]> {
    let mut found: Option<[i64; 4]> = None;
    for row in y..y + h {
        for column in x..x + w {
            if is_surface(image.pixel(column, row).unwrap()) {
                let (c, r) = ((column - x) as i64, (row - y) as i64);
                let b = found.get_or_insert([c, r, c, r]);
                *b = [b[0].min(c), b[1].min(r), b[2].max(c), b[3].max(r)];
            }
        }
    }
    found
}

/// The pixels whose centres fall inside the projected box of `points`.
fn projected(camera: &Camera, points: &[[f32; 3]]) -> [i64; 4] {
    let p: Vec<[f32; 3]> = points.iter().map(|&q| camera.project(q)).collect();
    let min = |k: usize| p.iter().map(|q| q[k]).fold(f32::INFINITY, f32::min);
    let max = |k: usize| p.iter().map(|q| q[k]).fold(f32::NEG_INFINITY, f32::max);
    let first = |v: f32| (v - 0.5).ceil() as i64;
    let last = |v: f32| (v - 0.5).ceil() as i64 - 1;
    [first(min(0)), first(min(1)), last(max(0)), last(max(1))]
}

fn crop(image: &Image, x: u32, y: u32, w: u32, h: u32) -> Vec<u8> {
    (y..y + h).flat_map(|row| (x..x + w).flat_map(move |column| image.pixel(column, row).unwrap())).collect()
}

fn assert_near(drawn: [i64; 4], expected: [i64; 4], what: &str) {
    for k in 0..4 {
        assert!((drawn[k] - expected[k]).abs() <= 1, "{what}: drawn {drawn:?}, points project to {expected:?}");
    }
}

/// A box 2 wide, 4 tall and 0.5 deep standing on the ground, walking along +X and
/// growing on the way: 12 rows.
fn walking_rows() -> (Vec<Points>, Points, Mesh) {
    let (points, normals, mesh) = cuboid([0.0, 2.0, 0.0], [1.0, 2.0, 0.25]);
    let rows = (0..12)
        .map(|k| {
            let grow = 1.0 + k as f32 * 0.05;
            let grown: Vec<[f32; 3]> = points.iter().map(|p| [p[0] * grow, p[1] * grow, p[2] * grow]).collect();
            translate(&grown, [k as f32 * 0.4, 0.0, k as f32 * -0.2])
        })
        .collect();
    (rows, normals, mesh)
}

fn all_bounds(rows: &[Vec<[f32; 3]>]) -> Bounds {
    Bounds::of_points(&rows.concat()).unwrap()
}

fn sheet_of(mesh: &Mesh, clips: &[TestClip], normals: &[[f32; 3]], options: &SheetOptions) -> Sheet {
    let all: Vec<[f32; 3]> = clips.iter().flat_map(|c| c.2.concat()).collect();
    let bounds = Bounds::of_points(&all).unwrap();
    let clips: Vec<Clip> = clips
        .iter()
        .map(|&(name, slot, rows)| Clip {
            name,
            slot,
            rows: rows.iter().map(|r| Frame { positions: r, normals }).collect(),
            mesh: None,
        })
        .collect();
    contact_sheet(mesh, &clips, &bounds, options).unwrap()
}

#[test]
fn each_frame_silhouette_is_where_its_points_project() {
    let (rows, normals, mesh) = walking_rows();
    let bounds = all_bounds(&rows);
    for view in [View::Front, View::Side, View::Top] {
        let camera = Camera::framing(&bounds, view, 120, 90).unwrap();
        for (k, row) in rows.iter().enumerate() {
            let image =
                render_frame(&mesh, Frame { positions: row, normals: &normals }, &bounds, view, 120, 90).unwrap();
            let drawn = silhouette(&image, 0, 0, 120, 90).expect("the box is drawn");
            assert_near(drawn, projected(&camera, row), &format!("{view:?} row {k}"));
        }
    }
}

#[test]
fn sheet_cells_show_their_rows_where_their_points_project() {
    let (rows, normals, mesh) = walking_rows();
    let options = SheetOptions { frames: 5, width: 96, height: 80, view: View::Front, title: None };
    let sheet = sheet_of(&mesh, &[("Walk", Some("walk"), &rows)], &normals, &options);
    let camera = Camera::framing(&all_bounds(&rows), View::Front, 96, 80).unwrap();
    assert_eq!(sheet.cells.iter().map(|c| c.row).collect::<Vec<_>>(), [0, 3, 6, 8, 11]);
    for cell in &sheet.cells {
        let drawn = silhouette(&sheet.image, cell.x, cell.y, 96, 80).expect("drawn");
        assert_near(drawn, projected(&camera, &rows[cell.row]), &format!("cell of row {}", cell.row));
    }
    // The walk goes right: the last frame's silhouette starts well right of the first's.
    let first = silhouette(&sheet.image, sheet.cells[0].x, sheet.cells[0].y, 96, 80).unwrap();
    let last = silhouette(&sheet.image, sheet.cells[4].x, sheet.cells[4].y, 96, 80).unwrap();
    assert!(last[0] - first[0] > 15, "{first:?} → {last:?}");
}

#[test]
fn a_moving_clip_has_different_frames_and_a_still_one_identical_frames() {
    let (rows, normals, mesh) = walking_rows();
    let still = vec![rows[0].clone(); 12];
    let options = SheetOptions { frames: 4, width: 64, height: 64, view: View::Front, title: None };
    let sheet = sheet_of(&mesh, &[("Walk", None, &rows), ("Idle", Some("idle"), &still)], &normals, &options);
    let cells = |clip: usize| -> Vec<Vec<u8>> {
        sheet.cells.iter().filter(|c| c.clip == clip).map(|c| crop(&sheet.image, c.x, c.y, 64, 64)).collect()
    };
    let (moving, frozen) = (cells(0), cells(1));
    assert_eq!((moving.len(), frozen.len()), (4, 4));
    for pair in moving.windows(2) {
        let changed = pair[0].chunks(4).zip(pair[1].chunks(4)).filter(|(a, b)| a != b).count();
        assert!(changed > 50, "only {changed} pixels changed between two frames of a moving clip");
    }
    assert!(frozen.iter().all(|f| f == &frozen[0]));
    // The still clip shares the camera: its frames are the moving clip's first.
    assert_eq!(frozen[0], moving[0]);
}

#[test]
fn a_unit_turned_by_90_degrees_looks_different() {
    // 2 wide, 0.5 deep: from the front, turned, it shows its 0.5-unit side.
    let (points, normals, mesh) = cuboid([0.0, 2.0, 0.0], [1.0, 2.0, 0.25]);
    let turned = turn(&points);
    let bounds = Bounds { min: [-1.0, 0.0, -1.0], max: [1.0, 4.0, 1.0] };
    let camera = Camera::framing(&bounds, View::Front, 100, 100).unwrap();
    let draw =
        |p: &[[f32; 3]]| render_frame(&mesh, Frame { positions: p, normals: &normals }, &bounds, View::Front, 100, 100);
    let (upright, sideways) = (draw(&points).unwrap(), draw(&turned).unwrap());
    let width = |s: [i64; 4]| s[2] - s[0] + 1;
    let (a, b) = (silhouette(&upright, 0, 0, 100, 100).unwrap(), silhouette(&sideways, 0, 0, 100, 100).unwrap());
    // 2 and 0.5 units at the camera's scale, within a pixel.
    assert!((width(a) as f32 - 2.0 * camera.scale).abs() <= 1.0, "{a:?} at scale {}", camera.scale);
    assert!((width(b) as f32 - 0.5 * camera.scale).abs() <= 1.0, "{b:?} at scale {}", camera.scale);
    assert_eq!(a[1], b[1]);
    assert_eq!(a[3], b[3]);
    // From the side it is the other way round.
    let side = |p: &[[f32; 3]]| {
        let image =
            render_frame(&mesh, Frame { positions: p, normals: &normals }, &bounds, View::Side, 100, 100).unwrap();
        width(silhouette(&image, 0, 0, 100, 100).unwrap())
    };
    assert_eq!(side(&points), width(b));
    assert_eq!(side(&turned), width(a));
    // And the sheets differ.
    let options = SheetOptions { frames: 2, width: 64, height: 64, ..SheetOptions::default() };
    let one = sheet_of(&mesh, &[("Idle", None, std::slice::from_ref(&points))], &normals, &options);
    let other = sheet_of(&mesh, &[("Idle", None, &[turned])], &normals, &options);
    assert_ne!(one.image.to_png().unwrap(), other.image.to_png().unwrap());
}

#[test]
fn a_unit_lying_on_its_side_leaves_the_ground_line_and_the_box() {
    // Standing: the silhouette's bottom row is at the ground (y = 0). Lying along +X: it
    // is wide and low.
    let (points, normals, mesh) = cuboid([0.0, 2.0, 0.0], [0.5, 2.0, 0.5]);
    let lying: Vec<[f32; 3]> = points.iter().map(|p| [p[1] - 2.0, p[0] + 0.5, p[2]]).collect();
    let bounds = Bounds { min: [-2.0, 0.0, -2.0], max: [2.0, 4.0, 2.0] };
    let camera = Camera::framing(&bounds, View::Front, 100, 100).unwrap();
    let ground = camera.project([0.0; 3])[1];
    let draw = |p: &[[f32; 3]]| {
        let image =
            render_frame(&mesh, Frame { positions: p, normals: &normals }, &bounds, View::Front, 100, 100).unwrap();
        silhouette(&image, 0, 0, 100, 100).unwrap()
    };
    let (standing, down) = (draw(&points), draw(&lying));
    assert!((standing[3] as f32 + 1.0 - ground).abs() <= 1.0);
    assert!((down[3] as f32 + 1.0 - ground).abs() <= 1.0);
    assert!(standing[3] - standing[1] > 3 * (standing[2] - standing[0]));
    assert!(down[2] - down[0] > 3 * (down[3] - down[1]));
}

#[test]
fn labels_are_written_beside_their_rows() {
    let (rows, normals, mesh) = walking_rows();
    let options = SheetOptions { frames: 3, width: 64, height: 64, ..SheetOptions::default() };
    let a = sheet_of(&mesh, &[("Walk", Some("walk"), &rows), ("Run", Some("run"), &rows)], &normals, &options);
    let b = sheet_of(&mesh, &[("Walk", Some("walk"), &rows), ("Jump", Some("jump"), &rows)], &normals, &options);
    assert_eq!(a.labels.len(), 2);
    let dark = |sheet: &Sheet, label: usize| {
        let [x, y, w, h] = sheet.labels[label];
        crop(&sheet.image, x, y, w, h).chunks(4).filter(|p| p[0] < 100 && p[0] == p[1] && p[1] == p[2]).count()
    };
    for label in 0..2 {
        assert!(dark(&a, label) > 60, "label {label} has {} dark pixels", dark(&a, label));
    }
    // The label box lies left of the first frame of its row.
    assert!(a.labels[1][0] + a.labels[1][2] <= a.cells[3].x);
    assert_eq!(a.labels[1][1], a.cells[3].y);
    // Another name, other pixels there; the same name, the same pixels.
    let label = |sheet: &Sheet, i: usize| {
        let [x, y, w, h] = sheet.labels[i];
        crop(&sheet.image, x, y, w, h)
    };
    assert_eq!(label(&a, 0), label(&b, 0));
    assert_ne!(label(&a, 1), label(&b, 1));
}

#[test]
fn the_same_inputs_give_the_same_png_bytes() {
    let (rows, normals, mesh) = walking_rows();
    let options = SheetOptions { frames: 4, width: 80, height: 80, view: View::Side, title: Some("unit".into()) };
    let one = sheet_of(&mesh, &[("Walk", Some("walk"), &rows)], &normals, &options).image.to_png().unwrap();
    let two = sheet_of(&mesh, &[("Walk", Some("walk"), &rows)], &normals, &options).image.to_png().unwrap();
    assert_eq!(one, two);
    // From another thread too.
    let (rows2, normals2, mesh2, options2) = (rows.clone(), normals.clone(), mesh.clone(), options.clone());
    let three = std::thread::spawn(move || {
        sheet_of(&mesh2, &[("Walk", Some("walk"), &rows2)], &normals2, &options2).image.to_png().unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(one, three);
    let frames: Vec<Frame> = rows.iter().map(|r| Frame { positions: r, normals: &normals }).collect();
    let bounds = all_bounds(&rows);
    assert_eq!(
        animate(&mesh, &frames, &bounds, View::Front, 48, 48, 30.0).unwrap(),
        animate(&mesh, &frames, &bounds, View::Front, 48, 48, 30.0).unwrap()
    );
}

#[test]
fn the_animation_holds_every_row_as_drawn() {
    let (rows, normals, mesh) = walking_rows();
    let frames: Vec<Frame> = rows.iter().map(|r| Frame { positions: r, normals: &normals }).collect();
    let bounds = all_bounds(&rows);
    let apng = animate(&mesh, &frames, &bounds, View::Front, 40, 30, 25.0).unwrap();
    let mut decoder = png::Decoder::new(std::io::Cursor::new(apng)).read_info().unwrap();
    let control = decoder.info().animation_control.unwrap();
    assert_eq!((control.num_frames, control.num_plays), (12, 0));
    let mut buffer = vec![0; decoder.output_buffer_size().unwrap()];
    for row in &frames {
        decoder.next_frame(&mut buffer).unwrap();
        let fc = decoder.info().frame_control.unwrap();
        assert_eq!((fc.delay_num, fc.delay_den), (40, 1000));
        let expected = render_frame(&mesh, *row, &bounds, View::Front, 40, 30).unwrap();
        assert_eq!(buffer, expected.pixels);
    }
}

#[test]
fn the_nearer_surface_hides_the_farther_whatever_the_order_and_winding() {
    // A far quad turned away from the light, a near one facing it; both cover the centre.
    let positions = [
        [-1.0, -1.0, -1.0],
        [1.0, -1.0, -1.0],
        [1.0, 1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-0.5, -0.5, 1.0],
        [0.5, -0.5, 1.0],
        [0.5, 0.5, 1.0],
        [-0.5, 0.5, 1.0],
    ];
    let normals = [[0.7, -0.7, 0.0]; 4].into_iter().chain([[0.0, 0.0, 1.0]; 4]).collect::<Vec<_>>();
    let bounds = Bounds::of_points(&positions).unwrap();
    let frame = Frame { positions: &positions, normals: &normals };
    let far_first = Mesh { triangles: vec![[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]] };
    let near_first = Mesh { triangles: vec![[4, 5, 6], [4, 6, 7], [0, 1, 2], [0, 2, 3]] };
    let flipped = Mesh { triangles: far_first.triangles.iter().map(|t| [t[0], t[2], t[1]]).collect() };
    let draw = |mesh: &Mesh| render_frame(mesh, frame, &bounds, View::Front, 50, 50).unwrap();
    let image = draw(&far_first);
    assert_eq!(image, draw(&near_first));
    assert_eq!(image, draw(&flipped));
    let centre = image.pixel(25, 25).unwrap();
    let edge = image.pixel(5, 25).unwrap();
    assert!(is_surface(centre) && is_surface(edge));
    // The near quad faces the viewer (lit), the far one is turned away (ambient only).
    assert!(centre[2] > edge[2] + 60, "centre {centre:?}, edge {edge:?}");
}

#[test]
fn odd_input_is_refused_or_drawn_blank() {
    let (points, normals, mesh) = cuboid([0.0, 1.0, 0.0], [0.5, 1.0, 0.5]);
    let bounds = Bounds::of_points(&points).unwrap();
    let frame = Frame { positions: &points, normals: &normals };
    let blank = render_frame(&Mesh::default(), frame, &bounds, View::Front, 32, 32).unwrap();
    assert!(blank.pixels.chunks(4).all(|p| !is_surface([p[0], p[1], p[2], p[3]])));

    // NaN and infinite points drop their triangles only.
    let mut broken = points.clone();
    broken[0] = [f32::NAN, 0.0, 0.0];
    broken[4] = [f32::INFINITY, 0.0, 0.0];
    let image =
        render_frame(&mesh, Frame { positions: &broken, normals: &normals }, &bounds, View::Front, 32, 32).unwrap();
    assert!(image.pixels.chunks(4).any(|p| is_surface([p[0], p[1], p[2], p[3]])));
    let all_nan = vec![[f32::NAN; 3]; points.len()];
    let image =
        render_frame(&mesh, Frame { positions: &all_nan, normals: &all_nan }, &bounds, View::Front, 32, 32).unwrap();
    assert_eq!(image, blank);

    // Zero-size bounds: drawn, blank (the box has no area on the picture's plane).
    let point = Bounds { min: [1.0; 3], max: [1.0; 3] };
    let same = vec![[1.0; 3]; points.len()];
    assert!(render_frame(&mesh, Frame { positions: &same, normals: &normals }, &point, View::Top, 16, 16)
        .unwrap()
        .pixels
        .chunks(4)
        .all(|p| !is_surface([p[0], p[1], p[2], p[3]])));

    let inside_out = Bounds { min: [1.0; 3], max: [0.0; 3] };
    assert!(matches!(render_frame(&mesh, frame, &inside_out, View::Front, 8, 8), Err(Error::InvalidBounds { .. })));
    let nan_bounds = Bounds { min: [f32::NAN; 3], max: [0.0; 3] };
    assert!(matches!(render_frame(&mesh, frame, &nan_bounds, View::Front, 8, 8), Err(Error::InvalidBounds { .. })));
    let short = Frame { positions: &points, normals: &normals[1..] };
    assert!(matches!(
        render_frame(&mesh, short, &bounds, View::Front, 8, 8),
        Err(Error::NormalCount { positions: 24, normals: 23 })
    ));
    let bad = Mesh { triangles: vec![[0, 1, 99]] };
    assert!(matches!(
        render_frame(&bad, frame, &bounds, View::Front, 8, 8),
        Err(Error::IndexOutOfRange { triangle: 0, index: 99, points: 24 })
    ));
    assert!(matches!(render_frame(&mesh, frame, &bounds, View::Front, 0, 8), Err(Error::Size { .. })));
    assert!(matches!(render_frame(&mesh, frame, &bounds, View::Front, 100_000, 8), Err(Error::Size { .. })));

    let clips = [Clip { name: "Idle", slot: None, rows: vec![frame], mesh: None }];
    let options = |frames, width| SheetOptions { frames, width, height: 32, ..SheetOptions::default() };
    assert!(matches!(contact_sheet(&mesh, &clips, &bounds, &options(0, 32)), Err(Error::NoFrames)));
    assert!(matches!(contact_sheet(&mesh, &clips, &bounds, &options(30_000, 30_000)), Err(Error::Size { .. })));
    let bad_clips = [Clip { name: "Idle", slot: None, rows: vec![short], mesh: None }];
    assert!(matches!(contact_sheet(&mesh, &bad_clips, &bounds, &options(2, 32)), Err(Error::NormalCount { .. })));
    // No clips, or a clip without rows: a sheet with text only.
    let empty = contact_sheet(&mesh, &[], &bounds, &options(3, 32)).unwrap();
    assert!(empty.cells.is_empty());
    let no_rows = contact_sheet(
        &mesh,
        &[Clip { name: "Death", slot: Some("death"), rows: vec![], mesh: None }],
        &bounds,
        &options(3, 32),
    )
    .unwrap();
    assert!(no_rows.cells.is_empty() && no_rows.labels.len() == 1);

    assert!(matches!(animate(&mesh, &[], &bounds, View::Front, 8, 8, 30.0), Err(Error::NoRows)));
    assert!(matches!(animate(&mesh, &[frame], &bounds, View::Front, 8, 8, 0.0), Err(Error::Rate(_))));
    assert!(matches!(animate(&mesh, &[frame], &bounds, View::Front, 8, 8, f32::NAN), Err(Error::Rate(_))));
}
