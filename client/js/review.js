// The review screen: a finished (or running) game stepped through move by move, with buttons
// and the arrow keys. The client holds no rules, so the positions come from the server
// (GET /games/ID/positions.json: the pieces after every move, see server/edge/review.py).

import { Board, reserveMarkup } from "./board.js";
import { ICONS, html, render } from "./dom.js";
import { analysisCard, bestArrow, evalGraph, moveNote } from "./evaluation.js";
import { moveMarkup, notationSwitch } from "./game.js";
import { READ_ONLY, bindBoard } from "./input.js";
import { routeHash } from "./route.js";

export class ReviewScreen {
  constructor(root) {
    this.root = root;
    render(root, html`
      <div class="review game" data-testid="review">
        <section class="play-area">
          <div class="player-bar top" data-slot="top"><div class="seat"></div><div class="reserve"></div></div>
          <div class="board-wrap"><div class="board-host" data-slot="board"></div></div>
          <div class="player-bar bottom" data-slot="bottom"><div class="seat"></div><div class="reserve"></div></div>
          <div class="eval-graph-host" data-slot="graph"></div>
        </section>
        <aside class="side">
          <div class="card status-card">
            <div class="review-title" data-slot="title" data-testid="review-title"></div>
            <div class="stepper">
              <button type="button" data-action="reviewFirst" title="First (Home)" aria-label="First move">${ICONS.first}</button>
              <button type="button" data-action="reviewPrev" title="Back (←)" aria-label="Previous move" data-testid="prev">${ICONS.prev}</button>
              <span class="ply" data-slot="ply" data-testid="ply"></span>
              <button type="button" data-action="reviewNext" title="Forward (→)" aria-label="Next move" data-testid="next">${ICONS.next}</button>
              <button type="button" data-action="reviewLast" title="Last (End)" aria-label="Last move">${ICONS.last}</button>
            </div>
            <input type="range" min="0" value="0" data-slot="slider" aria-label="Move">
          </div>
          <div class="card analysis-card" data-slot="analysis" data-testid="analysis"></div>
          <div class="card moves-card">
            <h3>Moves <span data-slot="notation"></span></h3>
            <ol class="moves" data-slot="moves" data-testid="moves"></ol>
          </div>
          <div class="card info" data-slot="info"></div>
        </aside>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.board = new Board(this.slots.board, { label: "Position under review" });
    bindBoard(this.board, READ_ONLY); // pan, zoom and stack tooltips; no moves
    this.board.onFlip = () => this.render(this.state);
  }

  render(state) {
    this.state = state;
    const review = state.review;
    const doc = review.doc;
    if (review.error) {
      render(this.slots.title, html`<span class="error">${review.error}</span>`);
      return;
    }
    if (!doc) {
      render(this.slots.title, html`<span class="muted">Loading game ${review.id}…</span>`);
      return;
    }
    const frame = doc.frames[review.ply];
    const analysis = review.analysis;
    this.root.querySelector(".review").dataset.ply = String(review.ply);
    this.board.set({
      pieces: frame.pieces,
      lastMove: frame.piece ? { piece: frame.piece, from: frame.from && { q: frame.from[0], r: frame.from[1] } } : null,
      arrow: bestArrow(analysis, review.ply),
    });
    render(this.slots.graph, evalGraph(analysis, review.ply));
    render(this.slots.analysis, analysisCard(review, { white: doc.white ?? "White", black: doc.black ?? "Black" }));
    const bars = this.board.flipped ? [["top", "white"], ["bottom", "black"]] : [["top", "black"], ["bottom", "white"]];
    for (const [slot, color] of bars) {
      const el = this.slots[slot];
      render(el.querySelector(".seat"), html`<span class="seat-hex ${color}"></span><span class="name">${doc[color] ?? color}</span>`);
      render(el.querySelector(".reserve"), reserveMarkup(color === "white" ? frame.hand_white : frame.hand_black, color));
    }
    const result = doc.result ? `${doc.result.replace("Wins", " wins")}${doc.reason ? ` (${doc.reason})` : ""}` : doc.status === "over" ? "no result" : "in progress";
    render(this.slots.title, html`<div class="review-players"><b>${doc.white ?? "?"}</b> – <b>${doc.black ?? "?"}</b></div>
      <div class="muted">${result}</div>`);
    const last = doc.frames.length - 1;
    render(this.slots.ply, html`${review.ply === 0 ? `start / ${last}` : `move ${review.ply} / ${last}`}`);
    this.slots.slider.max = String(last);
    this.slots.slider.value = String(review.ply);
    const rows = [];
    for (let i = 0; i < doc.moves.length; i += 2) {
      const cell = (j) => (j < doc.moves.length
        ? html`<button type="button" class="mv${j + 1 === review.ply ? " current" : ""}" data-action="reviewGo" data-ply="${j + 1}">${moveMarkup(doc.moves[j], state.notation)}${moveNote(analysis, j)}</button>`
        : html`<span></span>`);
      rows.push(html`<li>${cell(i)}${cell(i + 1)}</li>`);
    }
    render(this.slots.notation, notationSwitch(state.notation));
    render(this.slots.moves, rows.length ? html`${rows}` : html`<li class="muted none">No moves.</li>`);
    const current = this.slots.moves.querySelector(".current");
    if (current) current.scrollIntoView({ block: "nearest" });
    render(this.slots.info, html`<div class="info-row"><span>${doc.game_type}</span>
      <span><a href="/games/${review.id}.txt" target="_blank">record</a> ·
      <a href="${routeHash({ page: "analysis", gameType: doc.game_type, moves: doc.moves, ply: review.ply })}" data-testid="analysis-board">analyse</a> ·
      <a href="#/game/${review.id}">game page</a></span></div>
      <p class="muted small">← and → step through the moves; Home and End jump.</p>`);
  }

  destroy() {
    this.board.destroy();
  }
}
