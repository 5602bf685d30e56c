// The board in SVG: pointy-top hexes, stacks, legal destinations, the last move, a pending
// move, a drag ghost, and the pan/zoom view. `Board.set(model)` draws a model (state.js's
// boardModel, or a review frame); it holds only view state (the pan/zoom) and reads no input:
// input.js binds the pointer to it.

import { BUGS, parsePiece, pieceIcon, pieceSvg, pieceTitle } from "./bugs.js";
import { html, render } from "./dom.js";
import { DIRECTIONS, SIZE, bounds, fromPixel, hexPath, key, toPixel } from "./hex.js";
import { moveWords, stacksOf } from "./notation.js";
import * as views from "./view.js";

const CELL = hexPath(SIZE * 0.97, 0.12);
const TARGET = hexPath(SIZE * 0.86, 0.2);
const RING = hexPath(SIZE * 0.94, 0.18);
const LIFT = 8; // board units each level of a stack is drawn higher (and a little left)

export class Board {
  /**
   * @param {HTMLElement} container the element the board fills.
   * @param {{controls?: boolean, label?: string, interactive?: boolean}} options
   *   `interactive`: destinations are buttons (a game); otherwise named images (the rules).
   */
  constructor(container, { controls = true, label = "Hive board", interactive = true } = {}) {
    this.container = container;
    this.interactive = interactive;
    container.classList.add("board");
    render(container, html`
      <svg class="board-svg" data-testid="board" role="group" aria-label="${label}" tabindex="-1">
        <g class="viewport">
          <g class="layer-cells"></g><g class="layer-marks"></g><g class="layer-pieces"></g>
          <g class="layer-targets"></g><g class="layer-ghosts"></g>
        </g>
      </svg>
      ${controls && html`<div class="board-controls">
        <button type="button" data-board="zoom-in" title="Zoom in" aria-label="Zoom in">+</button>
        <button type="button" data-board="zoom-out" title="Zoom out" aria-label="Zoom out">−</button>
        <button type="button" data-board="fit" title="Fit the hive in view" aria-label="Fit">⤢</button>
        <button type="button" data-board="flip" title="Flip the board" aria-label="Flip the board" aria-pressed="false" data-testid="flip">⇅</button>
      </div>`}
      <div class="stack-tip" hidden></div>`);
    this.svg = container.querySelector("svg");
    this.viewport = this.svg.querySelector(".viewport");
    this.layers = {
      cells: this.svg.querySelector(".layer-cells"),
      marks: this.svg.querySelector(".layer-marks"),
      pieces: this.svg.querySelector(".layer-pieces"),
      targets: this.svg.querySelector(".layer-targets"),
      ghosts: this.svg.querySelector(".layer-ghosts"),
    };
    this.tip = container.querySelector(".stack-tip");
    this.view = views.IDENTITY;
    this.auto = true; // fit the hive after each change until the player pans or zooms
    this.model = null;
    this.positionKey = "";
    this.wantTargets = false; // a piece picked up from the keyboard: focus its first destination
    this.flipped = false; // turned half a turn: each hex (q, r) drawn where (-q, -r) would be
    this.onFlip = null; // called after a flip (the screens swap the players' bars)
    this.resizeObserver = new ResizeObserver(() => this.refit());
    this.resizeObserver.observe(this.svg);
  }

  get size() {
    const rect = this.svg.getBoundingClientRect();
    return { width: rect.width, height: rect.height };
  }

