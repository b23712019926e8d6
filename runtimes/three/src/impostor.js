// Animated impostors (`vatbake impostor`): a unit drawn as one camera-facing quad showing
// the cell of the view nearest the camera's direction (or the two nearest, blended) and
// of the unit's current frame (the two around its clip time, blended), lit through the
// normal atlas by three's own lights, casting a shadow through the coverage. VatCrowd
// uses it as its last level (src/crowd.js); ImpostorMesh is that level on its own.
import {
  DoubleSide,
  InstancedBufferAttribute,
  InstancedMesh,
  LinearFilter,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  MeshStandardMaterial,
  NoColorSpace,
  PlaneGeometry,
  RGBADepthPacking,
  SRGBColorSpace,
  Vector3,
} from 'three';

/** The most rings an impostor may have (the shader's uniform array). */
export const MAX_RINGS = 8;

/**
 * The coverage an impostor fragment needs to be drawn (the materials' alphaTest). Under
 * one half: between two baked views each view's reprojection is weighted about one
 * half, and a part only one of them shows (the other hid it) must stay; measured in
 * docs/IMPOSTORS.md ("Measured": 0.5 loses a leg the other view hid, 0.35 fattens).
 */
export const IMPOSTOR_ALPHA_TEST = 0.42;

/**
 * Check a parsed impostor sidecar (`<name>.impostor.json`) is one this package draws.
 * @param {object} sidecar
 * @param {string} [where]
 */
export function checkImpostor(sidecar, where = 'the impostor') {
  if (sidecar?.format !== 'vatbake.impostor' || ![1, 2].includes(sidecar.format_version)) {
    throw new Error(`vatbake: ${where} is not a vatbake.impostor sidecar of format_version 1 or 2`);
  }
  const rings = sidecar.views?.elevations ?? [];
  if (rings.length < 1 || rings.length > MAX_RINGS) {
    throw new Error(`vatbake: ${where}: ${rings.length} elevation rings; this player draws 1 to ${MAX_RINGS}`);
  }
  if (!(sidecar.views.azimuths >= 1) || !(sidecar.cell > 0) || !(sidecar.columns > 0) || !Array.isArray(sidecar.clips)) {
    throw new Error(`vatbake: ${where}: no views, cells or clips`);
  }
  return sidecar;
}

/**
 * The frame a unit shows `localTime` seconds into a clip: `[f0, f1, blend]`, frames
 * within the clip (0 to frames − 1) and the weight of f1. A looping clip wraps (its last
 * frame blends into its first); another holds its first and last frames.
 * @param {{ frames: number, duration: number, looping: boolean }} clip  a sidecar clip
 * @param {number} localTime
 * @param {boolean} [interpolate=true]
 */
export function impostorFrame(clip, localTime, interpolate = true) {
  const n = clip.frames;
  let x;
  if (clip.looping) {
    const phase = localTime / clip.duration;
    x = (phase - Math.floor(phase)) * n;
  } else {
    x = Math.min(Math.max(localTime / clip.duration, 0), 1) * Math.max(n - 1, 0);
  }
  let f0 = Math.floor(x);
  let blend = x - f0;
  if (!interpolate) {
    f0 = Math.round(x);
    blend = 0;
  }
  f0 = clip.looping ? f0 % n : Math.min(f0, n - 1);
  const f1 = clip.looping ? (f0 + 1) % n : Math.min(f0 + 1, n - 1);
  return [f0, f1, blend];
}

/**
 * The views a camera direction (in the unit's own axes, toward the camera) falls
 * between: `{ ring, a0, a1, blend }`: the nearest ring by elevation, the two azimuths
 * around the direction on it and the weight of a1.
 * @param {{ views: { azimuths: number, elevations: number[] } }} sidecar
 * @param {{ x: number, y: number, z: number }} direction
 */
