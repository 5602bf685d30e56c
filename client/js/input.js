// Input binding: pointer, wheel and keys on the board and the reserves, turned into calls of
// the handlers app.js gives (pick, target, drop, empty), or made here for the pages that play
// the legal moves they were given (bindPlayable); delegated clicks and submits (bindActions);
// the page's document listeners (bindPage); the visualizer's tree (bindTree). Nothing here
// knows the rules.

const DRAG_START = 6; // pixels a press must travel to become a drag or a pan
const LONG_PRESS = 450; // ms: a still press on a stack shows what lies beneath

/**
 * @param {import("./board.js").Board} board
 * @param {{pick(piece: string, from: {q: number, r: number} | null): void,
 *          target(move: string): void,
 *          drop(piece: string, from: {q: number, r: number} | null, q: number, r: number): void,
 *          empty(q: number, r: number): void,
 *          canDrag(piece: string): boolean}} handlers
 */
export function bindBoard(board, handlers) {
  const svg = board.svg;
  const pointers = new Map();
  let press = null; // {kind: "piece" | "target" | "empty", piece, from, move, x, y, moved, dragging}
  let pinch = null; // {distance, midX, midY}
  let longTimer = null;

  const clearLong = () => {
    clearTimeout(longTimer);
    longTimer = null;
  };

  svg.addEventListener("pointerdown", (event) => {
    if (event.button !== 0 && event.pointerType === "mouse") return;
    svg.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    board.hideStack();
    if (pointers.size === 2) {
      press = null;
      clearLong();
      board.hideGhost();
      pinch = pinchOf(pointers);
      return;
    }
    const targetEl = event.target.closest("[data-target]");
    const pieceEl = event.target.closest(".piece:not(.under)");
    press = { kind: "empty", x: event.clientX, y: event.clientY, lastX: event.clientX, lastY: event.clientY };
    if (targetEl) {
      press = { ...press, kind: "target", move: targetEl.dataset.target };
    } else if (pieceEl) {
      const from = { q: Number(pieceEl.dataset.q), r: Number(pieceEl.dataset.r) };
      press = { ...press, kind: "piece", piece: pieceEl.dataset.piece, from };
    }
    if (pieceEl || targetEl) {
      const el = pieceEl ?? targetEl;
      const { q, r } = { q: Number(el.dataset.q), r: Number(el.dataset.r) };
      if (event.pointerType !== "mouse") {
        longTimer = setTimeout(() => {
          // a long press shows a stack; on a single piece it is a tap like any other
          if (press && !press.moved) press.long = board.showStack(q, r, press.x, press.y);
        }, LONG_PRESS);
      }
    }
  });

  svg.addEventListener("pointermove", (event) => {
    if (!pointers.has(event.pointerId)) {
      hover(event);
      return;
    }
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pinch && pointers.size === 2) {
      const now = pinchOf(pointers);
      const rect = svg.getBoundingClientRect();
      board.zoom(now.distance / pinch.distance, now.midX - rect.left, now.midY - rect.top);
      board.pan(now.midX - pinch.midX, now.midY - pinch.midY);
      pinch = now;
      return;
    }
    if (!press) return;
    const far = Math.hypot(event.clientX - press.x, event.clientY - press.y) > DRAG_START;
    if (!press.moved && far) {
      press.moved = true;
      clearLong();
      if (press.kind === "piece" && handlers.canDrag(press.piece)) {
        press.dragging = true;
        handlers.pick(press.piece, press.from, { drag: true });
      }
    }
    if (press.dragging) {
      board.showGhost(press.piece, event.clientX, event.clientY);
    } else if (press.moved) {
      board.pan(event.clientX - press.lastX, event.clientY - press.lastY);
    }
    press.lastX = event.clientX;
    press.lastY = event.clientY;
  });

  const release = (event, cancelled) => {
    pointers.delete(event.pointerId);
    clearLong();
    if (pointers.size < 2) pinch = null;
    const done = press;
    press = null;
    if (!done || cancelled) {
      board.hideGhost();
      return;
    }
    if (done.long) {
      setTimeout(() => board.hideStack(), 1800);
      return;
    }
    if (done.dragging) {
      board.hideGhost();
      const { q, r } = board.hexAt(event.clientX, event.clientY);
      handlers.drop(done.piece, done.from, q, r);
      return;
    }
    if (done.moved) return; // a pan
    if (done.kind === "target") handlers.target(done.move);
    else if (done.kind === "piece") handlers.pick(done.piece, done.from);
    else {
      const { q, r } = board.hexAt(event.clientX, event.clientY);
      handlers.empty(q, r);
    }
  };
  svg.addEventListener("pointerup", (event) => release(event, false));
  svg.addEventListener("pointercancel", (event) => release(event, true));
  svg.addEventListener("pointerleave", (event) => {
    if (event.pointerType === "mouse" && !pointers.size) board.hideStack();
  });

  function hover(event) {
    if (event.pointerType !== "mouse") return;
    const pieceEl = event.target.closest(".piece");
    if (!pieceEl) {
      board.hideStack();
      return;
    }
    const q = Number(pieceEl.dataset.q);
    const r = Number(pieceEl.dataset.r);
    board.showStack(q, r, event.clientX, event.clientY);
  }

  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = svg.getBoundingClientRect();
    const unit = event.deltaMode === 1 ? 16 : 1;
    board.zoom(Math.exp(-event.deltaY * unit * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });

  // the keyboard: Enter or Space on a piece picks it up (its first destination then has the
  // focus), on a destination plays there; arrow keys go to the next or previous one
  svg.addEventListener("keydown", (event) => {
    const el = event.target.closest?.("[data-target], .piece[role=button]");
    if (!el) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (el.dataset.target) {
        handlers.target(el.dataset.target);
      } else {
        board.wantTargets = true;
        handlers.pick(el.dataset.piece, { q: Number(el.dataset.q), r: Number(el.dataset.r) });
      }
      return;
    }
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const all = [...svg.querySelectorAll(el.dataset.target ? "[data-target]" : ".piece[role=button]")];
    all[(all.indexOf(el) + step + all.length) % all.length]?.focus();
  });

  board.container.addEventListener("click", (event) => {
    const button = event.target.closest("[data-board]");
    if (!button) return;
    const action = button.dataset.board;
    if (action === "zoom-in") board.zoom(1.25);
    else if (action === "zoom-out") board.zoom(0.8);
    else if (action === "flip") board.flip();
    else board.fit(true);
  });
}

