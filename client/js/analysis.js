// The analysis board (#/analysis): both sides played freely from any position, variations as
// a move tree (movetree.js), a UHP GameString imported and exported, the position in the
// address, and the engine's best lines on demand. The client holds no rules: each position,
// with its legal moves, comes from the server's engine (`position`), and so do the lines
// (`engine`, `lines`, `engine_done`; docs/protocol.md). One position request is in flight at
// a time: the node on show when it comes back is asked next, so holding an arrow key asks
// for no more than the server answers.

import { Board, reserveMarkup } from "./board.js";
import { ICONS, html, render } from "./dom.js";
import { moveMarkup } from "./game.js";
import { bindPlayable } from "./input.js";
import * as P from "./protocol.js";
import { routeHash } from "./route.js";
import * as T from "./movetree.js";
import { scoreText } from "./tree.js";
import { legalByPiece } from "./views.js";

const key = (gameType, moves) => `${gameType}|${moves.join(";")}`;
/** The server's limit on a connection's engine runs (server/requests/analysis.py's
 * ENGINE_BURST at once, then ENGINE_RATE a second): a run waits for its turn here rather than
 * be refused (ten refusals in a row close the connection). */
const ENGINE_BURST = 10;
const ENGINE_RATE = 1;
/** Milliseconds a position stays on show before the engine is asked about it. */
const ENGINE_SETTLE = 250;
/** Least milliseconds between two position requests (an arrow key held repeats fast). */
const POSITION_GAP = 100;
const percent = (chance) => `${Math.round(chance * 100)}%`;