export function impostorView(sidecar, direction) {
  const n = sidecar.views.azimuths;
  const rings = sidecar.views.elevations;
  const length = Math.hypot(direction.x, direction.y, direction.z) || 1;
  const elevation = (Math.asin(Math.min(Math.max(direction.y / length, -1), 1)) * 180) / Math.PI;
  let ring = 0;
  for (let k = 1; k < rings.length; k++) if (Math.abs(rings[k] - elevation) < Math.abs(rings[ring] - elevation)) ring = k;
  let turns = Math.atan2(direction.x, direction.z) / (2 * Math.PI);
  turns -= Math.floor(turns);
  const a = turns * n;
  const a0 = Math.floor(a) % n;
  return { ring, a0, a1: (a0 + 1) % n, blend: a - Math.floor(a) };
}

/**
 * The atlas cell of clip frame `frame` (within the clip) from azimuth `a` on ring `ring`,
 * as the sidecar lays cells out, and its top-left corner in uv.
 */
export function impostorCell(sidecar, clip, frame, ring, a) {
  const rings = sidecar.views.elevations.length;
  const cell = ((clip.first_frame + frame) * rings + ring) * sidecar.views.azimuths + a;
  const column = cell % sidecar.columns;
  const row = Math.floor(cell / sidecar.columns);
  return { cell, u: (column * sidecar.cell) / sidecar.width, v: (row * sidecar.cell) / sidecar.height };
}

/**
 * Make an impostor ready to draw from its parts: the sidecar and the two atlases as
 * three textures (what KTX2Loader gives for R8G8B8A8_SRGB and _UNORM).
 * @param {object} sidecar
 * @param {import('three').Texture} colour
 * @param {import('three').Texture} normal
 */
export function impostorFromParts(sidecar, colour, normal) {
  checkImpostor(sidecar);
  for (const [texture, space] of [[colour, SRGBColorSpace], [normal, NoColorSpace]]) {
    texture.colorSpace = space;
    texture.flipY = false; // KTXorientation "rd": row 0 is the top
    texture.minFilter = LinearFilter; // no mipmaps: neighbouring cells are other poses
    texture.magFilter = LinearFilter;
    texture.generateMipmaps = false;
    texture.needsUpdate = true;
  }
  return {
    sidecar,
    colour,
    normal,
    clips: new Map(sidecar.clips.map((c, index) => [c.name, { ...c, index }])),
    /** Bytes both atlases take on the GPU (RGBA8, no mipmaps). */
    gpuBytes: 2 * sidecar.width * sidecar.height * 4,
    dispose() {
      colour.dispose();
      normal.dispose();
    },
  };
}

/**
 * Load `<name>.impostor.json` and its two atlases (relative to its URL) with three's
 * KTX2Loader.
 * @param {string} url
 * @param {{ loader: import('three/addons/loaders/KTX2Loader.js').KTX2Loader }} options
 */
export async function loadImpostor(url, { loader } = {}) {
  if (!loader) throw new Error('vatbake: loadImpostor needs { loader }: a KTX2Loader');
  const response = await fetch(url);
  if (!response.ok) throw new Error(`vatbake: ${url}: HTTP ${response.status}`);
  const sidecar = checkImpostor(await response.json(), url);
  const base = new URL(url, globalThis.document?.baseURI ?? globalThis.location?.href);
  const [colour, normal] = await Promise.all(
    [sidecar.colour.file, sidecar.normal.file].map((file) => loader.loadAsync(new URL(file, base).href)),
  );
  return impostorFromParts(sidecar, colour, normal);
}

const VERTEX_HEAD = /* glsl */ `
uniform sampler2D impColour;
uniform vec4 impLayout;      // columns, cell / width, cell / height, azimuths
uniform vec4 impShape;       // rings, size, blend views (0/1), interpolate frames (0/1)
uniform vec3 impPivot;
uniform float impRings[${MAX_RINGS}];
uniform float vatTime;
attribute vec4 impClip;      // first frame, frames, duration, looping
attribute vec2 impPlay;      // start, speed
varying vec2 vImpCorner[4];  // top-left uv of the cells (view 0, frame 0), (view 1, frame 0), (view 0, frame 1), (view 1, frame 1)
varying vec2 vImpQuad;       // the point on the quad, in cell sides from its centre (x right, y up)
varying vec2 vImpDelta;      // the camera's azimuth minus view 0's and view 1's, radians
varying vec2 vImpRing;       // sin and cos of the ring's elevation
varying vec2 vImpBlend;      // weight of view 1, weight of frame 1
varying mat3 vImpToView;     // the unit's model axes to view space (for its normals)

vec2 impCorner(float frame, float ring, float azimuth) {
  float cell = ((impClip.x + frame) * impShape.x + ring) * impLayout.w + azimuth;
  float row = floor(cell / impLayout.x);
  float column = cell - row * impLayout.x;
  return vec2(column * impLayout.y, row * impLayout.z);
}
`;

