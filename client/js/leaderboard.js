// The leaderboard of a speed (#/leaderboard/SPEED): the players whose rating in it is not
// provisional and who played a rated game of it lately, highest first, as the server lists
// them; below, in a section of their own, the players whose rating is still provisional (a
// "?" beside it), so that a new server's players are listed from their first rated game; a tab
// for each speed. Renders from the state (`state.leaderboard`).

import { html, render } from "./dom.js";
import { noticeMarkup } from "./game.js";
import { SPEEDS } from "./protocol.js";
import { profileHref, speedName } from "./players.js";

export class LeaderboardScreen {
  constructor(root) {
    this.root = root;
    render(root, html`<div class="leaderboard" data-testid="leaderboard">
      <div class="notice" data-slot="notice" data-testid="notice" aria-live="polite"></div>
      <section class="card">
        <h1>Leaderboard</h1>
        <nav class="tabs" data-slot="tabs" aria-label="Speeds"></nav>
        <p class="muted small" data-slot="about"></p>
        <div data-slot="list" data-testid="leaders"></div>
      </section>
      <section class="card" data-slot="newcomers" data-testid="provisional" hidden>
        <h2>Provisional ratings</h2>
        <p class="muted small">Players whose rating is still settling (a "?" beside it: a few rated games against several opponents settle it), who played lately.</p>
        <div data-slot="provisional"></div>
      </section></div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
  }

  render(state) {
    const view = state.leaderboard;
    render(this.slots.notice, noticeMarkup(state.notice));
    this.slots.notice.dataset.kind = state.notice?.kind ?? "";
    render(this.slots.tabs, html`${SPEEDS.map((s) => html`<a href="#/leaderboard/${s}" data-testid="tab-${s}"
      ${s === view.speed && html`aria-current="page"`}>${speedName(s)}</a>`)}`);
    const board = view.data;
    render(this.slots.about, html`${board
      ? `Players whose ${view.speed} rating is no longer provisional and who played a rated ${view.speed} game in the last ${board.weeks} weeks${board.opponents ? `, and played rated ${view.speed} games against at least ${board.opponents} different opponents` : ""}.`
      : ""}`);
    if (view.error) {
      render(this.slots.list, html`<p class="error">${view.error}</p>`);
      return;
    }
    if (!board) {
      render(this.slots.list, html`<p class="muted">Loading…</p>`);
      return;
    }
    const provisional = board.provisional ?? [];
    render(this.slots.list, board.players.length === 0
      ? html`<p class="muted" data-testid="no-leaders">Nobody yet: play rated ${view.speed} games to appear here${provisional.length ? " (the provisional ratings are below)" : ""}.</p>`
      : table(board.players, "leader", ""));
    this.slots.newcomers.hidden = provisional.length === 0;
    render(this.slots.provisional, provisional.length ? table(provisional, "newcomer", "?") : html``);
  }
}

/** The players `rows` (LeaderboardEntry) as a table, each name a link (its test id `testid`),
 * each rating followed by `mark`. */
function table(rows, testid, mark) {
  return html`<table class="figures leaders"><thead><tr><th scope="col">#</th><th scope="col">Player</th>
      <th scope="col">Rating</th><th scope="col">Deviation</th><th scope="col">Games</th></tr></thead>
    <tbody>${rows.map((p, i) => html`<tr data-player="${p.name}">
      <td>${i + 1}</td>
      <th scope="row"><a href="${profileHref(p.name)}" data-testid="${testid}">${p.name}</a>${p.bot && html` <small class="bot-mark" title="a bot">bot</small>`}</th>
      <td data-testid="${testid}-rating">${p.rating}${mark}</td><td>±${p.rd}</td><td>${p.games}</td></tr>`)}</tbody></table>`;
}
