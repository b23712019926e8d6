// Silhouette masks (1 byte per pixel, 0 = empty) compared as intersection over union.

/** { iou, union } of two masks of the same size. */
export function maskIou(a, b) {
  let both = 0;
  let either = 0;
  a.forEach((value, i) => {
    const covered = [value !== 0, b[i] !== 0];
    if (covered[0] && covered[1]) both++;
    if (covered[0] || covered[1]) either++;
  });
  return { iou: either ? both / either : 0, union: either };
}
