// Runs in headless Chromium. Draws one bake two ways with the same camera:
//   (a) the VAT, through the runtime package runtimes/three (@vatbake/three, unchanged),
//   (b) the SOURCE model through three.js's GLTFLoader + AnimationMixer (SkinnedMesh,
//       morph targets, animated nodes),
// as flat white-on-black silhouettes, and hands the masks to node (window.harness).
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { fromParts, loadVat, VatMesh, VAT_GLSL } from '@vatbake/three';
import { readMask as readMaskOf } from './mask.js';

let renderer;
let size;
let camera;
let ktx2 = null;
let vat = null; // what loadVat gave
let mesh = null; // the VatMesh of one unit
let vatScene = null;
let source = null;

const white = () => new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });

function init(canvasSize) {
  size = canvasSize;
  // No antialiasing: a pixel is either covered or not, so the masks are exact.
  renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(size, size);
  renderer.setClearColor(0x000000, 1);
  document.body.appendChild(renderer.domElement);
  const gl = renderer.getContext();
  const debug = gl.getExtension('WEBGL_debug_renderer_info');
  return {
    webgl2: gl instanceof WebGL2RenderingContext,
    norm16: renderer.extensions.has('EXT_texture_norm16'),
    maxTextureSize: gl.getParameter(gl.MAX_TEXTURE_SIZE),
    renderer: debug ? gl.getParameter(debug.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER),
  };
}

/** Camera framed from the description's bounds (which cover every frame of every clip). */
function frame(description) {
  const c = new THREE.Vector3(...description.positions.center);
  const h = new THREE.Vector3(...description.positions.half_extent);
  const radius = Math.max(h.length(), 1e-6);
  const fov = 30;
  const distance = (radius / Math.sin(THREE.MathUtils.degToRad(fov / 2))) * 1.02;
  // Front-right, above: glTF's front is +Z, up is +Y.
  const direction = new THREE.Vector3(0.8, 0.45, 1).normalize();
  const cam = new THREE.PerspectiveCamera(fov, 1, Math.max(distance - 2 * radius, distance * 1e-3), distance + 2 * radius);
  cam.position.copy(c).addScaledVector(direction, distance);
  cam.lookAt(c);
  cam.updateMatrixWorld(true);
  return cam;
}

async function load({ descriptionUrl, sourceUrl, path = 'auto', frameFrom = null }) {
  unload();
  // (a) VAT: one unit, silhouette material, frustum culling left ON (three's default):
  // a bounding volume that missed part of the animation would cut the unit out.
  ktx2 ??= new KTX2Loader().detectSupport(renderer);
  // The rest GLB of a `--rest-mesh meshopt` bake needs three.js's meshopt decoder.
  const gltfLoader = new GLTFLoader().setMeshoptDecoder(MeshoptDecoder);
  vat = await loadVat(descriptionUrl, { loader: ktx2, renderer, path, gltfLoader });
  mesh = new VatMesh(vat, 1, { material: white() });
  vatScene = new THREE.Scene();
  vatScene.add(mesh);
  camera = frame(frameFrom ?? vat.description); // frameFrom: another bake's bounds (root motion: the moving source's)

  // (b) The source with three.js's own playback. Culling off: three computes a skinned
  // mesh's bounds once, and the reference must not lose pixels to that.
  const gltf = await new GLTFLoader().loadAsync(sourceUrl);
  const scene = gltf.scene;
  const rest = [];
  scene.traverse((o) => {
    rest.push({ o, p: o.position.clone(), q: o.quaternion.clone(), s: o.scale.clone(), w: o.morphTargetInfluences?.slice() });
    if (o.isMesh) {
      o.material = white();
      o.frustumCulled = false;
    }
  });
  source = { gltf, scene, rest, mixer: null, key: null };

  // Bounds: the rest GLB's POSITION (with its two corner vertices) must cover the
  // description's bounds, so three's frustum culling can never cut a frame.
  const d = vat.description;
  const box = mesh.geometry.boundingBox;
  mesh.computeBoundingSphere();
  const sphere = mesh.boundingSphere;
  const corners = [];
  for (let i = 0; i < 8; i++) {
    corners.push(new THREE.Vector3(...[0, 1, 2].map((a) => d.positions.center[a] + ((i >> a) & 1 ? 1 : -1) * d.positions.half_extent[a])));
  }
  return {
    description: d,
    path: vat.path,
    animations: gltf.animations.map((a) => ({ name: a.name, duration: a.duration })),
    bounds: {
      geometryMin: box.min.toArray(),
      geometryMax: box.max.toArray(),
      sphereCenter: sphere.center.toArray(),
      sphereRadius: sphere.radius,
      cornerDistances: corners.map((p) => p.distanceTo(sphere.center)),
    },
  };
}

