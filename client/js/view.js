// The board's pan and zoom: a view {k, x, y} maps board units to screen pixels as
// screen = board * k + (x, y). Pure functions, no DOM.

export const MIN_ZOOM = 0.2;
export const MAX_ZOOM = 3;
/** The largest zoom `fit` chooses: a small hive is not blown up past this. */
export const FIT_MAX_ZOOM = 1.25;

export const IDENTITY = Object.freeze({ k: 1, x: 0, y: 0 });

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** The view that shows box `b` ({minX, minY, maxX, maxY}) centred in a `width` x `height`
 * screen with `margin` pixels around it. */
export function fit(b, width, height, margin = 24) {
  if (!b || width <= 0 || height <= 0) return { k: 1, x: width / 2, y: height / 2 };
  const w = Math.max(b.maxX - b.minX, 1);
  const h = Math.max(b.maxY - b.minY, 1);
  const k = clamp(
    Math.min((width - 2 * margin) / w, (height - 2 * margin) / h), MIN_ZOOM, FIT_MAX_ZOOM,
  );
  return {
    k,
    x: width / 2 - ((b.minX + b.maxX) / 2) * k,
    y: height / 2 - ((b.minY + b.maxY) / 2) * k,
  };
}

/** Zoom by `factor` keeping screen point (px, py) still. */
export function zoomAt(view, factor, px, py) {
  const k = clamp(view.k * factor, MIN_ZOOM, MAX_ZOOM);
  const f = k / view.k;
  return { k, x: px - (px - view.x) * f, y: py - (py - view.y) * f };
}

export const panBy = (view, dx, dy) => ({ k: view.k, x: view.x + dx, y: view.y + dy });

/** Board point under screen point (px, py). */
export const toBoard = (view, px, py) => ({ x: (px - view.x) / view.k, y: (py - view.y) / view.k });

/** Whether box `b` lies wholly on a `width` x `height` screen under `view`. */
export function shows(view, b, width, height) {
  if (!b) return true;
  return b.minX * view.k + view.x >= 0 && b.minY * view.k + view.y >= 0
    && b.maxX * view.k + view.x <= width && b.maxY * view.k + view.y <= height;
}

export const transform = (view) => `translate(${view.x.toFixed(2)} ${view.y.toFixed(2)}) scale(${view.k.toFixed(4)})`;