const VERTEX_BODY = /* glsl */ `
  mat4 impModel = modelMatrix * instanceMatrix;
  vec3 impCentre = (impModel * vec4(impPivot, 1.0)).xyz;
  float impScale = length(impModel[1].xyz);
  vec3 impToCamera = isOrthographic ? vec3(viewMatrix[0][2], viewMatrix[1][2], viewMatrix[2][2]) : normalize(cameraPosition - impCentre);
  vec3 impRight = cross(vec3(0.0, 1.0, 0.0), impToCamera);
  impRight = length(impRight) > 1e-5 ? normalize(impRight) : vec3(1.0, 0.0, 0.0);
  vec3 impUp = cross(impToCamera, impRight);
  vec3 impWorld = impCentre + (impRight * position.x + impUp * position.y) * impShape.y * impScale;
  vec3 transformed = (inverse(impModel) * vec4(impWorld, 1.0)).xyz;

  // The camera's direction in the unit's own axes picks the views.
  vec3 impLocal = normalize(inverse(mat3(impModel)) * impToCamera);
  float impElevation = degrees(asin(clamp(impLocal.y, -1.0, 1.0)));
  float impRing = 0.0;
  float impBest = 1e9;
  for (int k = 0; k < ${MAX_RINGS}; k++) {
    if (float(k) >= impShape.x) break;
    float d = abs(impRings[k] - impElevation);
    if (d < impBest) { impBest = d; impRing = float(k); }
  }
  float impTurns = fract(atan(impLocal.x, impLocal.z) / 6.28318530718);
  float impA = impTurns * impLayout.w;
  float impA0 = mod(floor(impA), impLayout.w);
  float impViewBlend = impA - floor(impA);
  float impOff = impViewBlend;
  if (impShape.z < 0.5) { impA0 = mod(floor(impA + 0.5), impLayout.w); impOff = impA - floor(impA + 0.5); impViewBlend = 0.0; }
  float impA1 = mod(impA0 + 1.0, impLayout.w);
  vImpDelta = vec2(impOff, impOff - 1.0) * 6.28318530718 / impLayout.w;
  float impE = radians(impRings[int(impRing)]);
  vImpRing = vec2(sin(impE), cos(impE));
  vImpQuad = position.xy;

  // The unit's frame at its clip time.
  float impLocalTime = (vatTime - impPlay.x) * impPlay.y;
  float impFrames = impClip.y;
  float impX = impClip.w > 0.5
    ? fract(impLocalTime / impClip.z) * impFrames
    : clamp(impLocalTime / impClip.z, 0.0, 1.0) * max(impFrames - 1.0, 0.0);
  float impF0 = floor(impX);
  float impFrameBlend = impX - impF0;
  if (impShape.w < 0.5) { impF0 = floor(impX + 0.5); impFrameBlend = 0.0; }
  float impF1;
  if (impClip.w > 0.5) { impF0 = mod(impF0, impFrames); impF1 = mod(impF0 + 1.0, impFrames); }
  else { impF0 = min(impF0, impFrames - 1.0); impF1 = min(impF0 + 1.0, impFrames - 1.0); }

  vImpCorner[0] = impCorner(impF0, impRing, impA0);
  vImpCorner[1] = impCorner(impF0, impRing, impA1);
  vImpCorner[2] = impCorner(impF1, impRing, impA0);
  vImpCorner[3] = impCorner(impF1, impRing, impA1);
  vImpBlend = vec2(impViewBlend, impFrameBlend);
  vImpToView = mat3(viewMatrix) * mat3(impModel) / impScale;
`;

