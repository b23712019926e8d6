// The small bake the crowd and impostor tests share: its description, texture and
// glTF parts as the loader would give them, for fromParts. Not a test file itself.
import * as THREE from 'three';

// A bake of 4 points × 3 rows (one clip) and two levels: 3 points, then 2 (each with a
// column's TEXCOORD_1 of the one texture). Bounds diagonal 2 × √29.
function lodSwitch(fraction) {
  return { pixels: 1, screen_height: 1080, vertical_fov_degrees: 60, screen_fraction: 1 / (1080 * fraction), distance: 0 };
}
export function bake({ levels = 2 } = {}) {
  const lods = [
    { file: 'x.lod1.rest.glb', points: 3, triangles: 1, sha256: '', max_error: 0.1, mean_error: 0.01, max_error_fraction: 0.01, mean_error_fraction: 0.001, rows_measured: 3, switch: lodSwitch(0.01) },
    { file: 'x.lod2.rest.glb', points: 2, triangles: 1, sha256: '', max_error: 0.4, mean_error: 0.04, max_error_fraction: 0.04, mean_error_fraction: 0.004, rows_measured: 3, switch: lodSwitch(0.04) },
  ].slice(0, levels);
  const description = {
    format: 'vatbake.vat', format_version: 1, points: 4, rows: 3,
    texture: { file: 'x.vat.ktx2', container: 'ktx2', vk_format: 91, width: 4, height: 3, bands: 1 },
    positions: { center: [0, 1, 0], half_extent: [2, 3, 4] },
    normals: { channel: 'a', encoding: 'octahedral_8_8' },
    mesh: { file: 'x.rest.glb', points: 4 },
    clips: [{ name: 'A', row: 0, rows: 3, rate: 2, duration: 1, loop: true }, { name: 'B', row: 0, rows: 2, rate: 2, duration: 0.5, loop: false }],
    lods,
  };
  const texture = new THREE.DataTexture(new Uint16Array(4 * 3 * 4), 4, 3, THREE.RGBAFormat, THREE.UnsignedShortType);
  const scene = (columns, index) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(columns.flatMap((c) => [c, 0, 0]), 3));
    g.setAttribute('normal', new THREE.Float32BufferAttribute(columns.flatMap(() => [0, 1, 0]), 3));
    g.setAttribute('uv1', new THREE.Float32BufferAttribute(columns.flatMap((c) => [(c + 0.5) / 4, 0]), 2));
    g.setIndex(index);
    return { scene: new THREE.Group().add(new THREE.Mesh(g, new THREE.MeshStandardMaterial())) };
  };
  return {
    description,
    texture,
    gltf: scene([0, 1, 2, 3], [0, 1, 2, 0, 2, 3]),
    lodGltfs: [scene([0, 2, 3], [0, 1, 2]), scene([0, 2], [0, 1, 0])].slice(0, levels),
  };
}