export class AnalysisScreen {
  /** `send(message)`: sent on the socket (false when not connected). */
  constructor(root, route, { send }) {
    this.root = root;
    this.send = send;
    this.gameType = route.gameType;
    this.tree = T.lineTree(route.moves, route.ply);
    this.positions = new Map(); // key -> a position message
    this.asked = null; // {id, key} of the position request in flight
    this.serial = 0;
    this.selected = null; // {piece, from}
    this.engine = { on: false, id: 0, lines: null, done: null };
    this.engineTokens = { tokens: ENGINE_BURST, at: performance.now() };
    this.engineTimer = null;
    this.askTimer = null;
    this.lastAsk = -Infinity;
    this.error = null;
    render(root, html`
      <div class="review game analysis" data-testid="analysis">
        <section class="play-area">
          <div class="player-bar top" data-slot="top"><div class="seat"></div><div class="reserve"></div></div>
          <div class="board-wrap"><div class="eval-bar" data-slot="bar" data-testid="eval-bar" title="White's chance"><div class="eval-white"></div></div>
            <div class="board-host" data-slot="board"></div></div>
          <div class="player-bar bottom" data-slot="bottom"><div class="seat"></div><div class="reserve"></div></div>
        </section>
        <aside class="side">
          <div class="card status-card">
            <div class="review-title">Analysis board <select data-slot="type" aria-label="Game type" data-testid="game-type"></select></div>
            <div class="stepper">
              <button type="button" data-analysis="first" title="Start (Home)" aria-label="Start">${ICONS.first}</button>
              <button type="button" data-analysis="back" title="Back (←)" aria-label="Back" data-testid="prev">${ICONS.prev}</button>
              <span class="ply" data-slot="ply" data-testid="ply"></span>
              <button type="button" data-analysis="forward" title="Forward (→)" aria-label="Forward" data-testid="next">${ICONS.next}</button>
              <button type="button" data-analysis="end" title="End (End)" aria-label="End">${ICONS.last}</button>
            </div>
            <div class="analysis-tools">
              <button type="button" data-analysis="promote" data-testid="promote" title="Make this line the main line">Promote</button>
              <button type="button" data-analysis="delete" data-testid="delete" title="Delete this move and what follows">Delete</button>
              <button type="button" data-analysis="pass" data-testid="pass" hidden>Pass</button>
            </div>
            <div class="muted small" data-slot="status" data-testid="analysis-status" aria-live="polite"></div>
          </div>
          <div class="card engine-card">
            <h3><label><input type="checkbox" data-slot="engine" data-testid="engine-toggle"> Engine</label>
              <span class="muted small" data-slot="depth" data-testid="engine-depth"></span></h3>
            <ol class="engine-lines" data-slot="lines" data-testid="engine-lines"></ol>
          </div>
          <div class="card moves-card">
            <h3>Moves</h3>
            <ol class="moves" data-slot="moves" data-testid="moves"></ol>
            <div class="variations" data-slot="variations" data-testid="variations"></div>
          </div>
          <div class="card">
            <h3>GameString</h3>
            <textarea readonly rows="3" data-slot="export" data-testid="export" aria-label="This position's GameString"></textarea>
            <form data-slot="import">
              <input name="game" autocomplete="off" placeholder="Paste a UHP GameString" aria-label="GameString to import" data-testid="import-input">
              <button type="submit" data-testid="import">Import</button>
            </form>
            <p class="muted small">← and → step through the moves, Home and End jump; click a piece then a hex to play either side.</p>
          </div>
        </aside>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.board = new Board(this.slots.board, { label: "Analysis board" });
    bindPlayable(this, this.board, [this.slots.top, this.slots.bottom]);
    this.board.onFlip = () => this.show();
    root.addEventListener("click", (event) => {
      const el = event.target.closest("[data-analysis]");
      if (el) this.act(el.dataset.analysis, el);
    });
    this.slots.engine.addEventListener("change", () => this.toggleEngine(this.slots.engine.checked));
    this.slots.type.addEventListener("change", () => this.restart(this.slots.type.value, []));
    this.slots.import.addEventListener("submit", (event) => {
      event.preventDefault();
      this.importGame(String(new FormData(this.slots.import).get("game") ?? "").trim());
    });
    this.keys = (event) => this.key(event);
    addEventListener("keydown", this.keys);
    this.gameTypes = P.GAME_TYPES;
    this.show();
  }

  // -- app.js's calls -----------------------------------------------------------------------

  render(state) {
    const types = state.server?.game_types ?? P.GAME_TYPES;
    if (types !== this.gameTypes || !this.slots.type.options.length) {
      this.gameTypes = types;
      render(this.slots.type, html`${types.map((t) => html`<option value="${t}">${t}</option>`)}`);
    }
    this.slots.type.value = this.gameType;
  }

  /** A new connection: what was asked on the old one is asked again. */
  connected() {
    this.asked = null;
    this.show();
    if (this.engine.on) this.startEngine();
  }

  /** A message for the board (position, lines, engine_done, or an error of its requests). */
  received(message) {
    if (message.type === P.ServerType.POSITION) {
      if (this.asked?.id === message.id) {
        if (this.asked.imported) this.tree = T.lineTree(message.moves);
        this.positions.set(key(message.game_type, message.moves), message);
        if (this.asked.imported) this.gameType = message.game_type;
        this.asked = null;
        this.error = null;
        this.show();
      }
    } else if (message.type === P.ServerType.LINES) {
      if (message.id === this.engine.id && this.engine.on && !this.engine.stopped) this.engine = { ...this.engine, lines: message };
      this.showEngine();
    } else if (message.type === P.ServerType.ENGINE_DONE) {
      if (message.id === this.engine.id && !this.engine.stopped) this.engine = { ...this.engine, done: message, stopped: true };
      this.showEngine();
    } else if (message.type === P.ServerType.ERROR) {
      if (message.request === P.ClientType.POSITION) {
        const imported = this.asked?.imported;
        this.asked = null;
        // an import refused leaves the board as it was; a position refused (a link's moves)
        // starts the board again, empty
        if (!imported) this.restart(P.GAME_TYPES.includes(this.gameType) ? this.gameType : "Base+MLP", []);
        this.error = `${imported ? "Cannot import" : "Cannot show that position"}: ${message.message}`;
        this.show();
      } else {
        this.engine = { ...this.engine, done: { reason: message.message }, stopped: true };
        this.showEngine();
      }
    }
  }

  destroy() {
    clearTimeout(this.engineTimer);
    clearTimeout(this.askTimer);
    if (this.engine.on && !this.engine.stopped) this.send(P.StopEngine(this.engine.id));
    removeEventListener("keydown", this.keys);
    this.board.destroy();
  }

  // -- the position on show -------------------------------------------------------------------

  position() {
    return this.positions.get(key(this.gameType, T.movesTo(this.tree))) ?? null;
  }

  /** The legal moves of the position shown (undefined: none yet). */
  legalMoves() {
    return this.position()?.legal;
  }

  movable() {
    return new Set(legalByPiece(this.position()).keys());
  }

  /** Draw the node on show, asking for its position when it is not known yet. */
  show() {
    const moves = T.movesTo(this.tree);
    const position = this.position();
    if (!position && !this.asked) this.askSoon();
    const hash = routeHash({ page: "analysis", gameType: this.gameType, moves: T.lineThrough(this.tree).map((n) => n.move), ply: moves.length });
    if (location.hash !== hash) history.replaceState(null, "", hash);
    const ply = moves.length;
    this.root.querySelector(".analysis").dataset.ply = String(ply);
    this.root.querySelector(".analysis").dataset.ready = position ? "true" : "false";
    render(this.slots.ply, html`${ply === 0 ? "start" : `move ${ply}`}`);
    render(this.slots.status, this.error ? html`<span class="error" data-testid="analysis-error">${this.error}</span>`
      : position ? html`${position.state === "InProgress" || position.state === "NotStarted" ? `${position.turn === "white" ? "White" : "Black"} to move` : position.state}` : html`…`);
    if (!position) return;
    const byPiece = legalByPiece(position);
    const targets = this.selected ? byPiece.get(this.selected.piece) ?? [] : [];
    const last = position.last;
    this.board.set({
      pieces: position.pieces,
      movable: new Set(byPiece.keys()),
      selected: this.selected,
      targets,
      lastMove: last ? { piece: last.piece, from: last.from_q === null ? null : { q: last.from_q, r: last.from_r } } : null,
      interactive: true,
    });
    const bars = this.board.flipped ? [["top", "white"], ["bottom", "black"]] : [["top", "black"], ["bottom", "white"]];
    for (const [slot, color] of bars) {
      const el = this.slots[slot];
      render(el.querySelector(".seat"), html`<span class="seat-hex ${color}"></span><span class="name">${color === "white" ? "White" : "Black"}</span>`);
      const reserve = el.querySelector(".reserve");
      render(reserve, reserveMarkup(color === "white" ? position.hand_white : position.hand_black, color, {
        movable: position.turn === color ? new Set(byPiece.keys()) : new Set(),
        selected: this.selected && !this.selected.from ? this.selected.piece : null,
      }));
      reserve.dataset.testid = `reserve-${color}`;
    }
    this.root.querySelector('[data-analysis="pass"]').hidden = !position.must_pass;
    this.slots.export.value = position.game_string;
    this.showMoves();
    this.showEngine();
  }

  /** Ask for the node on show, once POSITION_GAP has passed since the last request. */
  askSoon() {
    if (this.askTimer !== null) return;
    const wait = Math.max(0, this.lastAsk + POSITION_GAP - performance.now());
    this.askTimer = setTimeout(() => {
      this.askTimer = null;
      if (!this.asked && !this.position()) this.ask(T.movesTo(this.tree));
    }, wait);
  }

  ask(moves, gameString = null) {
    this.lastAsk = performance.now();
    this.serial += 1;
    this.asked = { id: this.serial, imported: gameString !== null };
    if (!this.send(P.GetPosition(this.gameType, moves, this.serial, gameString))) this.asked = null;
  }

  showMoves() {
    const line = T.lineThrough(this.tree);
    const rows = [];
    for (let i = 0; i < line.length; i += 2) {
      const cell = (j) => (j < line.length
        ? html`<button type="button" class="mv${line[j].id === this.tree.current ? " current" : ""}" data-analysis="go" data-node="${line[j].id}">${moveMarkup(line[j].move, "uhp")}</button>`
        : html`<span></span>`);
      rows.push(html`<li>${cell(i)}${cell(i + 1)}</li>`);
    }
    render(this.slots.moves, rows.length ? html`${rows}` : html`<li class="muted none">No moves: play one on the board.</li>`);
    const here = this.tree.nodes[this.tree.current];
    const others = [...T.siblings(this.tree), ...here.children.slice(1)];
    render(this.slots.variations, others.length ? html`<span class="muted small">Variations:</span> ${others.map((id) => html`<button type="button" class="link" data-analysis="go" data-node="${id}" data-testid="variation">${this.tree.nodes[id].move}</button> `)}` : html``);
  }

  // -- moves and the tree ---------------------------------------------------------------------

  play(text) {
    this.selected = null;
    this.moved(T.played(this.tree, text));
  }

  moved(tree) {
    this.tree = tree;
    this.selected = null;
    this.error = null;
    this.show();
    if (this.engine.on) this.startEngine();
  }

  act(action, el) {
    const steps = {
      first: () => T.goTo(this.tree, 0),
      back: () => T.back(this.tree),
      forward: () => T.forward(this.tree),
      end: () => T.toEnd(this.tree),
      promote: () => T.promoted(this.tree),
      delete: () => T.removed(this.tree),
      go: () => T.goTo(this.tree, Number(el.dataset.node)),
      pass: () => T.played(this.tree, P.PASS),
    };
    if (steps[action]) this.moved(steps[action]());
  }

  key(event) {
    if (event.target.closest?.("input:not([type=checkbox]), textarea, select")) return;
    const step = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "end" }[event.key];
    if (step) {
      event.preventDefault();
      this.act(step);
    } else if (event.key === "Escape" && this.selected) {
      this.selected = null;
      this.show();
    }
  }

  restart(gameType, moves) {
    this.gameType = gameType;
    this.moved(T.lineTree(moves));
  }

  /** Import a UHP GameString: the server checks it (a long one's moves are sent apart). */
  importGame(text) {
    if (!text) return;
    const [gameType, , , ...moves] = text.split(";").map((part) => part.trim());
    if (text.length <= 2000) this.ask([], text);
    else {
      this.gameType = gameType;
      this.serial += 1;
      this.asked = { id: this.serial, imported: true };
      this.send(P.GetPosition(gameType, moves.filter(Boolean), this.serial));
    }
    if (this.engine.on) this.toggleEngine(true);
    this.show();
  }

  // -- the engine ------------------------------------------------------------------------------

  toggleEngine(on) {
    this.slots.engine.checked = on;
    if (on) this.startEngine();
    else {
      clearTimeout(this.engineTimer);
      if (this.engine.on && !this.engine.stopped) this.send(P.StopEngine(this.engine.id));
      this.engine = { on: false, id: this.engine.id, lines: null, done: null };
      this.showEngine();
    }
  }

  /** The engine on the node on show: the run before stopped at once (once), the new one
   * started once the position has stayed ENGINE_SETTLE ms and the server's limit allows. */
  startEngine() {
    if (this.engine.on && !this.engine.stopped) this.send(P.StopEngine(this.engine.id));
    this.engine = { on: true, id: this.engine.id, lines: null, done: null, stopped: true };
    this.showEngine();
    clearTimeout(this.engineTimer);
    const bucket = this.engineTokens;
    const now = performance.now();
    bucket.tokens = Math.min(ENGINE_BURST, bucket.tokens + ((now - bucket.at) / 1000) * ENGINE_RATE);
    bucket.at = now;
    const wait = Math.max(ENGINE_SETTLE, bucket.tokens >= 1 ? 0 : ((1 - bucket.tokens) / ENGINE_RATE) * 1000);
    this.engineTimer = setTimeout(() => {
      this.engineTimer = null;
      if (!this.engine.on) return;
      const later = performance.now();
      bucket.tokens = Math.min(ENGINE_BURST, bucket.tokens + ((later - bucket.at) / 1000) * ENGINE_RATE) - 1;
      bucket.at = later;
      this.serial += 1;
      this.engine = { on: true, id: this.serial, lines: null, done: null, stopped: false };
      this.send(P.StartEngine(this.gameType, T.movesTo(this.tree), this.serial));
      this.showEngine();
    }, wait);
  }

  showEngine() {
    const { on, lines, done } = this.engine;
    const found = on ? lines : null;
    render(this.slots.depth, html`${!on ? "off" : found ? `depth ${found.depth}` : "searching…"}${on && done ? ` · ${done.reason}` : ""}`);
    this.root.querySelector(".analysis").dataset.depth = String(found?.depth ?? 0);
    const turn = this.position()?.turn ?? "white";
    render(this.slots.lines, found ? html`${found.lines.map((line) => html`<li data-testid="engine-line">
      <b>${scoreText(line.score)}</b> <span class="muted">${percent(line.chance)}</span>
      <span class="pv">${line.pv.join("  ")}</span></li>`)}` : html``);
    const best = found?.lines[0];
    const white = best ? (turn === "white" ? best.chance : 1 - best.chance) : 0.5;
    this.slots.bar.hidden = !on;
    this.slots.bar.querySelector(".eval-white").style.height = `${(white * 100).toFixed(1)}%`;
    this.slots.bar.title = `White's chance: ${percent(white)}`;
  }
}
