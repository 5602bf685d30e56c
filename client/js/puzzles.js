// The puzzle page (#/puzzles, #/puzzles/daily, #/puzzles/ID): a position where one move alone
// wins (or saves the Queen), played with the mouse or the keyboard as in games (board.js,
// input.js). The client holds neither rules nor solution: each move goes to the server
// (`puzzle_move`), which says at once whether it was right and sends the positions to show,
// the defender's reply among them (animated one after the other); the solution comes only
// once the puzzle is over or asked for (`puzzle_solution`). docs/protocol.md.

import { Board, reserveMarkup } from "./board.js";
import { pieceSvg } from "./bugs.js";
import { html, render } from "./dom.js";
import { toPixel } from "./hex.js";
import { bindPlayable } from "./input.js";
import * as P from "./protocol.js";
import { legalByPiece } from "./views.js";

/** Milliseconds between two positions of an answer on show (the defender's reply, each move
 * of a solution): long enough to see the piece travel. */
const STEP_MS = 450;
const THEME_WORDS = Object.freeze({ win1: "Win in 1", win2: "Win in 2", win3: "Win in 3", defend: "Save the Queen" });
const STATUS_WORDS = Object.freeze({
  loading: "Loading a puzzle…",
  solving: "Find the best move.",
  right: "Right! Keep going.",
  wrong: "Wrong move. Try again, or show the solution.",
  solved: "Solved!",
  completed: "Done, after a wrong move.",
  failed: "Here is the solution.",
});

/** A puzzle rating as shown ("1523?" while provisional). */
export const ratingText = (r) => (r ? `${r.rating}${r.provisional ? "?" : ""}` : "…");

/** The app's state with the puzzle of the day (for the lobby). */
export const dailyReceived = (state, puzzle) => ({ ...state, daily: puzzle });

/** The lobby's card of the puzzle of the day: its position drawn small, what it asks, a
 * link to solve it. */
export function dailyCard(daily) {
  if (!daily) return html`<p class="muted">No puzzle today.</p>`;
  const top = new Map();
  for (const p of daily.position.pieces) {
    const key = `${p.q},${p.r}`;
    if (!top.has(key) || top.get(key).height < p.height) top.set(key, p);
  }
  const placed = [...top.values()].map((p) => {
    const { x, y } = toPixel(p.q, p.r);
    return html`<g transform="translate(${x} ${y})">${pieceSvg(p.piece)}</g>`;
  });
  const xs = [...top.values()].map((p) => toPixel(p.q, p.r));
  const [minX, maxX] = [Math.min(...xs.map((v) => v.x)) - 60, Math.max(...xs.map((v) => v.x)) + 60];
  const [minY, maxY] = [Math.min(...xs.map((v) => v.y)) - 60, Math.max(...xs.map((v) => v.y)) + 60];
  const side = daily.position.turn === "white" ? "White" : "Black";
  return html`<a class="daily-board" href="#/puzzles/daily" aria-label="Solve the puzzle of the day">
      <svg viewBox="${minX} ${minY} ${maxX - minX} ${maxY - minY}" width="200" height="150" aria-hidden="true">${placed}</svg></a>
    <p><b>${THEME_WORDS[daily.theme] ?? daily.theme}</b> · ${side} to move · rated ${daily.rating}</p>
    <a class="button primary" href="#/puzzles/daily" data-testid="daily-puzzle-link">Solve it</a>`;
}