  /** Draw `model`: {pieces, stacks?, movable?, selected?, targets?, lastMove?, pending?,
   * arrow?} (`arrow`: {from, to, move}, a move to show, such as the best one in a review;
   * `from` null for a placement). */
  set(model) {
    this.model = model;
    const stacks = model.stacks ?? stacksOf(model.pieces);
    this.stacks = stacks;
    const targets = model.targets ?? [];
    const movable = model.movable ?? new Set();
    const selected = model.selected;
    const last = model.lastMove;
    const pending = model.pending;
    const premove = model.premove;
    // what has the keyboard's focus, to give it back once the layers are drawn again
    const active = this.svg.contains(document.activeElement) ? document.activeElement : null;
    const focused = active?.dataset?.target ? `[data-target="${CSS.escape(active.dataset.target)}"]`
      : active?.dataset?.piece ? `.piece[data-piece="${CSS.escape(active.dataset.piece)}"]:not(.under)` : null;

    // faint empty cells round the hive, for a sense of the grid
    render(this.layers.cells, html`${cellsAround(stacks).map(([q, r]) => {
      const { x, y } = this.at(q, r);
      return html`<path class="cell" aria-hidden="true" data-q="${q}" data-r="${r}" d="${CELL}" transform="translate(${x} ${y})"/>`;
    })}`);

    let mark = null;
    if (last?.from) {
      const { x, y } = this.at(last.from.q, last.from.r);
      mark = html`<path class="last-from" data-testid="last-from" d="${TARGET}" transform="translate(${x} ${y})"/>`;
    }
    render(this.layers.marks, html`${mark}`);

    const pieces = [];
    for (const [k, stack] of stacks) {
      const [q, r] = k.split(",").map(Number);
      const { x, y } = this.at(q, r);
      stack.forEach((name, level) => pieces.push(pieceMarkup(name, level, stack, { q, r, x, y }, { movable, selected, last, pending })));
    }
    render(this.layers.pieces, html`${pieces}`);

    render(this.layers.targets, html`${targets.map((t) => {
      const { x, y } = this.at(t.to_q, t.to_r);
      const occupied = stacks.has(key(t.to_q, t.to_r));
      return html`<g class="target${occupied ? " onto" : ""}" data-target="${t.move}" data-q="${t.to_q}"
        ${this.interactive ? html`role="button" tabindex="0" aria-label="${`Play ${t.move}: ${moveWords(t.move, pieceTitle)}`}"`
          : html`role="img" aria-label="${`${t.move}: ${moveWords(t.move, pieceTitle)}`}"`}
        data-r="${t.to_r}" transform="translate(${x} ${y})"><path d="${TARGET}"/><circle r="${occupied ? 9 : 7}"/></g>`;
    })}`);

    let ghost = null;
    if (pending?.to && pending.piece) {
      const { x, y } = this.at(pending.to.q, pending.to.r);
      const level = (stacks.get(key(pending.to.q, pending.to.r)) ?? []).length;
      ghost = html`<g class="ghost pending" data-testid="pending" transform="translate(${x - level * LIFT * 0.5} ${y - level * LIFT})">${pieceSvg(pending.piece)}</g>`;
    }
    if (premove) {
      const { x, y } = this.at(premove.q, premove.r);
      const level = (stacks.get(key(premove.q, premove.r)) ?? []).length;
      ghost = html`${ghost}<g class="ghost premove" data-testid="premove" data-piece="${premove.piece}" data-q="${premove.q}" data-r="${premove.r}"
        transform="translate(${x - level * LIFT * 0.5} ${y - level * LIFT})">${pieceSvg(premove.piece)}<path class="ring" d="${RING}"/></g>`;
    }
    if (model.arrow) ghost = html`${ghost}${this.arrowMarkup(model.arrow)}`;
    render(this.layers.ghosts, html`${ghost}<g class="ghost drag" hidden></g>`);

    this.refocus(focused, active !== null, targets.length > 0);

    const position = model.pieces.map((p) => `${p.piece}${p.q},${p.r},${p.height}`).join(";");
    const changed = position !== this.positionKey;
    this.positionKey = position;
    if (this.auto || (changed && !views.shows(this.view, this.extent(false), this.size.width, this.size.height))) {
      this.fit(this.auto);
    } else {
      this.apply();
    }
  }

  /** An arrow from hex `from` to hex `to` (a ring on `to` alone for a placement). */
  arrowMarkup({ from, to, move }) {
    const end = this.at(to.q, to.r);
    const label = html`data-testid="best-arrow" data-move="${move}" data-to="${to.q},${to.r}"`;
    if (!from) return html`<g class="best-arrow" ${label}><path d="${RING}" transform="translate(${end.x} ${end.y})"/></g>`;
    const start = this.at(from.q, from.r);
    const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
    const [ux, uy] = [(end.x - start.x) / length, (end.y - start.y) / length];
    const [bx, by] = [end.x - ux * 16, end.y - uy * 16];
    const head = `${end.x},${end.y} ${bx - uy * 9},${by + ux * 9} ${bx + uy * 9},${by - ux * 9}`;
    return html`<g class="best-arrow" ${label} data-from="${from.q},${from.r}">
      <line x1="${start.x}" y1="${start.y}" x2="${bx}" y2="${by}"/><polygon points="${head}"/></g>`;
  }

  /** Where hex (q, r) is drawn (board units), flipped or not. */
  at(q, r) {
    return this.flipped ? toPixel(-q, -r) : toPixel(q, r);
  }