function unload() {
  mesh?.dispose();
  vat?.dispose();
  if (source?.mixer) source.mixer.stopAllAction();
  vat = mesh = vatScene = source = shadowRig = null;
}

/** The canvas as a mask (mask.js): 255 = covered (`dark`: 255 = dark pixel). */
const readMask = (options) => readMaskOf(renderer.getContext(), size, options);

/**
 * VAT unit at clip time t. The time is split between the shared clock and the unit's
 * start (clock t/2, started at −t/2: both exact in binary) so both paths of the shader
 * are exercised. `speed` is the unit's speed: 1 is correct playback; anything else plays
 * the clip at the wrong speed (the negative control). `interpolate` false shows the
 * nearest row; `crossfade` = { clip, weight } blends a second clip started at the same time.
 */
function renderVat(clipName, t, { speed = 1, interpolate = true, crossfade = null } = {}) {
  mesh.update(t / 2);
  mesh.setClip(0, clipName, { start: -t / 2, speed });
  if (crossfade) mesh.setCrossfade(0, crossfade.clip, crossfade.weight, { start: -t / 2, speed });
  if (mesh.interpolate !== interpolate) mesh.interpolate = interpolate;
  renderer.render(vatScene, camera);
  return readMask();
}

/**
 * Pose the source at time t of the animation(s) the clip was baked from, played by
 * three.js's AnimationMixer. `blend` = { sources, weight }: a second clip's animations
 * at the same time with that weight, the first at 1 − weight (AnimationMixer's own blend
 * of joint transforms: a crossfade caught at that weight).
 */
function poseSource(sourceIndices, t, loop, blend = null) {
  const key = sourceIndices.join() + (loop ? 'L' : 'O') + (blend ? `+${blend.sources.join()}@${blend.weight}` : '');
  const groups = blend ? [[sourceIndices, 1 - blend.weight], [blend.sources, blend.weight]] : [[sourceIndices, 1]];
  if (source.key !== key) {
    if (source.mixer) {
      source.mixer.stopAllAction();
      source.mixer.uncacheRoot(source.scene);
    }
    for (const r of source.rest) {
      r.o.position.copy(r.p);
      r.o.quaternion.copy(r.q);
      r.o.scale.copy(r.s);
      if (r.w) r.o.morphTargetInfluences.splice(0, r.w.length, ...r.w);
    }
    source.mixer = new THREE.AnimationMixer(source.scene);
    for (const [indices, weight] of groups) {
      for (const i of indices) {
        const action = source.mixer.clipAction(source.gltf.animations[i]);
        action.setLoop(loop ? THREE.LoopRepeat : THREE.LoopOnce, Infinity);
        action.clampWhenFinished = true;
        action.setEffectiveWeight(weight);
        action.play();
      }
    }
    source.key = key;
  }
  // A LoopOnce action that ran to its end is paused (clampWhenFinished), and setTime()
  // would leave it there: rewind every action before seeking (reset keeps the weight).
  for (const [indices] of groups) for (const i of indices) source.mixer.existingAction(source.gltf.animations[i]).reset();
  source.mixer.setTime(t);
  source.scene.updateMatrixWorld(true);
}

/** The source at time t, played by three.js (see poseSource), as a silhouette mask. */
function renderSource(sourceIndices, t, loop, blend = null) {
  poseSource(sourceIndices, t, loop, blend);
  renderer.render(source.scene, camera);
  return readMask();
}

/**
 * Shadows: the unit (VAT or source) is not drawn (colorWrite and depthWrite off) but
 * casts a shadow from a directional light onto a white plane under it, seen from above;
 * the mask is the plane's shadowed pixels. `depth: false` takes the VAT mesh's patched
 * depth material away, so three's default depth pass draws the rest pose (the control).
 */
