// The computer analysis on the review page: its state (`state.review.analysis`, the last
// `game_analysis` the server sent: none, queued, running with `done` of `total`, or done with
// every move's review) changed by the pure transitions here, and what it draws: the evaluation
// graph under the board (a point a position; clicking one goes to that ply), each move's mark
// and evaluation in the move list, the best move where the played one was worse (an arrow on
// the board), each player's marks and accuracy, and what the marks mean.
//
// Every number shown is the server's (ai/review.py): the client computes no evaluation.

import { html } from "./dom.js";

/** What a mark looks like beside a move, lichess's symbols. */
export const MARKS = Object.freeze({
  inaccuracy: { symbol: "?!", name: "Inaccuracy" },
  mistake: { symbol: "?", name: "Mistake" },
  blunder: { symbol: "??", name: "Blunder" },
});

const WIDTH = 600;
const HEIGHT = 120;

// -- state ----------------------------------------------------------------------------------------

/** A `game_analysis` received: kept when it is the game under review (a progress message
 * never takes the place of a finished analysis). */
export function analysisReceived(state, message) {
  const review = state.review;
  if (!review || review.id !== message.game) return state;
  if (review.analysis?.status === "done" && message.status !== "done") return state;
  return { ...state, review: { ...review, analysis: message, asking: false } };
}

/** The analysis asked for (its button waits for the answer). */
export const analysisAsked = (state) => (state.review ? { ...state, review: { ...state.review, asking: true } } : state);

/** A refusal of `analyse_game`: said on the page. */
export function analysisRefused(state, error) {
  if (error.request !== "analyse_game" || !state.review || error.game !== state.review.id) return state;
  return { ...state, review: { ...state.review, asking: false, analysisError: error.message } };
}

// -- derived --------------------------------------------------------------------------------------

/** White's winning chance (0..1) in each position of a finished analysis, ply 0 to the end:
 * the mover's chance with the best move before each move, and after the last move played. */
export function whiteChances(analysis) {
  const moves = analysis?.status === "done" ? analysis.moves : [];
  const white = (m, chance) => (m.ply % 2 === 0 ? chance : 1 - chance);
  const points = moves.map((m) => white(m, m.chance));
  const last = moves[moves.length - 1];
  if (last) points.push(white(last, last.played_chance));
  return points;
}

/** White's chance after move `index` (0 the first), as a percentage for the move list. */
export function chanceAfter(move) {
  const white = move.ply % 2 === 0 ? move.played_chance : 1 - move.played_chance;
  return `${Math.round(white * 100)}%`;
}

/** The review of the move about to be played at `ply` when it was worse than the best move
 * (the arrow then shows the best one), else null. */
export function betterMove(analysis, ply) {
  if (analysis?.status !== "done") return null;
  const move = analysis.moves[ply];
  if (!move || move.best === move.move || move.played_score >= move.best_score || !move.best_to) return null;
  return move;
}

/** The board's arrow for `betterMove` (null: none). */
export function bestArrow(analysis, ply) {
  const move = betterMove(analysis, ply);
  if (!move) return null;
  const hex = (qr) => (qr ? { q: qr[0], r: qr[1] } : null);
  return { from: hex(move.best_from), to: hex(move.best_to), move: move.best };
}

// -- markup ---------------------------------------------------------------------------------------

/** The mark and evaluation shown after move `index` in the move list (nothing before the
 * analysis is done). */
export function moveNote(analysis, index) {
  const move = analysis?.status === "done" ? analysis.moves[index] : null;
  if (!move) return null;
  const mark = MARKS[move.mark];
  return html`${mark ? html`<span class="mark ${move.mark}" title="${mark.name}" data-mark="${move.mark}">${mark.symbol}</span>` : null}<span class="eval muted" title="White's winning chance after this move">${chanceAfter(move)}</span>`;
}

/** The evaluation graph: White's winning chance after each ply, the marked moves as dots, the
 * ply on show as a line; each ply a band to click (data-action reviewGo). */