  /** Turn the board half a turn (or back), keeping it in view. */
  flip() {
    this.flipped = !this.flipped;
    this.container.querySelector("[data-board=flip]")?.setAttribute("aria-pressed", String(this.flipped));
    if (this.model) {
      this.set(this.model);
      this.fit(this.auto);
    }
    this.onFlip?.(this.flipped);
  }

  /** Give the keyboard's focus back after a drawing: to the first destination of a piece just
   * picked up from the keyboard, else to what had it (`focused`, a selector), else to the
   * board itself when it was inside. */
  refocus(focused, inside, hasTargets) {
    const first = this.layers.targets.querySelector("[data-target]");
    const want = this.wantTargets;
    this.wantTargets = false;
    if (want && hasTargets && first) {
      first.focus();
      return;
    }
    const again = focused && this.svg.querySelector(focused);
    if (again) again.focus();
    else if (inside) this.svg.focus();
  }

  /** The box to keep in view: the pieces and the ring of hexes round them (where every legal
   * destination lies, so picking a piece up does not move the view), or the pieces alone. */
  extent(ring = true) {
    const hexes = [];
    const sign = this.flipped ? -1 : 1;
    for (const p of this.model?.pieces ?? []) {
      hexes.push({ q: sign * p.q, r: sign * p.r });
      if (ring) for (const [dq, dr] of DIRECTIONS) hexes.push({ q: sign * (p.q + dq), r: sign * (p.r + dr) });
    }
    if (hexes.length === 0) hexes.push({ q: 0, r: 0 });
    const b = bounds(hexes);
    return { ...b, minY: b.minY - 2 * LIFT };
  }

  /** Fit the hive in view; `auto` keeps fitting after each change. */
  fit(auto = true) {
    this.auto = auto;
    const { width, height } = this.size;
    if (width > 0 && height > 0) this.view = views.fit(this.extent(), width, height);
    this.apply();
  }

  refit() {
    if (this.auto && this.model) this.fit(true);
  }

  zoom(factor, px = null, py = null) {
    const { width, height } = this.size;
    this.auto = false;
    this.view = views.zoomAt(this.view, factor, px ?? width / 2, py ?? height / 2);
    this.apply();
  }

  pan(dx, dy) {
    this.auto = false;
    this.view = views.panBy(this.view, dx, dy);
    this.apply();
  }

  apply() {
    this.viewport.setAttribute("transform", views.transform(this.view));
  }

  /** Board point under a client (page) point. */
  boardPoint(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    return views.toBoard(this.view, clientX - rect.left, clientY - rect.top);
  }

  /** The hex {q, r} under a client point. */
  hexAt(clientX, clientY) {
    const { x, y } = this.boardPoint(clientX, clientY);
    const hex = fromPixel(x, y);
    return this.flipped ? { q: -hex.q || 0, r: -hex.r || 0 } : hex;
  }

  /** Show `piece` following the pointer while it is dragged. */
  showGhost(piece, clientX, clientY) {
    const ghost = this.layers.ghosts.querySelector(".drag");
    if (ghost.dataset.piece !== piece) {
      render(ghost, html`${pieceSvg(piece)}`);
      ghost.dataset.piece = piece;
    }
    const { x, y } = this.boardPoint(clientX, clientY);
    ghost.setAttribute("transform", `translate(${x} ${y}) scale(1.08)`);
    ghost.removeAttribute("hidden");
  }

  hideGhost() {
    const ghost = this.layers.ghosts.querySelector(".drag");
    if (ghost) ghost.setAttribute("hidden", "");
  }

  /** Show the stack at (q, r), top first, beside a client point; returns whether there was a
   * stack to show (a single piece has nothing beneath it). */
  showStack(q, r, clientX, clientY) {
    const stack = this.stacks?.get(key(q, r));
    if (!stack || stack.length < 2) {
      this.hideStack();
      return false;
    }
    const rect = this.container.getBoundingClientRect();
    render(this.tip, html`<div class="tip-title">Stack of ${stack.length}</div>${[...stack].reverse().map(
      (name, i) => html`<div class="tip-row">${pieceIcon(name, 26)}<span>${i === 0 ? "top: " : ""}${pieceTitle(name)}</span></div>`,
    )}`);
    this.tip.hidden = false;
    const left = Math.min(clientX - rect.left + 14, rect.width - this.tip.offsetWidth - 4);
    const top = Math.min(clientY - rect.top + 14, rect.height - this.tip.offsetHeight - 4);
    this.tip.style.left = `${Math.max(4, left)}px`;
    this.tip.style.top = `${Math.max(4, top)}px`;
    this.tip.dataset.stack = key(q, r);
    return true;
  }