const FRAGMENT_HEAD = /* glsl */ `
uniform sampler2D impColour;
uniform sampler2D impNormal;
uniform vec4 impLayout;
uniform float impParallax;   // fixed-point steps of the parallax correction (0: none)
varying vec2 vImpCorner[4];
varying vec2 vImpQuad;
varying vec2 vImpDelta;
varying vec2 vImpRing;
varying vec2 vImpBlend;
varying mat3 vImpToView;

// Where the surface point under this fragment is in a view drawn \`delta\` radians of
// azimuth away, on the same ring: the view's point (x, y) with depth z (all in cell
// sides) shows at x' = x cos δ - h sin δ, y' = y - sin e ((cos δ - 1) h + sin δ x) for the
// camera, h = z cos e - y sin e its horizontal depth; solved for (x, y) by fixed-point
// steps through the depth the normal atlas stores (alpha: 0.5 + z).
vec2 impUv(vec2 corner, float delta) {
  vec2 q = vImpQuad;
  float c = cos(delta);
  float s = sin(delta);
  for (int i = 0; i < 4; i++) {
    if (float(i) >= impParallax) break;
    vec2 uv = corner + (vec2(q.x, -q.y) + 0.5) * impLayout.yz;
    float z = texture2D(impNormal, uv).a - 0.5;
    float h = z * vImpRing.y - q.y * vImpRing.x;
    q.x = (vImpQuad.x + h * s) / c;
    q.y = vImpQuad.y + vImpRing.x * ((c - 1.0) * h + s * q.x);
  }
  q = clamp(q, vec2(-0.499), vec2(0.499));
  return corner + (vec2(q.x, -q.y) + 0.5) * impLayout.yz;
}

vec4 impSample(sampler2D atlas) {
  vec4 f0 = mix(texture2D(atlas, impUv(vImpCorner[0], vImpDelta.x)), texture2D(atlas, impUv(vImpCorner[1], vImpDelta.y)), vImpBlend.x);
  vec4 f1 = mix(texture2D(atlas, impUv(vImpCorner[2], vImpDelta.x)), texture2D(atlas, impUv(vImpCorner[3], vImpDelta.y)), vImpBlend.x);
  return mix(f0, f1, vImpBlend.y);
}
`;

/**
 * Patch a material (MeshStandardMaterial or any lit material, MeshDepthMaterial,
 * MeshDistanceMaterial) to draw impostor quads: the billboard in the vertex shader, the
 * atlas's colour and coverage (alpha-tested at `alphaTest`, IMPOSTOR_ALPHA_TEST by default) and, for a
 * lit material, its normal in the fragment shader.
 * @param {import('three').Material} material
 * @param {object} uniforms  impostorUniforms(), shared by reference
 * @param {{ lit?: boolean, colour?: boolean }} [options]  `colour: false`: the coverage
 *   only, the material's own colour kept (a silhouette)
 */
export function patchImpostorMaterial(material, uniforms, { lit = true, colour = true } = {}) {
  if (!(material.alphaTest > 0)) material.alphaTest = IMPOSTOR_ALPHA_TEST;
  material.side = DoubleSide;
  material.onBeforeCompile = (shader) => {
    Object.assign(shader.uniforms, uniforms);
    shader.vertexShader = VERTEX_HEAD + shader.vertexShader.replace('#include <begin_vertex>', VERTEX_BODY);
    let fragment = FRAGMENT_HEAD + shader.fragmentShader;
    if (colour && fragment.includes('#include <map_fragment>')) {
      fragment = fragment.replace('#include <map_fragment>', 'vec4 impTexel = impSample(impColour);\n  diffuseColor *= impTexel;');
    } else {
      // Depth and distance materials, silhouettes: only the coverage.
      fragment = fragment.replace('#include <alphatest_fragment>', 'diffuseColor.a *= impSample(impColour).a;\n#include <alphatest_fragment>');
    }
    if (lit) {
      fragment = fragment.replace(
        '#include <normal_fragment_begin>',
        `#include <normal_fragment_begin>
  normal = normalize(vImpToView * (impSample(impNormal).xyz * 2.0 - 1.0));
  nonPerturbedNormal = normal;`,
      );
    }
    shader.fragmentShader = fragment;
  };
  material.customProgramCacheKey = () => `vatbake-impostor-${lit}-${colour}`;
  material.needsUpdate = true;
  return material;
}