export function evalGraph(analysis, ply) {
  const points = whiteChances(analysis);
  if (points.length < 2) return html``;
  const step = WIDTH / (points.length - 1);
  const xy = (p, chance) => [p * step, HEIGHT - chance * HEIGHT];
  const line = points.map((c, p) => xy(p, c).map((v) => v.toFixed(1)).join(",")).join(" ");
  const area = `0,${HEIGHT} ${line} ${WIDTH},${HEIGHT}`;
  const dots = analysis.moves.filter((m) => m.mark).map((m) => {
    const [x, y] = xy(m.ply + 1, points[m.ply + 1]);
    return html`<circle class="dot ${m.mark}" cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="4"/>`;
  });
  const bands = points.map((c, p) => html`<rect class="band" data-action="reviewGo" data-ply="${p}" data-testid="graph-ply"
    x="${Math.max(0, p * step - step / 2).toFixed(1)}" y="0" width="${step.toFixed(1)}" height="${HEIGHT}"><title>${p === 0 ? "start" : `move ${p}`}: White ${Math.round(c * 100)}%</title></rect>`);
  const at = (ply * step).toFixed(1);
  return html`<svg class="eval-graph" data-testid="eval-graph" data-points="${points.length}" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="White's winning chance, move by move">
    <rect class="black-side" x="0" y="0" width="${WIDTH}" height="${HEIGHT}"/>
    <polygon class="white-side" points="${area}"/>
    <line class="even" x1="0" y1="${HEIGHT / 2}" x2="${WIDTH}" y2="${HEIGHT / 2}"/>
    ${dots}
    <line class="now" x1="${at}" y1="0" x2="${at}" y2="${HEIGHT}"/>
    ${bands}
  </svg>`;
}

const pct = (chance) => `${Math.round(chance * 100)}%`;

/** One player's figures: accuracy, and the moves of each mark. */
function playerLine(color, name, figures) {
  const accuracy = figures.accuracy === null ? "–" : figures.accuracy.toFixed(1);
  return html`<div class="analysis-player" data-testid="analysis-${color}">
    <span class="seat-hex ${color}"></span><b>${name}</b>
    <span class="accuracy" data-testid="accuracy-${color}" title="Accuracy (0 to 100)">${accuracy}</span>
    <span class="counts"><span class="mark inaccuracy">${figures.inaccuracies} ?!</span>
    <span class="mark mistake">${figures.mistakes} ?</span>
    <span class="mark blunder">${figures.blunders} ??</span></span></div>`;
}

/** The analysis card: a button to ask for it, its progress, or its figures, and what the
 * marks mean. */
export function analysisCard(review, names) {
  const analysis = review.analysis;
  let body;
  if (!analysis) {
    body = html`<p class="muted">Asking whether this game has a computer analysis…</p>`;
  } else if (analysis.status === "none") {
    body = html`<button type="button" data-action="analyse" data-testid="analyse" ${review.asking ? html`disabled` : null}>Request computer analysis</button>`;
  } else if (analysis.status !== "done") {
    body = html`<p data-testid="analysis-progress">${analysis.status === "queued" ? "Waiting for the engine… " : "Analysing: "}ply ${analysis.done} of ${analysis.total}</p>
      <progress max="${analysis.total}" value="${analysis.done}"></progress>`;
  } else {
    const move = betterMove(analysis, review.ply);
    body = html`${playerLine("white", names.white, analysis.white)}${playerLine("black", names.black, analysis.black)}
      <p class="best-line" data-testid="best-line">${move
        ? html`Best here: <b>${move.best}</b> (${pct(move.chance)}) — played ${move.move} (${pct(move.played_chance)})${move.mark ? html`, ${MARKS[move.mark].name.toLowerCase()}` : null}`
        : html`<span class="muted">${review.ply < analysis.moves.length ? "The move played here was the engine's choice." : "End of the game."}</span>`}</p>`;
  }
  return html`<h3>Computer analysis</h3>${body}
    ${review.analysisError ? html`<p class="error" data-testid="analysis-error">${review.analysisError}</p>` : null}
    <p class="muted small" data-testid="marks-explained">Every position is searched ${analysis?.depth || 5} plies deep at one
    fixed strength. A move is marked by how much it lowered its player's chance of winning, from the best move's
    to the move played, as lichess marks moves: by 5 percentage points an inaccuracy (?!), 10 a mistake (?), 15 a
    blunder (??). The chance comes from the engine's score by a curve fitted on self-play games, and predicts the
    results of games it was not fitted on (Brier score 0.219, against 0.241 for a coin toss). Accuracy is
    lichess's formula of those drops.</p>`;
}