export class PuzzleScreen {
  /** `send(message)`: sent on the socket (false when not connected). */
  constructor(root, route, { send }) {
    this.root = root;
    this.send = send;
    this.route = route;
    this.routeAsked = route.puzzle;
    this.puzzle = null; // the puzzle message
    this.frame = null; // the position on show
    this.status = "loading";
    this.player = null; // the player's PuzzleRating
    this.change = null; // the last rated try's change
    this.streak = 0; // puzzles solved in a row on this page
    this.solution = [];
    this.selected = null;
    this.busy = false; // a move sent, its answer awaited or being shown
    this.timers = [];
    this.error = null;
    render(root, html`
      <div class="review game puzzles" data-testid="puzzles" data-status="loading">
        <section class="play-area">
          <div class="player-bar top" data-slot="top"><div class="seat"></div><div class="reserve"></div></div>
          <div class="board-wrap"><div class="board-host" data-slot="board"></div></div>
          <div class="player-bar bottom" data-slot="bottom"><div class="seat"></div><div class="reserve"></div></div>
        </section>
        <aside class="side">
          <div class="card status-card">
            <div class="review-title" data-slot="title" data-testid="puzzle-title">Puzzles</div>
            <p class="puzzle-status" data-slot="status" data-testid="puzzle-status" aria-live="polite"></p>
            <div class="analysis-tools">
              <button type="button" data-puzzle="solution" data-testid="show-solution">Show the solution</button>
              <button type="button" class="primary" data-puzzle="next" data-testid="next-puzzle">Next puzzle</button>
            </div>
            <p class="muted small" data-slot="solution" data-testid="solution"></p>
          </div>
          <div class="card">
            <h3>Your puzzle rating <b data-slot="rating" data-testid="puzzle-rating">…</b>
              <span class="muted small" data-slot="change" data-testid="rating-change"></span></h3>
            <p>Streak: <b data-slot="streak" data-testid="streak">0</b></p>
            <label>Theme <select data-slot="theme" data-testid="puzzle-theme">
              <option value="">Any</option>${P.PUZZLE_THEMES.map((t) => html`<option value="${t}">${THEME_WORDS[t]}</option>`)}</select></label>
            <label>Game type <select data-slot="type" data-testid="puzzle-type"><option value="">Any</option></select></label>
          </div>
          <div class="card">
            <h3>Your tries</h3>
            <ol class="moves" data-slot="tries" data-testid="puzzle-tries"></ol>
            <p class="muted small">Click a piece then a hex, or drag it; from the keyboard, Enter on a piece, the arrows to a hex, Enter to play.</p>
          </div>
        </aside>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.board = new Board(this.slots.board, { label: "Puzzle board" });
    bindPlayable(this, this.board, [this.slots.top, this.slots.bottom]);
    this.board.onFlip = () => this.show();
    root.addEventListener("click", (event) => {
      const el = event.target.closest("[data-puzzle]");
      if (el?.dataset.puzzle === "solution") this.showSolution();
      else if (el?.dataset.puzzle === "next") this.next();
    });
    this.gameTypes = null;
    this.show();
    this.connected(); // (asked again at the next welcome if not connected now)
  }

  // -- app.js's calls -----------------------------------------------------------------------

  render(state) {
    const asked = state.route.puzzle;
    if (asked && asked !== this.routeAsked) { // a link to a puzzle followed on this page
      this.routeAsked = asked;
      if (asked !== this.puzzle?.id) this.ask(P.GetPuzzle({ id: asked }));
    }
    const types = state.server?.gameTypes ?? state.server?.game_types ?? P.GAME_TYPES;
    if (types !== this.gameTypes) {
      this.gameTypes = types;
      const chosen = this.slots.type.value;
      render(this.slots.type, html`<option value="">Any</option>${types.map((t) => html`<option value="${t}">${t}</option>`)}`);
      this.slots.type.value = chosen;
    }
  }

  /** A new connection: the puzzle asked again (an open try lives on the server process). */
  connected() {
    const { daily, puzzle } = this.route;
    const id = this.puzzle?.id ?? puzzle ?? null;
    this.ask(P.GetPuzzle(daily && !this.puzzle ? { daily: true } : { id }));
  }

  received(message) {
    if (message.type === P.ServerType.PUZZLE) this.started(message);
    else if (message.type === P.ServerType.PUZZLE_ANSWER) this.answered(message);
    else if (message.type === P.ServerType.ERROR) {
      this.busy = false;
      this.error = message.message;
      if (this.status === "loading") this.status = "solving";
      this.show();
    }
  }

  destroy() {
    this.stop();
    this.board.destroy();
  }

  // -- the puzzle -----------------------------------------------------------------------------

  ask(message) {
    this.stop();
    this.status = "loading";
    this.error = null;
    this.busy = true;
    if (!this.send(message)) this.busy = false;
    this.show();
  }

  next() {
    const theme = this.slots.theme.value || null;
    const type = this.slots.type.value || null;
    this.ask(P.GetPuzzle({ theme, game_type: type, after: this.puzzle?.id ?? null }));
  }

  started(puzzle) {
    this.stop();
    this.puzzle = puzzle;
    this.frame = puzzle.position;
    this.player = puzzle.player;
    this.tries = puzzle.tries;
    this.solution = [];
    this.selected = null;
    this.busy = false;
    this.error = null;
    this.status = "solving";
    const hash = puzzle.daily ? "#/puzzles/daily" : `#/puzzles/${puzzle.id}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
    // the solver plays from the bottom of the board
    if (this.board.flipped !== (puzzle.position.turn === "black")) this.board.flip();
    this.show();
  }

  play(text) {
    if (!this.movable().size) return;
    this.selected = null;
    this.busy = true;
    this.error = null;
    if (!this.send(P.PuzzleMove(this.puzzle.id, text))) this.busy = false;
    this.show();
  }

  showSolution() {
    if (!this.puzzle || this.busy) return;
    this.busy = true;
    this.frame = this.puzzle.position; // the line is shown from the start
    if (!this.send(P.ShowSolution(this.puzzle.id))) this.busy = false;
    this.show();
  }

  answered(answer) {
    if (answer.puzzle !== this.puzzle?.id) return;
    if (answer.player) this.player = answer.player;
    if (answer.rated) this.change = answer.change;
    // over: solved; done after a wrong move; or the solution shown
    const over = answer.done ? (answer.solved ? "solved" : answer.correct ? "completed" : "failed") : null;
    if (!answer.correct) this.streak = 0;
    if (!answer.correct && !answer.done) this.status = "wrong";
    if (answer.done) this.solution = answer.solution;
    if (answer.rated) {
      this.tries = [{ puzzle: answer.puzzle, theme: this.puzzle.theme, solved: answer.solved,
        rating: answer.player.rating, change: answer.change, at: Date.now() }, ...(this.tries ?? [])].slice(0, 20);
    }
    // the positions one after the other; the status once the last is on show
    const frames = answer.frames;
    const finish = () => {
      this.busy = false;
      if (over === "solved") this.streak += 1;
      if (over) this.status = over;
      else if (answer.correct) this.status = "right";
      this.show();
    };
    if (!frames.length) {
      finish();
      return;
    }
    this.frame = frames[0];
    this.show();
    frames.slice(1).forEach((frame, i) => {
      this.timers.push(setTimeout(() => {
        this.frame = frame;
        this.show();
      }, STEP_MS * (i + 1)));
    });
    this.timers.push(setTimeout(finish, STEP_MS * (frames.length - 1)));
  }

  stop() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
  }

