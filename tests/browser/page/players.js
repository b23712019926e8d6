// Other tools' players, in the same page as harness.js (which draws the source through
// three.js's own SkinnedMesh/AnimationMixer playback): PlayCanvas's engine playing a
// `--format playcanvas` .vat through the engine's own scripts/esm/vat (vat-data.mjs,
// vat-chunks.mjs, from the pinned npm package, unchanged), with harness.js's camera.
import * as pc from 'playcanvas';
import { parseVat, createVatTexture, createVatMesh } from '/playcanvas/scripts/esm/vat/vat-data.mjs';
import { setupVatMaterial } from '/playcanvas/scripts/esm/vat/vat-chunks.mjs';
import { readMask } from './mask.js';

let app = null;
let size = 0;
let unit = null;

async function initPlayCanvas(canvasSize) {
  size = canvasSize;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  document.body.appendChild(canvas);
  const device = await pc.createGraphicsDevice(canvas, { deviceTypes: ['webgl2'], antialias: false, preserveDrawingBuffer: true });
  const options = new pc.AppOptions();
  options.graphicsDevice = device;
  options.componentSystems = [pc.RenderComponentSystem, pc.CameraComponentSystem];
  app = new pc.AppBase(canvas);
  app.init(options);
  app.setCanvasFillMode(pc.FILLMODE_NONE);
  app.setCanvasResolution(pc.RESOLUTION_FIXED, size, size);
  app.autoRender = false;
  app.start();
  return { deviceType: device.deviceType, version: pc.version };
}

/** Loads `<name>.vat` and sets the PlayCanvas camera to harness.js's three.js camera, exactly. */
async function loadPlayCanvas(url) {
  if (unit) unit.entity.destroy();
  const data = parseVat(await (await fetch(url)).arrayBuffer());
  const device = app.graphicsDevice;
  const texture = createVatTexture(device, data);
  const mesh = createVatMesh(device, data);
  const material = new pc.StandardMaterial();
  material.useLighting = false;
  material.diffuse = new pc.Color(0, 0, 0);
  material.emissive = new pc.Color(1, 1, 1);
  material.cull = pc.CULLFACE_NONE;
  setupVatMaterial(material, texture, data);
  const entity = new pc.Entity('vat');
  entity.addComponent('render', { meshInstances: [new pc.MeshInstance(mesh, material)] });
  app.root.addChild(entity);

  const three = window.harness.camera();
  let camera = app.root.findByName('camera');
  if (!camera) {
    camera = new pc.Entity('camera');
    camera.addComponent('camera', { clearColor: new pc.Color(0, 0, 0, 1) });
    app.root.addChild(camera);
  }
  camera.camera.calculateProjection = (m) => m.set(three.projectionMatrix.elements);
  camera.camera.calculateTransform = (m) => m.set(three.matrixWorld.elements);
  unit = { entity, data, material };
  return {
    vertexCount: data.vertexCount,
    frameCount: data.frameCount,
    width: data.width,
    height: data.height,
    animations: data.animations,
    // PlayCanvas's own decode of each vertex's first frame (createVatMesh), for the position check.
    frame0: getPositions(mesh),
  };
}

function getPositions(mesh) {
  const out = [];
  mesh.getPositions(out);
  return out;
}

/** The animation's frame at time t as vat-characters.mjs computes it (times within the clip). */
function renderPlayCanvas(name, t, { speed = 1 } = {}) {
  const animation = unit.data.animations.find((a) => a.name === name);
  const frame = animation.frameStart + Math.min(((t * speed) / animation.duration) * animation.frameCount, animation.frameCount - 1e-4);
  unit.material.setParameter('vatFrame', Math.max(frame, 0));
  app.render();
  return readMask(app.graphicsDevice.gl, size);
}

/**
 * PlayCanvas's decode of every vertex's first stored frame (createVatMesh) against our
 * decode of the same point on row 0 of the bake's own texture (harness.js's VAT, delta
 * undone), through the rest GLB's TEXCOORD_1: the largest difference, in units of one
 * 16-bit step of the axis.
 */
function compareFrame0(frame0) {
  const vat = window.harness.vat();
  const d = vat.description;
  const texels = vat.texture.image.data;
  const uv1 = vat.mesh.geometry.attributes.uv1;
  let worst = 0;
  for (let i = 0; i < d.points; i++) {
    const o = (Math.round(uv1.getY(i) * d.texture.height) * d.texture.width + Math.floor(uv1.getX(i) * d.texture.width)) * 4;
    for (let a = 0; a < 3; a++) {
      const ours = ((texels[o + a] / 65535) * 2 - 1) * d.positions.half_extent[a] + d.positions.center[a];
      const step = (2 * d.positions.half_extent[a]) / 65535 || 1;
      worst = Math.max(worst, Math.abs(frame0[i * 3 + a] - ours) / step);
    }
  }
  return worst;
}

window.players = { initPlayCanvas, loadPlayCanvas, renderPlayCanvas, compareFrame0 };
