// Types of @vatbake/three (src/index.js). The description's own fields are typed as far
// as this package reads them; docs/vat.schema.json in the vatbake repository has them all.
import type {
  BufferGeometry,
  Camera,
  Color,
  DataTexture,
  Group,
  InstancedMesh,
  Material,
  Matrix4,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  Object3D,
  Quaternion,
  Texture,
  Vector2,
  Vector3,
  WebGLRenderer,
} from 'three';
import type { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import type { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

/** A clip of the description (`clips[i]`). */
export interface VatClipDescription {
  name: string;
  row: number;
  rows: number;
  rate: number;
  duration: number;
  loop: boolean;
  loop_row?: boolean;
  slot?: string | null;
  source_index?: number;
  merged_from?: number[];
  /** `--fps auto`: the rate this clip's rows were chosen at and their largest error between rows (model units). Play at `rate` either way. */
  auto_rate?: { fps: number; max_error: number };
  [field: string]: unknown;
}

/** The parsed `*.vat.json` (format "vatbake.vat", format_version 1). */
export interface VatDescription {
  format: 'vatbake.vat';
  format_version: 1;
  points: number;
  rows: number;
  texture: {
    file: string;
    container: 'ktx2' | 'png';
    vk_format?: number;
    width: number;
    height: number;
    bands: number;
    delta?: { mode: string; order: 1 | 2; decode?: string; layout?: 'interleaved' | 'planes' | 'planes-ref'; block_rows?: number; layout_decode?: string; references?: string };
    layers?: number;
    layer_height?: number;
    [field: string]: unknown;
  };
  positions: { center: [number, number, number]; half_extent: [number, number, number]; [field: string]: unknown };
  normals?: { mode?: 'packed' | 'separate' | 'none'; encoding?: string; first_layer?: number; [field: string]: unknown };
  sockets?: { name: string; node: number; rows: number[][] }[];
  mesh: { file: string; points: number; [field: string]: unknown };
  clips: VatClipDescription[];
  /** The levels of detail (`vatbake bake --lods`), finest first; absent: none. */
  lods?: VatLodDescription[];
  [field: string]: unknown;
}

/** When a level may be shown (`lods[i].switch`). */
export interface VatLodSwitch {
  pixels: number;
  screen_height: number;
  vertical_fov_degrees: number;
  screen_fraction: number;
  distance: number;
}

/** A level of detail of the description (`lods[i]`): a rest mesh over a subset of the texture's columns. */
export interface VatLodDescription {
  file: string;
  points: number;
  triangles: number;
  sha256: string;
  max_error: number;
  mean_error: number;
  max_error_fraction: number;
  mean_error_fraction: number;
  rows_measured: number;
  switch: VatLodSwitch;
  [field: string]: unknown;
}

/** A loaded level of detail (`vat.lods[i]`). */
export interface VatLod {
  /** 1 for `lods[0]`, … (level 0 is `vat.geometry`). */
  level: number;
  description: VatLodDescription;
  points: number;
  /** Its rest mesh, its primitives as groups, with the bake's bounds. */
  geometry: BufferGeometry;
}

/** One row of the clip table loadVat returns. */
export interface VatClip extends Pick<VatClipDescription, 'name' | 'row' | 'rows' | 'rate' | 'duration' | 'loop'> {
  index: number;
  loopRow: boolean;
  slot: string | null;
}

export type VatTexturePath = 'integer' | 'norm16';

/** The uniforms every material of one bake shares (by reference). */
export interface VatUniforms {
  vatTexture: { value: DataTexture };
  vatSize: { value: Vector2 };
  vatCenter: { value: Vector3 };
  vatHalfExtent: { value: Vector3 };
  vatLayerHeight: { value: number };
  vatNormalLayer: { value: number };
  vatTime?: { value: number };
  [name: string]: { value: unknown } | undefined;
}

/** A loaded bake: what loadVat and fromParts give. */
export interface Vat {
  description: VatDescription;
  texture: DataTexture | import('three').DataArrayTexture;
  path: VatTexturePath;
  /** Position layers (texture.layers, 1 without). */
  layers: number;
  /** Whether the texture is a DataArrayTexture (layers, or normals in layers of their own). */
  arrayTexture: boolean;
  /** normals.mode: 'packed' (default), 'separate' or 'none' (the rest mesh's NORMAL is kept). */
  normals: 'packed' | 'separate' | 'none';
  /** The rest mesh, its primitives as groups, with bounds covering every frame. */
  geometry: BufferGeometry;
  /** The rest GLB's own materials, one per group (unpatched). */
  materials: Material[];
  /** The levels of detail loaded (loadVat's `lods`, fromParts' `lods`); empty: none. */
  lods: VatLod[];
  clips: VatClip[];
  uniforms: VatUniforms;
  dispose(): void;
}

export interface LoadVatOptions {
  /** three's KTX2Loader, as is (detectSupport is called if it has not been). */
  loader: KTX2Loader;
  renderer: WebGLRenderer;
  /** Texture upload: 'auto' (default) takes norm16 where EXT_texture_norm16 exists. */
  path?: 'auto' | VatTexturePath;
  gltfLoader?: GLTFLoader;
  /** Also load the description's levels of detail (default true); false: level 0 only. */
  lods?: boolean;
}

export function loadVat(descriptionUrl: string | URL, options: LoadVatOptions): Promise<Vat>;
export function fromParts(
  description: VatDescription,
  gltf: { scene: Object3D },
  texture: DataTexture,
  options: {
    renderer: WebGLRenderer | { extensions: { has(name: string): boolean } };
    path?: 'auto' | VatTexturePath;
    /** GLTFLoader's results for the description's `lods` files, in its order (all, or none). */
    lods?: { scene: Object3D }[];
  },
): Vat;
export function checkDescription(description: unknown, where?: string): VatDescription;
export function prepareTexture(texture: DataTexture, renderer: WebGLRenderer, path?: 'auto' | VatTexturePath): VatTexturePath;
export function restGeometry(scene: Object3D): { geometry: BufferGeometry; materials: Material[] };
/** restGeometry without the TEXCOORD_1 check: the rest GLB of a vertex or bone bake as one geometry with a group per material. */
export function mergeRestMeshes(scene: Object3D): { geometry: BufferGeometry; materials: Material[] };
export function setBakedBounds(geometry: BufferGeometry, description: VatDescription): import('three').Box3;

export interface PatchOptions {
  norm16?: boolean;
  /** Blend the two rows around the time (default true); false: the nearest row. */
  interpolate?: boolean;
  /** Replace the normal too (default true; false for depth materials). */
  normals?: boolean;
  /** Compile the clip-B blend in (default true; VatMesh turns it on at the first setCrossfade). */
  crossfade?: boolean;
  /** The texture is a DataArrayTexture (vatLayerHeight rows a layer). */
  layers?: boolean;
  /** Normals in their own layers from vatNormalLayer (normals.mode "separate"). */
  separateNormals?: boolean;
}
export function patchMaterial<M extends Material>(material: M, uniforms: VatUniforms, options?: PatchOptions): M;
export function patchVertexShader(vertexShader: string, options?: { normals?: boolean }): string;
export const VAT_GLSL: string;

export interface PlayOptions {
  /** Seconds of the mesh's shared clock at which the clip's time is 0 (default: now). */
  start?: number;
  /** Playback speed (default 1). */
  speed?: number;
}

export interface VatClipState {
  clip: VatClip;
  localTime: number;
  /** Texture rows within the band (clip.row added) and the blend factor towards row1. */
  row0: number;
  row1: number;
  f: number;
}

export interface VatMeshOptions {
  material?: Material | Material[] | null;
  interpolate?: boolean;
  clip?: string | number | null;
  /** Drawn instead of the rest mesh: a level of detail's geometry (`vat.lods[i].geometry`). */
  geometry?: BufferGeometry;
  /** Another VatMesh's uniforms, to share its clock. */
  uniforms?: VatUniforms & { vatTime: { value: number } };
}

export class VatMesh extends InstancedMesh<BufferGeometry, Material | Material[]> {
  constructor(vat: Vat, count: number, options?: VatMeshOptions);
  readonly vat: Vat;
  readonly uniforms: VatUniforms & { vatTime: { value: number } };
  customDepthMaterial: MeshDepthMaterial;
  customDistanceMaterial: MeshDistanceMaterial;
  /** The clock every unit shares, in seconds. */
  readonly time: number;
  interpolate: boolean;
  update(seconds: number): void;
  setClip(index: number, clip: string | number, options?: PlayOptions): this;
  setCrossfade(index: number, clip: string | number, weight: number, options?: PlayOptions): this;
  setWeight(index: number, weight: number): this;
  state(index: number, time?: number): { a: VatClipState; b: VatClipState | null; weight: number };
  getSocket(index: number, name: string, time?: number): VatSocketTransform;
  getRootMotion(index: number, time?: number): VatRootMotion | null;
  setMatrixAt(index: number, matrix: Matrix4): this;
  dispose(): this;
}

export interface VatCrowdOptions {
  material?: Material | Material[] | null;
  interpolate?: boolean;
  clip?: string | number | null;
  /** Projected error allowed in pixels (default: each level's recorded `switch.pixels`). */
  pixels?: number | null;
  /** The drawing buffer's height in pixels (default: each level's recorded `switch.screen_height`). */
  screenHeight?: number | null;
  /** Margin below a threshold before a unit goes coarser (default 0.1). */
  hysteresis?: number;
  /** The coarsest level drawn (default: the last). */
  maxLevel?: number;
  /** The unit's impostor (`vatbake impostor`, loadImpostor): the last level, drawn as quads. */
  impostor?: VatImpostor | null;
  /** Projected size (bounds diagonal over the screen's height) under which a unit is an impostor (default: `cell / screenHeight`, one texel per pixel). */
  impostorSize?: number | null;
  /** Blend the impostor's two nearest views (default true). */
  blendViews?: boolean;
}

/** A bake's units, each drawn at the level of detail its size on screen allows: one VatMesh per level. */
export class VatCrowd extends Group {
  constructor(vat: Vat, count: number, options?: VatCrowdOptions);
  readonly vat: Vat;
  readonly count: number;
  /** Every unit's matrix, clip and crossfade (never drawn). */
  readonly units: VatMesh;
  /** The mesh drawing each level, finest first (the impostor's ImpostorMesh last, when given). */
  readonly levels: Array<VatMesh | ImpostorMesh>;
  /** The impostor level, or null. */
  readonly impostor: ImpostorMesh | null;
  /** lodThresholds of the levels. */
  thresholds: number[];
  /** Points each level's vertex shader runs over per unit. */
  readonly levelPoints: number[];
  readonly unitLevels: Uint8Array;
  readonly levelCounts: number[];
  readonly verticesPerFrame: number;
  hysteresis: number;
  maxLevel: number;
  readonly time: number;
  interpolate: boolean;
  update(seconds: number, camera?: Camera | null): void;
  updateLevels(camera: Camera): this;
  projectedSize(index: number, camera: Camera): number;
  setMatrixAt(index: number, matrix: Matrix4): this;
  getMatrixAt(index: number, matrix: Matrix4): void;
  setColorAt(index: number, color: Color): this;
  setClip(index: number, clip: string | number, options?: PlayOptions): this;
  setCrossfade(index: number, clip: string | number, weight: number, options?: PlayOptions): this;
  setWeight(index: number, weight: number): this;
  state(index: number, time?: number): { a: VatClipState; b: VatClipState | null; weight: number };
  getSocket(index: number, name: string, time?: number): VatSocketTransform;
  getRootMotion(index: number, time?: number): VatRootMotion | null;
  dispose(): this;
}
/** For level k ≥ 1: the largest fraction of the screen's height the bounds' diagonal may cover (level 0: Infinity); never increasing. */
export function lodThresholds(lods: VatLodDescription[] | undefined, options?: { pixels?: number | null; screenHeight?: number | null }): number[];
/** The coarsest level under its threshold; coarser only `hysteresis` below it, finer at it. */
export function chooseLevel(thresholds: number[], size: number, current: number, hysteresis: number): number;

export interface VatSocketTransform {
  position: Vector3;
  quaternion: Quaternion;
  matrix: Matrix4;
}
export interface VatRootMotion {
  translation: Vector3;
  yaw: number;
}
export function sampleSocket(
  socket: { name: string; rows: number[][] },
  clipState: Pick<VatClipState, 'clip' | 'localTime'>,
  interpolate?: boolean,
): { position: Vector3; quaternion: Quaternion };
export function socketOnUnit(mesh: VatMesh, index: number, name: string, time: number): VatSocketTransform;
export function rootMotionAt(description: VatDescription, clip: VatClip, localTime: number, interpolate?: boolean): VatRootMotion | null;
export function undoDelta(texels: Uint16Array, description: VatDescription): Uint16Array;
export function clipTable(description: VatDescription): VatClip[];
export function clipFrame(clip: Pick<VatClip, 'rows' | 'rate' | 'loop'>, localTime: number): number;
export function clipRows(clip: Pick<VatClip, 'rows'>, frame: number, interpolate?: boolean): { r0: number; r1: number; f: number };
export function findClip(clips: VatClip[], nameOrIndex: string | number): VatClip;

/** The `bones` object of a bone bake's description (`vatbake bake --mode bones`). */
export interface BoneDescription {
  /** Matrices per row (four texels each under float32, two under quat16). */
  joints: number;
  /** float32: RGBA32F matrix columns (vk_format 109); quat16: RGBA16 UNORM translation, scale and quaternion (vk_format 91). */
  encoding: 'float32' | 'quat16';
  /** Under quat16: the ranges the 16-bit values span. */
  quantization?: { translation_min: [number, number, number]; translation_max: [number, number, number]; scale_min: number; scale_max: number };
  /** Joint influences per vertex of the rest mesh: JOINTS_0/WEIGHTS_0, and JOINTS_1/WEIGHTS_1 with 8. */
  influences: 4 | 8;
  sources?: { node: number; name?: string | null; skin_joint: [number, number] | null }[];
  babylon_file?: string | null;
  [field: string]: unknown;
}

/** The parsed `*.vat.json` of a bone bake: an RGBA32F KTX2 (vk_format 109) of joint matrices, or RGBA16 (91) under quat16. */
export interface BoneVatDescription extends VatDescription {
  bones: BoneDescription;
}

/** The uniforms every material of one bone bake shares (by reference). */
export interface BoneUniforms {
  boneTexture: { value: DataTexture };
  vatTime: { value: number };
  [name: string]: { value: unknown };
}

/** A loaded bone bake: what loadBoneVat and boneVatFromParts give. */
export interface BoneVat {
  /** The units, one InstancedMesh (every instance matrix the identity to start with). */
  mesh: InstancedMesh<BufferGeometry, Material | Material[]>;
  description: BoneVatDescription;
  clips: VatClip[];
  uniforms: BoneUniforms;
  texture: DataTexture;
  /** How the texture went up: 'float' (float32), or 'norm16'/'integer' (quat16). */
  path: 'float' | 'norm16' | 'integer';
  /** Unit `index` (every unit when null or left out) plays `clip` (name or index). */
  setClip(clip: string | number, index?: number | null): void;
  /** Unit `index` runs `seconds` ahead of the shared clock. */
  setTimeOffset(index: number, seconds: number): void;
  /** The clock every unit shares, in seconds. */
  update(seconds: number): void;
  dispose(): void;
}

export interface BoneVatOptions {
  /** A quat16 texture's upload: 'norm16' needs EXT_texture_norm16, 'integer' is core WebGL2; 'auto' (default) takes norm16 where it exists. */
  path?: 'auto' | 'integer' | 'norm16';
  /** For the quat16 upload's choice (loadBoneVat passes its own); without it, 'integer'. */
  renderer?: WebGLRenderer | null;
  /** Units (default 1). */
  count?: number;
  /** Drawn instead of clones of the rest GLB's materials; patched in place. */
  material?: Material | Material[] | null;
  /** Every unit's first clip (default: the description's first). */
  clip?: string | number | null;
}

export interface LoadBoneVatOptions extends BoneVatOptions {
  /** three's KTX2Loader, as is (detectSupport is called if it has not been). */
  loader: KTX2Loader;
  renderer: WebGLRenderer;
  gltfLoader?: GLTFLoader;
}

export function loadBoneVat(descriptionUrl: string | URL, options: LoadBoneVatOptions): Promise<BoneVat>;
export function boneVatFromParts(description: BoneVatDescription, gltf: { scene: Object3D }, texture: DataTexture, options?: BoneVatOptions): BoneVat;
export function checkBoneDescription(description: unknown, where?: string): BoneVatDescription;
export function patchBoneMaterial<M extends Material>(material: M, uniforms: BoneUniforms, options?: { eight?: boolean; quat16?: boolean; path?: 'norm16' | 'integer' }): M;
export function patchBoneVertexShader(vertexShader: string): string;
export const BONES_GLSL: string;

/** A `<name>.impostor.json` sidecar (`vatbake impostor`): docs/IMPOSTORS.md in the vatbake repository. */
export interface VatImpostorSidecar {
  format: 'vatbake.impostor';
  format_version: 1 | 2;
  description: { file: string; bytes: number; sha256: string };
  cell: number;
  columns: number;
  width: number;
  height: number;
  views: { azimuths: number; elevations: number[] };
  pivot: [number, number, number];
  size: number;
  /** The rate asked for (every clip's); null when each clip's was chosen by its motion (format_version 2). */
  fps: number | null;
  /** With frames chosen per clip: the tolerance in cell texels (format_version 2). */
  motion?: number | null;
  frames: number;
  clips: VatImpostorClip[];
  colour: { file: string; bytes: number; sha256: string };
  normal: { file: string; bytes: number; sha256: string };
}

export interface VatImpostorClip {
  name: string;
  first_frame: number;
  frames: number;
  duration: number;
  looping: boolean;
  /** Frames per second of clip time (format_version 2). */
  fps?: number;
  /** The farthest, in cell texels, a stored pose is from the frame shown at its time (format_version 2). */
  motion?: number;
}

/** What loadImpostor and impostorFromParts give. */
export interface VatImpostor {
  sidecar: VatImpostorSidecar;
  colour: Texture;
  normal: Texture;
  clips: Map<string, VatImpostorClip & { index: number }>;
  /** Bytes both atlases take on the GPU. */
  gpuBytes: number;
  dispose(): void;
}

/** The most elevation rings an impostor may have. */
export const MAX_RINGS: number;
/** The coverage an impostor fragment needs to be drawn (its materials' default alphaTest, 0.42). */
export const IMPOSTOR_ALPHA_TEST: number;
export function loadImpostor(url: string, options: { loader: KTX2Loader }): Promise<VatImpostor>;
export function impostorFromParts(sidecar: VatImpostorSidecar, colour: Texture, normal: Texture): VatImpostor;
export function checkImpostor(sidecar: unknown, where?: string): VatImpostorSidecar;
/** `[f0, f1, blend]`: the two frames around `localTime` in the clip and the weight of f1. */
export function impostorFrame(clip: VatImpostorClip, localTime: number, interpolate?: boolean): [number, number, number];
export function impostorView(sidecar: VatImpostorSidecar, direction: { x: number; y: number; z: number }): { ring: number; a0: number; a1: number; blend: number };
export function impostorCell(sidecar: VatImpostorSidecar, clip: VatImpostorClip, frame: number, ring: number, azimuth: number): { cell: number; u: number; v: number };
export function impostorUniforms(impostor: VatImpostor, options?: { blendViews?: boolean; interpolate?: boolean; parallax?: number; time?: { value: number } | null }): Record<string, { value: unknown }>;
export function patchImpostorMaterial<M extends Material>(material: M, uniforms: Record<string, { value: unknown }>, options?: { lit?: boolean; colour?: boolean }): M;

export interface ImpostorMeshOptions {
  material?: Material | null;
  blendViews?: boolean;
  interpolate?: boolean;
  /** Fixed-point steps of the parallax correction of each view through the stored depth (0–4, default 3; 0: none). */
  parallax?: number;
  time?: { value: number } | null;
}

/** Units drawn as impostor quads: one instanced draw, per-unit clip and clock. */
export class ImpostorMesh extends InstancedMesh {
  constructor(impostor: VatImpostor, count: number, options?: ImpostorMeshOptions);
  readonly impostor: VatImpostor;
  readonly uniforms: Record<string, { value: unknown }>;
  readonly time: number;
  update(seconds: number): void;
  setClip(index: number, name: string, options?: PlayOptions): this;
  dispose(): this;
}