  // -- drawing --------------------------------------------------------------------------------

  /** The legal moves of the position shown (undefined: none yet). */
  legalMoves() {
    return this.frame?.legal;
  }

  movable() {
    if (this.busy || !["solving", "right", "wrong"].includes(this.status)) return new Set();
    return new Set(legalByPiece(this.frame).keys());
  }

  show() {
    const root = this.root.querySelector(".puzzles");
    root.dataset.status = this.status;
    root.dataset.busy = String(this.busy);
    root.dataset.puzzle = String(this.puzzle?.id ?? "");
    root.dataset.ply = String(this.frame?.moves.length ?? 0);
    const p = this.puzzle;
    render(this.slots.title, p ? html`${p.daily ? "Puzzle of the day" : `Puzzle ${p.id}`} · ${THEME_WORDS[p.theme] ?? p.theme}
      <span class="muted small">${p.game_type} · rated ${p.rating}</span>` : html`Puzzles`);
    const side = p?.position.turn === "white" ? "White" : "Black";
    render(this.slots.status, this.error ? html`<span class="error" data-testid="puzzle-error">${this.error}</span>`
      : html`${p && this.status === "solving" ? `${side} to move. ` : ""}${STATUS_WORDS[this.status]}`);
    render(this.slots.solution, this.solution.length ? html`Solution: ${this.solution.join(", ")}` : html``);
    render(this.slots.rating, html`${ratingText(this.player)}`);
    render(this.slots.change, html`${this.change === null ? "" : `${this.change >= 0 ? "+" : ""}${this.change}`}`);
    render(this.slots.streak, html`${String(this.streak)}`);
    render(this.slots.tries, html`${(this.tries ?? []).map((t) => html`<li data-testid="puzzle-try">
      <a href="#/puzzles/${t.puzzle}">${THEME_WORDS[t.theme] ?? t.theme}</a> ${t.solved ? "solved" : "failed"} · ${t.rating}
      (${t.change >= 0 ? "+" : ""}${t.change})</li>`)}`);
    const over = ["solved", "completed", "failed"].includes(this.status);
    this.root.querySelector('[data-puzzle="solution"]').disabled = !p || this.busy || over;
    const frame = this.frame;
    if (!frame) return;
    const movable = this.movable();
    const byPiece = legalByPiece(frame);
    const targets = this.selected ? byPiece.get(this.selected.piece) ?? [] : [];
    const last = frame.last;
    this.board.set({
      pieces: frame.pieces,
      movable,
      selected: this.selected,
      targets,
      lastMove: last ? { piece: last.piece, from: last.from_q === null ? null : { q: last.from_q, r: last.from_r } } : null,
      interactive: movable.size > 0,
    });
    const bars = this.board.flipped ? [["top", "white"], ["bottom", "black"]] : [["top", "black"], ["bottom", "white"]];
    for (const [slot, color] of bars) {
      const el = this.slots[slot];
      render(el.querySelector(".seat"), html`<span class="seat-hex ${color}"></span><span class="name">${color === "white" ? "White" : "Black"}</span>`);
      const reserve = el.querySelector(".reserve");
      render(reserve, reserveMarkup(color === "white" ? frame.hand_white : frame.hand_black, color, {
        movable: frame.turn === color ? movable : new Set(),
        selected: this.selected && !this.selected.from ? this.selected.piece : null,
      }));
      reserve.dataset.testid = `reserve-${color}`;
    }
  }
}
