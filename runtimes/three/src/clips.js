// The clip table and the clock arithmetic of a bake, in plain JavaScript (no three.js):
// the same rules the vertex shader follows (src/glsl.js), for code that needs a pose on
// the CPU (sockets, root motion) or wants to know which row a unit shows.

/**
 * One entry per clip of the description, in texture order, with its index.
 * @param {object} description  the parsed `*.vat.json`
 */
export function clipTable(description) {
  return description.clips.map((c, index) => ({
    index,
    name: c.name,
    row: c.row,
    rows: c.rows,
    rate: c.rate,
    duration: c.duration,
    loop: Boolean(c.loop),
    loopRow: Boolean(c.loop_row),
    slot: c.slot ?? null,
  }));
}

/**
 * Where in a clip a unit is, as a fractional row: the clip's local time (seconds since
 * its start, times its speed) at the clip's own rate; a looping clip wraps over its
 * `rows − 1` intervals (its last row shows the same pose as its first), any other clip
 * holds its first and last rows.
 * @returns {number} a row index in [0, rows − 1], fractional between rows
 */
export function clipFrame(clip, localTime) {
  const last = clip.rows - 1;
  const frame = localTime * clip.rate;
  if (last <= 0) return 0;
  if (clip.loop) return frame - last * Math.floor(frame / last);
  return Math.min(Math.max(frame, 0), last);
}

/**
 * The two rows a unit blends at a fractional row, and the weight of the second, as the
 * shader picks them: `interpolate` false takes the nearest row alone.
 * @returns {{ r0: number, r1: number, f: number }} rows within the clip (add `clip.row`)
 */
export function clipRows(clip, frame, interpolate = true) {
  const last = Math.max(clip.rows - 1, 0);
  if (!interpolate) {
    const r = Math.min(Math.floor(frame + 0.5), last);
    return { r0: r, r1: r, f: 0 };
  }
  const r0 = Math.min(Math.floor(frame), last);
  return { r0, r1: Math.min(r0 + 1, last), f: frame - r0 };
}

/** Look a clip up by name (or take an index); a clear error lists the names there are. */
export function findClip(clips, nameOrIndex) {
  const clip = typeof nameOrIndex === 'number' ? clips[nameOrIndex] : clips.find((c) => c.name === nameOrIndex);
  if (!clip) throw new Error(`vatbake: no clip ${JSON.stringify(nameOrIndex)} (have: ${clips.map((c) => c.name).join(', ')})`);
  return clip;
}
