// The decode of a vatbake texture, as GLSL ES 3.00 for a vertex shader (docs/FORMAT.md,
// docs/PLAYBACK.md). No imports: a custom ShaderMaterial can use it alone.

/**
 * Uniforms: `vatTexture`, `vatSize` (the logical texture's width and height in texels),
 * `vatCenter`, `vatHalfExtent` (the description's `positions`), `vatTime` (seconds, the
 * clock every unit of the mesh shares).
 * Per vertex: `uv1` (TEXCOORD_1 of the rest GLB: the point's column and band).
 * Per instance: `vatClipA`, `vatClipB` = (first row, rows, rate, loop ? 1 : 0) of the
 * clip played and of the clip faded to; `vatPlay` = (start A, speed A, start B, speed B):
 * a clip's local time is (vatTime − start) × speed; `vatWeight`: 0 shows clip A, 1 clip B.
 * Defines: VAT_NORM16 (RGBA16 UNORM texture on a sampler2D instead of RGBA16UI on a
 * usampler2D), VAT_LAYERS (an array texture of `vatLayerHeight` rows a layer),
 * VAT_NORMALS_SEPARATE (normals in their own layers from `vatNormalLayer`), VAT_NEAREST (the nearest row instead of blending two), VAT_CROSSFADE
 * (sample clip B too; without it the shader never reads clip B, which a software
 * rasterizer would otherwise pay for on every vertex).
 * `vatSample(p, n)` gives this vertex's model-space position and normal now.
 */