/** Handlers for a board that only shows: pan, zoom and stack tooltips work, moves do not. */
export const READ_ONLY = Object.freeze({
  pick() {}, target() {}, drop() {}, empty() {}, canDrag: () => false,
});

function pinchOf(pointers) {
  const [a, b] = [...pointers.values()];
  return { distance: Math.max(1, Math.hypot(a.x - b.x, a.y - b.y)), midX: (a.x + b.x) / 2, midY: (a.y + b.y) / 2 };
}

/**
 * The board and its reserves of a page that plays the legal moves the server gave it (the
 * analysis board, puzzles): a piece picked (`view.selected`), then a target or a drop plays
 * the legal move there, found by (piece, destination); anything else puts the piece back.
 * @param {{selected: {piece: string, from: {q: number, r: number} | null} | null,
 *          movable(): Set<string>,
 *          legalMoves(): Array<{piece: string, to_q: number, to_r: number, move: string}> | undefined,
 *          play(move: string): void, show(): void}} view
 * @param {import("./board.js").Board} board
 * @param {Element[]} reserves
 */
export function bindPlayable(view, board, reserves) {
  const handlers = {
    canDrag: (piece) => view.movable().has(piece),
    pick: (piece, from, { drag = false } = {}) => {
      if (!view.movable().has(piece)) return;
      view.selected = !drag && view.selected?.piece === piece ? null : { piece, from };
      view.show();
    },
    target: (text) => view.play(text),
    drop: (piece, from, q, r) => {
      const legal = view.legalMoves()?.find((m) => m.piece === piece && m.to_q === q && m.to_r === r);
      if (legal) view.play(legal.move);
      else {
        view.selected = null;
        view.show();
      }
    },
    empty: (q, r) => (view.selected ? handlers.drop(view.selected.piece, view.selected.from, q, r) : undefined),
  };
  bindBoard(board, handlers);
  for (const reserve of reserves) bindReserve(reserve, board, handlers);
}