let shadowRig = null;
function shadowScene() {
  if (shadowRig) return shadowRig;
  const d = vat.description;
  const c = new THREE.Vector3(...d.positions.center);
  const h = new THREE.Vector3(...d.positions.half_extent);
  const radius = Math.max(h.length(), 1e-6);
  const floorY = c.y - h.y - 1e-3 * radius;
  const scene = new THREE.Scene();
  const plane = new THREE.Mesh(new THREE.PlaneGeometry(40 * radius, 40 * radius).rotateX(-Math.PI / 2), new THREE.MeshLambertMaterial({ color: 0xffffff }));
  plane.position.set(c.x, floorY, c.z);
  plane.receiveShadow = true;
  scene.add(plane);
  // Light from the side and above: the shadow is the pose projected at 45° onto the plane.
  const toLight = new THREE.Vector3(0.7, 1, 0.3).normalize();
  const light = new THREE.DirectionalLight(0xffffff, 4);
  light.position.copy(c).addScaledVector(toLight, 3 * radius);
  light.target.position.copy(c);
  light.castShadow = true;
  light.shadow.mapSize.set(1024, 1024);
  Object.assign(light.shadow.camera, { left: -1.2 * radius, right: 1.2 * radius, top: 1.2 * radius, bottom: -1.2 * radius, near: 0.5 * radius, far: 6 * radius });
  light.shadow.camera.updateProjectionMatrix();
  light.shadow.bias = -1e-4;
  scene.add(light, light.target);
  // The camera looks straight down at where the shadow falls (the bounds' centre pushed
  // along the light down to the plane), framing the pose's possible shadow.
  const shadowCentre = c.clone().addScaledVector(toLight, -(c.y - floorY) / toLight.y);
  const half = 1.1 * (radius + (2 * h.y * Math.hypot(toLight.x, toLight.z)) / toLight.y / 2);
  const top = new THREE.OrthographicCamera(-half, half, half, -half, 0.1 * radius, 10 * radius);
  top.position.set(shadowCentre.x, floorY + 5 * radius, shadowCentre.z);
  top.up.set(0, 0, -1);
  top.lookAt(shadowCentre.x, floorY, shadowCentre.z);
  top.updateMatrixWorld(true);
  shadowRig = { scene, camera: top };
  return shadowRig;
}

function renderShadow(kind, t, { clip = null, sources = null, loop = true, depth = true } = {}) {
  const { scene, camera: top } = shadowScene();
  const unit = kind === 'vat' ? mesh : source.scene;
  const materials = [];
  unit.traverse((o) => {
    if (o.isMesh) {
      o.castShadow = true;
      for (const m of Array.isArray(o.material) ? o.material : [o.material]) materials.push(m);
    }
  });
  for (const m of materials) Object.assign(m, { colorWrite: false, depthWrite: false });
  const savedDepth = mesh.customDepthMaterial;
  if (kind === 'vat') {
    mesh.update(t / 2);
    mesh.setClip(0, clip, { start: -t / 2 });
    if (!depth) mesh.customDepthMaterial = undefined;
  } else {
    poseSource(sources, t, loop);
  }
  const parent = unit.parent;
  scene.add(unit);
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.BasicShadowMap;
  renderer.shadowMap.needsUpdate = true;
  renderer.render(scene, top);
  const mask = readMask({ dark: true });
  scene.remove(unit);
  parent?.add(unit);
  mesh.customDepthMaterial = savedDepth;
  for (const m of materials) Object.assign(m, { colorWrite: true, depthWrite: true });
  return mask;
}

/**
 * Sockets: at each time, the VAT unit's socket (VatMesh.getSocket, its unit placed at
 * `offset`) against the source joint's world transform under three.js's AnimationMixer
 * (the same offset applied), as distances and angles, and a cube attached to each
 * drawn as a silhouette (masks returned for an IoU).
 */