export const VAT_GLSL = /* glsl */ `
#ifdef VAT_LAYERS
// An array texture of vatLayerHeight rows a layer (texture.layers, or normals in layers
// of their own): logical row y is row y mod H of layer base + y / H.
uniform float vatLayerHeight;
ivec3 vatTexel(ivec2 texel, int base) { int h = int(vatLayerHeight); return ivec3(texel.x, texel.y % h, base + texel.y / h); }
#ifdef VAT_NORM16
uniform highp sampler2DArray vatTexture;
uvec4 vatFetchLayer(ivec2 texel, int base) { return uvec4(round(texelFetch(vatTexture, vatTexel(texel, base), 0) * 65535.0)); }
#else
uniform highp usampler2DArray vatTexture;
uvec4 vatFetchLayer(ivec2 texel, int base) { return texelFetch(vatTexture, vatTexel(texel, base), 0); }
#endif
uvec4 vatFetch(ivec2 texel) { return vatFetchLayer(texel, 0); }
#elif defined(VAT_NORM16)
uniform highp sampler2D vatTexture;                    // RGBA16 UNORM (EXT_texture_norm16)
uvec4 vatFetch(ivec2 texel) { return uvec4(round(texelFetch(vatTexture, texel, 0) * 65535.0)); }
#else
uniform highp usampler2D vatTexture;                   // RGBA16UI: the stored u16 values
uvec4 vatFetch(ivec2 texel) { return texelFetch(vatTexture, texel, 0); }
#endif
uniform vec2 vatSize;                                  // logical texture width, height (bands × rows)
uniform vec3 vatCenter;                                // positions.center
uniform vec3 vatHalfExtent;                            // positions.half_extent
uniform float vatTime;                                 // seconds, shared by every unit

#ifndef USE_UV1
in vec2 uv1;                                           // TEXCOORD_1: the point's column and band
#endif
in vec4 vatClipA;                                      // per instance: (row, rows, rate, loop)
in vec4 vatClipB;                                      // the clip faded to
in vec4 vatPlay;                                       // (start A, speed A, start B, speed B)
in float vatWeight;                                    // 0: clip A, 1: clip B

vec3 vatDecodePosition(uvec4 t) {
  return (vec3(t.rgb) / 65535.0 * 2.0 - 1.0) * vatHalfExtent + vatCenter;
}

// Octahedral (x, y) in [-1, 1] to a unit vector.
vec3 vatUnfold(vec2 o) {
  vec3 n = vec3(o, 1.0 - abs(o.x) - abs(o.y));
  if (n.z < 0.0) {
    vec2 s = vec2(o.x >= 0.0 ? 1.0 : -1.0, o.y >= 0.0 ? 1.0 : -1.0);
    n.xy = (1.0 - abs(o.yx)) * s;
  }
  return normalize(n);
}

// Octahedral 8 + 8 bits in alpha: x in the high byte, y in the low byte.
vec3 vatDecodeNormal(uint a) {
  return vatUnfold(vec2(float(a >> 8u), float(a & 255u)) / 255.0 * 2.0 - 1.0);
}

#ifdef VAT_NORMALS_SEPARATE
// normals.mode "separate": octahedral 16 + 16 in R and G of the normal layers.
uniform float vatNormalLayer;                          // normals.first_layer
vec3 vatNormalAt(ivec2 texel, uvec4 t) {
  return vatUnfold(vec2(vatFetchLayer(texel, int(vatNormalLayer)).rg) / 65535.0 * 2.0 - 1.0);
}
#else
vec3 vatNormalAt(ivec2 texel, uvec4 t) { return vatDecodeNormal(t.a); }
#endif

// A clip's fractional row at local time t: loops wrap over rows − 1 intervals (the last
// row shows the first row's pose), other clips hold their ends.
float vatFrame(vec4 clip, float t) {
  float rows = clip.y;
  float frame = t * clip.z;
  return clip.w > 0.5 && rows > 1.0 ? mod(frame, rows - 1.0) : clamp(frame, 0.0, rows - 1.0);
}

void vatSampleClip(int column, int bandTop, vec4 clip, float t, out vec3 p, out vec3 n) {
  float frame = vatFrame(clip, t);
  int last = int(clip.y) - 1;
  int first = bandTop + int(clip.x);
#ifdef VAT_NEAREST
  ivec2 at = ivec2(column, first + min(int(floor(frame + 0.5)), last));
  uvec4 a = vatFetch(at);
  p = vatDecodePosition(a);
  n = vatNormalAt(at, a);
#else
  int r0 = min(int(floor(frame)), last);
  int r1 = min(r0 + 1, last);
  float f = frame - float(r0);
  ivec2 at0 = ivec2(column, first + r0);
  ivec2 at1 = ivec2(column, first + r1);
  uvec4 a = vatFetch(at0);
  uvec4 b = vatFetch(at1);
  p = mix(vatDecodePosition(a), vatDecodePosition(b), f);
  n = mix(vatNormalAt(at0, a), vatNormalAt(at1, b), f);
#endif
}

void vatSample(out vec3 p, out vec3 n) {
  int column = int(uv1.x * vatSize.x);                 // u is a column centre: floor is exact
  int bandTop = int(uv1.y * vatSize.y + 0.5);          // v is the top row of the point's band
  vatSampleClip(column, bandTop, vatClipA, (vatTime - vatPlay.x) * vatPlay.y, p, n);
#ifdef VAT_CROSSFADE
  if (vatWeight > 0.0) {
    vec3 pb, nb;
    vatSampleClip(column, bandTop, vatClipB, (vatTime - vatPlay.z) * vatPlay.w, pb, nb);
    p = mix(p, pb, vatWeight);
    n = mix(n, nb, vatWeight);
  }
#endif
  n = normalize(n);
}
`;

/**
 * Put the decode into one of three's built-in shaders (the `shader` of onBeforeCompile):
 * before main(), and into the `begin_vertex` chunk (and `beginnormal_vertex` where the
 * shader has one), so everything after them (instancing, skin-free projection, lights,
 * shadows, fog, maps) stays three's own code. Throws if three's chunks are not there.
 * @returns {string} the patched vertex shader
 */
export function patchVertexShader(vertexShader, { normals = true } = {}) {
  const need = ['#include <common>', 'void main() {', '#include <begin_vertex>'];
  for (const chunk of need) {
    if (!vertexShader.includes(chunk)) throw new Error(`vatbake: this material's vertex shader has no "${chunk}" to patch`);
  }
  let out = vertexShader
    .replace('#include <common>', `#include <common>\n${VAT_GLSL}`)
    .replace('void main() {', 'void main() {\n\tvec3 vatPosition, vatNormal;\n\tvatSample(vatPosition, vatNormal);')
    .replace('#include <begin_vertex>', '#include <begin_vertex>\n\ttransformed = vatPosition;');
  if (normals) out = out.replace('#include <beginnormal_vertex>', '#include <beginnormal_vertex>\n\tobjectNormal = vatNormal;');
  return out;
}