/** The uniforms an impostor's materials share (by reference). */
export function impostorUniforms(impostor, { blendViews = true, interpolate = true, parallax = 3, time = null } = {}) {
  const s = impostor.sidecar;
  const rings = new Array(MAX_RINGS).fill(1e9);
  s.views.elevations.forEach((e, k) => (rings[k] = e));
  return {
    impColour: { value: impostor.colour },
    impNormal: { value: impostor.normal },
    impLayout: { value: [s.columns, s.cell / s.width, s.cell / s.height, s.views.azimuths] },
    impShape: { value: [s.views.elevations.length, s.size, blendViews ? 1 : 0, interpolate ? 1 : 0] },
    impPivot: { value: new Vector3(...s.pivot) },
    impRings: { value: rings },
    impParallax: { value: parallax },
    vatTime: time ?? { value: 0 },
  };
}

/**
 * Units drawn as impostors: an InstancedMesh of quads, one per unit. Place units with
 * setMatrixAt (rotation about +Y, uniform scale) and give each its clip with setClip;
 * `update(seconds)` advances the clock (or pass a VatMesh's `uniforms.vatTime` as
 * `time` to share its clock).
 */
export class ImpostorMesh extends InstancedMesh {
  /**
   * @param {ReturnType<typeof impostorFromParts>} impostor
   * @param {number} count
   * @param {object} [options]
   * @param {import('three').Material} [options.material]  a lit material to patch (default MeshStandardMaterial)
   * @param {boolean} [options.blendViews=true]  blend the two nearest azimuths (false: the nearest only)
   * @param {boolean} [options.interpolate=true]  blend the two frames around the clip time
   * @param {number} [options.parallax=3]  steps of the parallax correction of each view
   *   through the stored depth (0 to 4; 0: the views as drawn)
   * @param {{ value: number }} [options.time]  a shared clock uniform
   */
  constructor(impostor, count, { material = null, blendViews = true, interpolate = true, parallax = 3, time = null } = {}) {
    const geometry = new PlaneGeometry(1, 1);
    geometry.setAttribute('impClip', new InstancedBufferAttribute(new Float32Array(count * 4), 4));
    geometry.setAttribute('impPlay', new InstancedBufferAttribute(new Float32Array(count * 2), 2));
    const uniforms = impostorUniforms(impostor, { blendViews, interpolate, parallax, time });
    const lit = material ?? new MeshStandardMaterial({ roughness: 0.8, metalness: 0 });
    super(geometry, patchImpostorMaterial(lit, uniforms), count);
    this.name = 'ImpostorMesh';
    this.impostor = impostor;
    this.uniforms = uniforms;
    this.customDepthMaterial = patchImpostorMaterial(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }), uniforms, { lit: false });
    this.customDistanceMaterial = patchImpostorMaterial(new MeshDistanceMaterial(), uniforms, { lit: false });
    // The quads move in the vertex shader: never culled by the rest quad's bounds.
    this.frustumCulled = false;
    const first = impostor.sidecar.clips[0];
    for (let i = 0; i < count; i++) this.setClip(i, first.name);
  }

  get time() {
    return this.uniforms.vatTime.value;
  }

  /** Set the clock, in seconds. */
  update(seconds) {
    this.uniforms.vatTime.value = seconds;
  }

  /**
   * Play clip `name` on unit `index` from `start` (seconds on the clock) at `speed`.
   * @param {number} index
   * @param {string} name
   * @param {{ start?: number, speed?: number }} [options]
   */
  setClip(index, name, { start = this.time, speed = 1 } = {}) {
    const clip = this.impostor.clips.get(name);
    if (!clip) throw new Error(`vatbake: the impostor has no clip "${name}"; it has ${[...this.impostor.clips.keys()].join(', ')}`);
    const a = this.geometry.attributes;
    a.impClip.array.set([clip.first_frame, clip.frames, clip.duration, clip.looping ? 1 : 0], index * 4);
    a.impPlay.array.set([start, speed], index * 2);
    a.impClip.needsUpdate = true;
    a.impPlay.needsUpdate = true;
    return this;
  }

  dispose() {
    this.geometry.dispose();
    this.material.dispose();
    this.customDepthMaterial.dispose();
    this.customDistanceMaterial.dispose();
    return this;
  }
}