function socketCheck(clipName, sources, loop, jointName, times, offset = [0, 0, 0]) {
  const joint = source.scene.getObjectByName(jointName);
  if (!joint) throw new Error(`no node "${jointName}" in the source`);
  const d = vat.description;
  const size = Math.hypot(...d.positions.half_extent) * 0.15;
  const cube = new THREE.Mesh(new THREE.BoxGeometry(size, size * 0.4, size * 2).translate(0, 0, size), white());
  cube.matrixAutoUpdate = false;
  cube.frustumCulled = false;
  const cubeScene = new THREE.Scene().add(cube);
  const place = new THREE.Matrix4().makeTranslation(...offset);
  mesh.setMatrixAt(0, place);
  mesh.instanceMatrix.needsUpdate = true;
  const out = [];
  for (const t of times) {
    mesh.update(t / 2);
    mesh.setClip(0, clipName, { start: -t / 2 });
    const socket = mesh.getSocket(0, jointName);
    poseSource(sources, t, loop);
    const jointWorld = new THREE.Matrix4().multiplyMatrices(place, joint.matrixWorld);
    const p = new THREE.Vector3();
    const q = new THREE.Quaternion();
    jointWorld.decompose(p, q, new THREE.Vector3());
    cube.matrix.copy(socket.matrix);
    renderer.render(cubeScene, camera);
    const vatCube = readMask();
    cube.matrix.compose(p, q, new THREE.Vector3(1, 1, 1));
    renderer.render(cubeScene, camera);
    const threeCube = readMask();
    out.push({ t, distance: socket.position.distanceTo(p), degrees: THREE.MathUtils.radToDeg(socket.quaternion.angleTo(q)), vatCube, threeCube });
  }
  mesh.setMatrixAt(0, new THREE.Matrix4());
  mesh.instanceMatrix.needsUpdate = true;
  cube.geometry.dispose();
  return out;
}

/**
 * Root motion: the VAT unit at time t, in place (instance at the origin) or placed by
 * VatMesh.getRootMotion (translation, then yaw about +y), as a silhouette; with the
 * recorded translation.
 */
function renderRootMotion(clipName, t, { apply = true } = {}) {
  mesh.update(t / 2);
  mesh.setClip(0, clipName, { start: -t / 2 });
  const motion = mesh.getRootMotion(0);
  const m = new THREE.Matrix4();
  if (apply && motion) m.makeRotationY(motion.yaw).setPosition(motion.translation);
  mesh.setMatrixAt(0, m);
  mesh.instanceMatrix.needsUpdate = true;
  renderer.render(vatScene, camera);
  const mask = readMask();
  mesh.setMatrixAt(0, new THREE.Matrix4());
  mesh.instanceMatrix.needsUpdate = true;
  return { mask, translation: motion ? motion.translation.toArray() : null };
}

/**
 * Rewrite the loaded bake as a KTX2 with array layers would come out of three's
 * KTX2Loader (docs/FORMAT.md, "Array layers" and "Normals"): the logical texture cut
 * into layers of `layerHeight` rows, the last padded with zeros, all in one DataTexture
 * of one layer's size; with `normals: 'separate'` the octahedral 8 + 8 normals re-encoded
 * as 16 + 16 in R and G of as many layers after the positions', and the alpha zeroed.
 * Then load it again through the package's fromParts and draw with that.
 */
function relayer({ layerHeight, normals = 'packed' }) {
  const d = vat.description;
  const { width, height } = d.texture;
  const layers = Math.ceil(height / layerHeight);
  const layerTexels = width * layerHeight * 4;
  const normalLayers = normals === 'separate' ? layers : 0;
  const data = new Uint16Array(layerTexels * (layers + normalLayers));
  const logical = vat.texture.image.data.subarray(0, width * height * 4);
  data.set(logical, 0);
  if (normals === 'separate') {
    for (let i = 0; i < width * height; i++) {
      const [x, y, z] = octDecode(logical[i * 4 + 3]);
      // Octahedral encode (the inverse of unfold), 16 bits a component.
      const l1 = Math.abs(x) + Math.abs(y) + Math.abs(z);
      let ox = x / l1;
      let oy = y / l1;
      if (z < 0) [ox, oy] = [(1 - Math.abs(oy)) * (ox >= 0 ? 1 : -1), (1 - Math.abs(ox)) * (oy >= 0 ? 1 : -1)];
      data[layers * layerTexels + i * 4] = Math.round((ox * 0.5 + 0.5) * 65535);
      data[layers * layerTexels + i * 4 + 1] = Math.round((oy * 0.5 + 0.5) * 65535);
      data[i * 4 + 3] = 0;
    }
  }
  const description = {
    ...d,
    texture: { ...d.texture, delta: undefined, layers, layer_height: layerHeight },
    normals: normals === 'separate' ? { mode: 'separate', channel: 'rg', encoding: 'octahedral_16_16', first_layer: layers } : d.normals,
  };
  const ktx2 = new THREE.DataTexture(data, width, layerHeight, THREE.RGBAFormat, THREE.UnsignedShortType);
  const restScene = new THREE.Mesh(vat.geometry);
  const previous = { vat, mesh };
  vat = fromParts(description, { scene: restScene }, ktx2, { renderer });
  mesh = new VatMesh(vat, 1, { material: white() });
  vatScene.remove(previous.mesh);
  vatScene.add(mesh);
  previous.mesh.dispose();
  return { layers: layers + normalLayers, arrayTexture: vat.arrayTexture, depth: vat.texture.image.depth };
}