/** Reserves: click a piece to pick it up, or drag it onto the board. */
export function bindReserve(container, board, handlers) {
  let press = null;
  container.addEventListener("pointerdown", (event) => {
    const el = event.target.closest("[data-hand]");
    if (!el || (event.button !== 0 && event.pointerType === "mouse")) return;
    event.preventDefault();
    // capture on the container: the reserve's buttons are redrawn when the piece is picked up
    container.setPointerCapture(event.pointerId);
    press = { piece: el.dataset.hand, x: event.clientX, y: event.clientY, id: event.pointerId };
  });
  container.addEventListener("pointermove", (event) => {
    if (!press || event.pointerId !== press.id) return;
    if (!press.dragging && Math.hypot(event.clientX - press.x, event.clientY - press.y) > DRAG_START) {
      if (!handlers.canDrag(press.piece)) return;
      press.dragging = true;
      handlers.pick(press.piece, null, { drag: true });
    }
    if (press.dragging) board.showGhost(press.piece, event.clientX, event.clientY);
  });
  const release = (event, cancelled) => {
    if (!press || event.pointerId !== press.id) return;
    const done = press;
    press = null;
    board.hideGhost();
    if (cancelled) return;
    if (!done.dragging) {
      handlers.pick(done.piece, null);
      return;
    }
    const rect = board.svg.getBoundingClientRect();
    const inside = event.clientX >= rect.left && event.clientX <= rect.right
      && event.clientY >= rect.top && event.clientY <= rect.bottom;
    if (!inside) return;
    const { q, r } = board.hexAt(event.clientX, event.clientY);
    handlers.drop(done.piece, null, q, r);
  };
  container.addEventListener("pointerup", (event) => release(event, false));
  container.addEventListener("pointercancel", (event) => release(event, true));
  // a reserve piece chosen from the keyboard (Enter or Space on its button: a click with no
  // pointer, detail 0); the pointer's own clicks were handled on release
  container.addEventListener("click", (event) => {
    const el = event.target.closest("[data-hand]");
    if (!el || event.detail !== 0) return;
    board.wantTargets = true;
    handlers.pick(el.dataset.hand, null);
  });
}

/** Delegated clicks and submits: elements with data-action="name" call actions[name](element,
 * event); forms with data-form="name" call actions[name](FormData, form). */
export function bindActions(root, actions) {
  root.addEventListener("click", (event) => {
    const el = event.target.closest("[data-action]");
    if (!el || !root.contains(el)) return;
    const action = actions[el.dataset.action];
    if (!action) return;
    event.preventDefault();
    action(el, event);
  });
  root.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-form]");
    if (!form) return;
    event.preventDefault();
    const action = actions[form.dataset.form];
    if (action) action(new FormData(form, event.submitter), form);
  });
}

/** The page's own listeners on `doc`: an open account menu closes on a click anywhere else, and
 * the review's range slider steps as it moves (`stepped(ply)`). */
export function bindPage(doc, { stepped }) {
  doc.addEventListener("click", (event) => {
    for (const menu of doc.querySelectorAll("details.account-menu[open]")) {
      if (!menu.contains(event.target)) menu.removeAttribute("open");
    }
  });
  doc.addEventListener("input", (event) => {
    if (event.target.matches?.(".review input[type=range]")) stepped(Number(event.target.value));
  });
}

/** Pointer and wheel on the visualizer's tree `svg`: hovering a node (`data-node`) calls
 * `hover(id, clientX, clientY)` and leaving it `hideTip()`, a click on one `toggle(id)`, a drag
 * `pan(dx, dy)`, the wheel `zoom(factor, px, py)` about the pointer. */
export function bindTree(svg, { hover, hideTip, toggle, pan, zoom }) {
  let press = null;
  svg.addEventListener("pointerdown", (event) => {
    svg.setPointerCapture(event.pointerId);
    const nodeEl = event.target.closest("[data-node]");
    press = { x: event.clientX, y: event.clientY, lastX: event.clientX, lastY: event.clientY, node: nodeEl?.dataset.node, moved: false };
  });
  svg.addEventListener("pointermove", (event) => {
    if (!press) {
      const nodeEl = event.target.closest("[data-node]");
      if (nodeEl) hover(nodeEl.dataset.node, event.clientX, event.clientY);
      else hideTip();
      return;
    }
    if (!press.moved && Math.hypot(event.clientX - press.x, event.clientY - press.y) > 4) {
      press.moved = true;
      hideTip();
    }
    if (press.moved) pan(event.clientX - press.lastX, event.clientY - press.lastY);
    press.lastX = event.clientX;
    press.lastY = event.clientY;
  });
  svg.addEventListener("pointerup", () => {
    const done = press;
    press = null;
    if (done && !done.moved && done.node) toggle(done.node);
  });
  svg.addEventListener("pointercancel", () => { press = null; });
  svg.addEventListener("pointerleave", () => { if (!press) hideTip(); });
  svg.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = svg.getBoundingClientRect();
    zoom(Math.exp(-event.deltaY * (event.deltaMode === 1 ? 16 : 1) * 0.0015), event.clientX - rect.left, event.clientY - rect.top);
  }, { passive: false });
}