  hideStack() {
    this.tip.hidden = true;
    delete this.tip.dataset.stack;
  }

  destroy() {
    this.resizeObserver.disconnect();
  }
}

/** The hexes of the stacks and of their neighbours, [q, r] each (the origin for no stack). */
function cellsAround(stacks) {
  const cells = new Map();
  for (const [k] of stacks) {
    const [q, r] = k.split(",").map(Number);
    for (const [dq, dr] of [[0, 0], ...DIRECTIONS]) cells.set(key(q + dq, r + dr), [q + dq, r + dr]);
  }
  if (cells.size === 0) cells.set("0,0", [0, 0]);
  return [...cells.values()];
}

/** The markup of piece `name` at `level` of `stack`, on hex (q, r) drawn at (x, y): its
 * classes, ring and height badge from what the model says of it (movable, selected, moved last,
 * pending), and its accessible name; one that may move is a button in the tab order. */
function pieceMarkup(name, level, stack, { q, r, x, y }, { movable, selected, last, pending }) {
  const top = level === stack.length - 1;
  const classes = ["piece", parsePiece(name).color];
  if (top && movable.has(name)) classes.push("movable");
  if (top && selected?.piece === name) classes.push("selected");
  if (top && last?.piece === name) classes.push("last-to");
  if (pending?.piece === name) classes.push("pending-from");
  if (!top) classes.push("under");
  const lift = level * LIFT;
  const ring = top && (selected?.piece === name || last?.piece === name);
  const badge = top && stack.length > 1 && html`<g class="height-badge" transform="translate(${SIZE * 0.5} ${-SIZE * 0.58})"><circle r="11"/><text dy="4.5">${stack.length}</text></g>`;
  const words = `${pieceTitle(name)}${stack.length > 1 ? `, on a stack of ${stack.length}` : ""}`
    + `${last?.piece === name ? ", moved last" : ""}`;
  const role = !top ? html`aria-hidden="true"` : movable.has(name)
    ? html`role="button" tabindex="0" aria-label="${words}, may move" aria-pressed="${selected?.piece === name ? "true" : "false"}"`
    : html`role="img" aria-label="${words}"`;
  return html`<g class="${classes.join(" ")}" data-piece="${name}" data-q="${q}" data-r="${r}"
    data-height="${level}" ${role} transform="translate(${x - lift * 0.5} ${y - lift})"><title>${pieceTitle(name)}</title>${pieceSvg(name)}${ring && html`<path class="ring" d="${RING}"/>`}${badge}</g>`;
}

/** A reserve: the pieces in one hand grouped by bug with their counts. `movable`: the pieces
 * with a legal placement; `pickable`: pieces that may be picked up all the same (to be told
 * why they cannot go where they are dropped); `selected`: the piece picked up. Returns markup
 * (made by `html`). */
export function reserveMarkup(hand, color, { movable = new Set(), pickable = false, selected = null, why = () => null } = {}) {
  const groups = new Map();
  for (const name of hand) {
    const bug = name[1];
    if (!groups.has(bug)) groups.set(bug, []);
    groups.get(bug).push(name);
  }
  if (groups.size === 0) return html`<span class="reserve-empty">all ${color === "white" ? "White" : "Black"}'s pieces are on the board</span>`;
  return html`${[...groups.entries()].map(([bug, names]) => {
    // pieces of a bug enter in order: the first in hand is the one to play
    const next = names.find((n) => movable.has(n)) ?? names[0];
    const classes = ["reserve-piece", color];
    const barred = !movable.has(next) && pickable ? why(next) : null;
    if (movable.has(next)) classes.push("movable");
    else if (pickable) classes.push("pickable");
    if (barred) classes.push("barred");
    if (names.includes(selected)) classes.push("selected");
    const name = Object.hasOwn(BUGS, bug) ? BUGS[bug].name : bug;
    const title = `${color === "white" ? "White" : "Black"} ${name} ×${names.length}${barred ? `: not now, ${barred}` : ""}`;
    return html`<button type="button" class="${classes.join(" ")}" data-hand="${next}" data-bug="${color[0]}${bug}"
      title="${title}" aria-label="${title}">${pieceIcon(next, 44)}<span class="count">${names.length}</span></button>`;
  })}`;
}