/**
 * Every texel through the shader: one point per (point, row), drawn with the VAT decode
 * of @vatbake/three (VAT_GLSL) into a float target, against the decode formula evaluated here in
 * float64 on the u16 texels KTX2Loader produced. Rows are reached through the real clip
 * path: per row, clipInfo = its clip, rate 1, time offset k (so f = 0 exactly).
 */
function decodeCheck({ simulate = null } = {}) {
  const d = vat.description;
  let uniforms = vat.uniforms;
  let norm16 = vat.path === 'norm16';
  let simulated = null;
  if (simulate) {
    // The norm16 branch of the shader (sampler2D, texelFetch, × 65535, round) fed with
    // t / 65535 from a float texture, both core WebGL2, so the branch runs here even
    // without EXT_texture_norm16: 'norm16' = RGBA32F, exactly what an RGBA16 UNORM
    // texture returns; 'half' = RGBA16F, what a half-float copy of the texture would hold.
    const src = vat.texture.image.data;
    const f = simulate === 'half' ? new Uint16Array(src.length) : new Float32Array(src.length);
    for (let i = 0; i < src.length; i++) f[i] = simulate === 'half' ? THREE.DataUtils.toHalfFloat(src[i] / 65535) : src[i] / 65535;
    const type = simulate === 'half' ? THREE.HalfFloatType : THREE.FloatType;
    const image = vat.texture.image;
    simulated = vat.arrayTexture ? new THREE.DataArrayTexture(f, image.width, image.height, image.depth) : new THREE.DataTexture(f, image.width, image.height, THREE.RGBAFormat, type);
    simulated.type = type;
    simulated.minFilter = simulated.magFilter = THREE.NearestFilter;
    simulated.needsUpdate = true;
    uniforms = { ...uniforms, vatTexture: { value: simulated } };
    norm16 = true;
  }
  const points = d.points;
  const rows = d.rows;
  const width = 1024;
  const bandRows = Math.ceil(points / width);
  const height = rows * bandRows;

  const rest = mesh.geometry;
  const geometry = new THREE.InstancedBufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(points * 3), 3));
  // TEXCOORD_1 of the rest GLB's first `points` vertices: vertex i is point i, read from its own column.
  const uv1 = new Float32Array(points * 2);
  for (let i = 0; i < points; i++) uv1.set([rest.attributes.uv1.getX(i), rest.attributes.uv1.getY(i)], i * 2);
  geometry.setAttribute('uv1', new THREE.Float32BufferAttribute(uv1, 2));
  const clipInfo = new Float32Array(rows * 4);
  const play = new Float32Array(rows * 4);
  for (const clip of d.clips) {
    for (let k = 0; k < clip.rows; k++) {
      clipInfo.set([clip.row, clip.rows, 1, 0], (clip.row + k) * 4);
      play.set([-k, 1, 0, 0], (clip.row + k) * 4); // local time k at rate 1: row k, f = 0
    }
  }
  geometry.setAttribute('vatClipA', new THREE.InstancedBufferAttribute(clipInfo, 4));
  geometry.setAttribute('vatClipB', new THREE.InstancedBufferAttribute(new Float32Array(rows * 4), 4));
  geometry.setAttribute('vatPlay', new THREE.InstancedBufferAttribute(play, 4));
  geometry.setAttribute('vatWeight', new THREE.InstancedBufferAttribute(new Float32Array(rows), 1));
  geometry.instanceCount = rows;

  const material = new THREE.ShaderMaterial({
    glslVersion: THREE.GLSL3,
    defines: {
      ...(norm16 ? { VAT_NORM16: '' } : {}),
      ...(vat.arrayTexture ? { VAT_LAYERS: '' } : {}),
      ...(vat.normals === 'separate' ? { VAT_NORMALS_SEPARATE: '' } : {}),
      OUT_WIDTH: width,
      BAND_ROWS: bandRows,
      OUT_HEIGHT: height,
    },
    uniforms: { ...uniforms, vatTime: { value: 0 }, outNormal: { value: 0 } },
    vertexShader: `${VAT_GLSL}
      out vec3 vOut;
      uniform int outNormal;
      void main() {
        vec3 p, n;
        vatSample(p, n);
        vOut = outNormal == 1 ? n : p;
        int x = gl_VertexID % OUT_WIDTH;
        int y = gl_InstanceID * BAND_ROWS + gl_VertexID / OUT_WIDTH;
        gl_Position = vec4((float(x) + 0.5) / float(OUT_WIDTH) * 2.0 - 1.0, (float(y) + 0.5) / float(OUT_HEIGHT) * 2.0 - 1.0, 0.0, 1.0);
        gl_PointSize = 1.0;
      }`,
    fragmentShader: `
      in vec3 vOut;
      layout(location = 0) out highp vec4 outColor;
      void main() { outColor = vec4(vOut, 1.0); }`,
  });
  const pointsObject = new THREE.Points(geometry, material);
  pointsObject.frustumCulled = false;
  const scene = new THREE.Scene();
  scene.add(pointsObject);
  const target = new THREE.WebGLRenderTarget(width, height, { type: THREE.FloatType, format: THREE.RGBAFormat, depthBuffer: false });
  target.texture.minFilter = target.texture.magFilter = THREE.NearestFilter;
  const read = (which) => {
    material.uniforms.outNormal.value = which;
    renderer.setRenderTarget(target);
    renderer.setClearColor(0x000000, 0);
    renderer.clear();
    renderer.render(scene, new THREE.Camera());
    const out = new Float32Array(width * height * 4);
    renderer.readRenderTargetPixels(target, 0, 0, width, height, out);
    renderer.setRenderTarget(null);
    renderer.setClearColor(0x000000, 1);
    return out;
  };
  const gpuPos = read(0);
  const gpuNor = read(1);
  target.dispose();
  geometry.dispose();
  material.dispose();
  simulated?.dispose();

  // The decode, in float64, from the texels as KTX2Loader gave them.
  const texels = vat.texture.image.data;
  const texWidth = d.texture.width;
  // normals.mode "separate": the normal layers start vatNormalLayer layers in; "none": no normals to check.
  const normalAt = vat.uniforms.vatNormalLayer.value * texWidth * vat.uniforms.vatLayerHeight.value * 4;
  const [cx, cy, cz] = d.positions.center;
  const [hx, hy, hz] = d.positions.half_extent;
  let worstPos = { e: -1 };
  let worstDeg = { deg: -1 };
  let missing = 0;
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < points; i++) {
      // Vertex i's texel, where its TEXCOORD_1 points (the columns follow the description's column_order).
      const o = ((Math.round(uv1[i * 2 + 1] * d.texture.height) + r) * texWidth + Math.floor(uv1[i * 2] * texWidth)) * 4;
      const p = [(texels[o] / 65535) * 2 - 1, (texels[o + 1] / 65535) * 2 - 1, (texels[o + 2] / 65535) * 2 - 1];
      p[0] = p[0] * hx + cx;
      p[1] = p[1] * hy + cy;
      p[2] = p[2] * hz + cz;
      const n = vat.normals === 'separate' ? octDecode16(texels[normalAt + o], texels[normalAt + o + 1]) : octDecode(texels[o + 3]);
      const g = ((r * bandRows + Math.floor(i / width)) * width + (i % width)) * 4;
      if (gpuPos[g + 3] !== 1) {
        missing++;
        continue;
      }
      for (let a = 0; a < 3; a++) {
        const e = Math.abs(gpuPos[g + a] - p[a]);
        if (e > worstPos.e) worstPos = { e, point: i, row: r, axis: 'xyz'[a], gpu: gpuPos[g + a], expected: p[a] };
      }
      if (vat.normals === 'none') continue;
      const dot = (gpuNor[g] * n[0] + gpuNor[g + 1] * n[1] + gpuNor[g + 2] * n[2]) / Math.hypot(gpuNor[g], gpuNor[g + 1], gpuNor[g + 2]);
      const deg = (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
      if (deg > worstDeg.deg) worstDeg = { deg, point: i, row: r };
    }
  }
  return { samples: points * rows, missing, worstPos, worstDeg };
}

function octDecode(a) {
  return unfold(((a >> 8) / 255) * 2 - 1, ((a & 255) / 255) * 2 - 1);
}

function octDecode16(r, g) {
  return unfold((r / 65535) * 2 - 1, (g / 65535) * 2 - 1);
}

function unfold(ox, oy) {
  const nz = 1 - Math.abs(ox) - Math.abs(oy);
  if (nz < 0) [ox, oy] = [(1 - Math.abs(oy)) * (ox >= 0 ? 1 : -1), (1 - Math.abs(ox)) * (oy >= 0 ? 1 : -1)];
  const len = Math.hypot(ox, oy, nz);
  return [ox / len, oy / len, nz / len];
}

// camera() and vat() are for players.js (PlayCanvas): the three.js camera, and what
// loadVat returned for the loaded bake with its VatMesh as `mesh`; renderer() for
// three-vat.js, which draws three-vat's mesh with it.
/**
 * Between rows (`--fps auto` bakes): at each clip time of `times`, every point as the
 * runtime plays it (the two stored rows around the time blended linearly, decoded from
 * the texels loadVat holds) against three.js's own SkinnedMesh posed by AnimationMixer
 * at that time (every vertex through getVertexPosition: morph targets and skinning, then
 * the mesh's world matrix). Returns, per time, the worst distance from a played point to
 * the nearest three.js vertex (no correspondence is assumed between the baked points and
 * the source's vertices, so this is a lower bound of the per-point error).
 */
function offRowDistance(clipName, sourceIndices, loop, times) {
  const d = vat.description;
  const clip = d.clips.find((c) => c.name === clipName);
  const texels = vat.texture.image.data;
  const rest = mesh.geometry;
  const [cx, cy, cz] = d.positions.center;
  const [hx, hy, hz] = d.positions.half_extent;
  const decode = (i, row) => {
    const o = ((Math.round(rest.attributes.uv1.getY(i) * d.texture.height) + row) * d.texture.width + Math.floor(rest.attributes.uv1.getX(i) * d.texture.width)) * 4;
    return [((texels[o] / 65535) * 2 - 1) * hx + cx, ((texels[o + 1] / 65535) * 2 - 1) * hy + cy, ((texels[o + 2] / 65535) * 2 - 1) * hz + cz];
  };
  const out = [];
  for (const t of times) {
    const frame = Math.min(Math.max(t * clip.rate, 0), clip.rows - 1);
    const k = Math.min(Math.floor(frame), Math.max(clip.rows - 2, 0));
    const a = clip.rows > 1 ? frame - k : 0;
    const played = [];
    for (let i = 0; i < d.points; i++) {
      const p = decode(i, clip.row + k);
      const q = clip.rows > 1 ? decode(i, clip.row + k + 1) : p;
      played.push([0, 1, 2].map((c) => p[c] + (q[c] - p[c]) * a));
    }
    poseSource(sourceIndices, t, loop);
    const vertices = [];
    const v = new THREE.Vector3();
    source.scene.traverse((o) => {
      if (!o.isMesh) return;
      for (let i = 0; i < o.geometry.attributes.position.count; i++) {
        o.getVertexPosition(i, v);
        v.applyMatrix4(o.matrixWorld);
        vertices.push(v.x, v.y, v.z);
      }
    });
    let worst = 0;
    for (const p of played) {
      let nearest = Infinity;
      for (let j = 0; j < vertices.length; j += 3) {
        const dx = vertices[j] - p[0], dy = vertices[j + 1] - p[1], dz = vertices[j + 2] - p[2];
        nearest = Math.min(nearest, dx * dx + dy * dy + dz * dz);
      }
      worst = Math.max(worst, Math.sqrt(nearest));
    }
    out.push({ t, row: k, fraction: a, worst });
  }
  return out;
}

window.harness = {
  init, load, relayer, renderVat, renderSource, renderShadow, socketCheck, renderRootMotion, decodeCheck, offRowDistance,
  camera: () => camera,
  renderer: () => renderer,
  vat: () => ({ ...vat, mesh }),
};
