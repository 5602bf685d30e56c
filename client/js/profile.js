// A player's profile (#/@/NAME): their rating in each speed (with "?" while provisional), the
// history of their ratings as a chart (js/chart.js: uPlot), wins, draws and losses, their record
// against each of the server's bot levels, their average accuracy per speed over their games with a
// computer analysis (js/evaluation.js shows one), their puzzle rating and newest tries, the tournaments
// they played in (newest first: rank of how many, points, date, a link to its page), their games
// newest first, a page at a time (result, opponent and rating, game type, time control, date, the
// tournament it was a game of, a link to review), and a download of all
// their games as UHP GameStrings. Renders from the state (`state.profile`).

import { RatingChart } from "./chart.js";
import { describeTime } from "./clock.js";
import { html, render } from "./dom.js";
import { noticeMarkup } from "./game.js";
import { PROFILE_PAGE, SPEEDS } from "./protocol.js";
import { gameOutcome, gamesHref, profileHref, ratingText, speedName, speedOf } from "./players.js";

export class ProfileScreen {
  constructor(root) {
    this.root = root;
    render(root, html`<div class="profile" data-testid="profile">
      <div class="notice" data-slot="notice" data-testid="notice" aria-live="polite"></div>
      <section class="card profile-head" data-slot="head"></section>
      <div class="profile-grid">
        <section class="card"><h2>Ratings</h2><div data-slot="ratings" data-testid="ratings"></div></section>
        <section class="card chart-card"><h2>Rating history</h2>
          <div class="chart" data-slot="chart" data-testid="rating-chart" role="img" aria-label="Rating history chart"></div>
          <p class="muted small" data-slot="chart-note"></p></section>
        <section class="card"><h2>Results</h2><div data-slot="record" data-testid="record"></div></section>
        <section class="card"><h2>Against the bots</h2><div data-slot="levels" data-testid="levels"></div></section>
        <section class="card"><h2>Accuracy</h2><div data-slot="accuracy" data-testid="accuracy"></div></section>
        <section class="card"><h2>Puzzles</h2><div data-slot="puzzles" data-testid="profile-puzzles"></div></section>
        <section class="card"><h2>Tournaments</h2><div data-slot="tournaments" data-testid="profile-tournaments"></div></section>
      </div>
      <section class="card"><h2>Games <span class="count" data-slot="total"></span></h2>
        <div data-slot="games" data-testid="profile-games"></div>
        <div class="pager" data-slot="pager"></div></section>
    </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.chart = new RatingChart(this.slots.chart);
  }

  render(state) {
    const view = state.profile;
    render(this.slots.notice, noticeMarkup(state.notice));
    this.slots.notice.dataset.kind = state.notice?.kind ?? "";
    const p = view.data;
    if (view.error && !p) {
      render(this.slots.head, html`<h1>${view.name}</h1><p class="error" data-testid="profile-error">${view.error}</p>`);
      return;
    }
    if (!p) {
      render(this.slots.head, html`<h1>${view.name}</h1><p class="muted">Loading…</p>`);
      return;
    }
    render(this.slots.head, html`<div class="profile-title"><h1 data-testid="profile-name">${p.name}</h1>
      ${p.bot && html`<span class="tag" title="a bot account">bot</span>`}</div>
      <p class="muted">Joined ${new Date(p.created).toLocaleDateString()} · ${p.total_games} game${p.total_games === 1 ? "" : "s"}
      · <a href="${gamesHref(p.name)}" download data-testid="download">download all games</a> (UHP GameStrings)</p>`);

    const bySpeed = new Map(p.ratings.map((r) => [r.speed, r]));
    render(this.slots.ratings, p.ratings.length === 0 ? html`<p class="muted">No rated game yet.</p>`
      : html`<table class="figures"><thead><tr><th scope="col">Speed</th><th scope="col">Rating</th><th scope="col">Deviation</th><th scope="col">Games</th></tr></thead>
        <tbody>${SPEEDS.filter((s) => bySpeed.has(s)).map((s) => {
          const r = bySpeed.get(s);
          return html`<tr data-speed="${s}"><th scope="row"><a href="#/leaderboard/${s}">${speedName(s)}</a></th>
            <td data-testid="rating-${s}" ${r.provisional && html`title="provisional: too few games yet"`}>${ratingText(r.rating, r.provisional)}</td>
            <td>±${r.rd}</td><td>${r.games}</td></tr>`;
        })}</tbody></table>`);

    this.chart.draw(p.history);
    render(this.slots["chart-note"], html`${p.history.length === 0 ? "No rated game yet: the chart shows once one is played."
      : `${p.history.length} rated game${p.history.length === 1 ? "" : "s"}.`}`);

    const accuracy = p.accuracy ?? [];
    render(this.slots.accuracy, accuracy.length === 0 ? html`<p class="muted">No game with a computer analysis yet (ask for one on a game's review).</p>`
      : html`<table class="figures"><thead><tr><th scope="col">Speed</th><th scope="col">Accuracy</th><th scope="col">Games analysed</th></tr></thead>
        <tbody>${accuracy.map((a) => html`<tr data-speed="${a.speed ?? "untimed"}"><th scope="row">${a.speed ? speedName(a.speed) : "No clock"}</th>
          <td data-testid="accuracy-${a.speed ?? "untimed"}">${a.accuracy.toFixed(1)}</td><td>${a.games}</td></tr>`)}</tbody></table>`);

    const tries = p.puzzle_tries ?? [];
    render(this.slots.puzzles, !p.puzzles ? html`<p class="muted">No puzzle tried yet (<a href="#/puzzles">puzzles</a>).</p>`
      : html`<p>Rating <b data-testid="profile-puzzle-rating">${ratingText(p.puzzles.rating, p.puzzles.provisional)}</b>
        · ${p.puzzles.solved} of ${p.puzzles.tries} solved · streak ${p.puzzles.streak}</p>
        <ol class="moves">${tries.map((t) => html`<li data-testid="profile-puzzle-try"><a href="#/puzzles/${t.puzzle}">${t.theme}</a>
          ${t.solved ? "solved" : "failed"} · ${t.rating} (${t.change >= 0 ? "+" : ""}${t.change}) · ${new Date(t.at).toLocaleDateString()}</li>`)}</ol>`);

    const played = p.tournaments ?? [];
    render(this.slots.tournaments, played.length === 0 ? html`<p class="muted">No tournament played yet (<a href="#/tournaments">tournaments</a>).</p>`
      : html`<ul class="moves">${played.map((t) => html`<li data-tournament="${t.id}" data-testid="profile-tournament">
        <a href="#/tournament/${t.id}">${t.name}</a> <small>${t.kind === "swiss" ? "Swiss" : "arena"}</small>
        · <span data-testid="tournament-rank">${ordinal(t.rank)} of ${t.players}</span> · ${t.points} point${t.points === 1 ? "" : "s"}
        · ${new Date(t.ended).toLocaleDateString()}</li>`)}</ul>`);

    render(this.slots.record, html`<dl class="record">
      <div><dt>Wins</dt><dd data-testid="wins">${p.wins}</dd></div>
      <div><dt>Draws</dt><dd data-testid="draws">${p.draws}</dd></div>
      <div><dt>Losses</dt><dd data-testid="losses">${p.losses}</dd></div></dl>`);

    render(this.slots.levels, p.levels.length === 0 ? html`<p class="muted">No game against the server's bots.</p>`
      : html`<table class="figures"><thead><tr><th scope="col">Bot</th><th scope="col">Won</th><th scope="col">Drawn</th><th scope="col">Lost</th></tr></thead>
        <tbody>${p.levels.map((l) => html`<tr data-level="${l.level}"><th scope="row">${l.level}</th>
          <td>${l.wins}</td><td>${l.draws}</td><td>${l.losses}</td></tr>`)}</tbody></table>`);

    render(this.slots.total, html`${String(p.total_games)}`);
    render(this.slots.games, p.games.length === 0 ? html`<p class="muted">No finished game yet.</p>`
      : html`<ul class="games profile-games">${p.games.map(gameRow)}</ul>`);
    const pages = Math.max(1, Math.ceil(p.total_games / PROFILE_PAGE));
    render(this.slots.pager, pages <= 1 ? html`` : html`
      <button type="button" data-action="profilePage" data-page="${p.page - 1}" data-testid="newer" ${p.page <= 0 && "disabled"}>Newer</button>
      <span data-testid="page">Page ${p.page + 1} of ${pages}</span>
      <button type="button" data-action="profilePage" data-page="${p.page + 1}" data-testid="older" ${p.page + 1 >= pages && "disabled"}>Older</button>`);
  }

  destroy() {
    this.chart.destroy();
  }
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  return `${n}${teen ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th"}`;
}

/** A game of the profile (ArchivedGame), from the profile's player's side. */
function gameRow(g) {
  const { result, change } = gameOutcome(g);
  const opponent = g.opponent_level
    ? html`${g.opponent}`
    : html`<a href="${profileHref(g.opponent)}">${g.opponent}</a>`;
  const rating = g.opponent_rating !== null && g.opponent_rating !== undefined && html` <small>(${g.opponent_rating})</small>`;
  const kind = g.rated ? `rated ${speedOf(g.time) ?? ""}`.trim() : "casual";
  return html`<li data-game="${g.id}" data-outcome="${g.outcome}">
    <span class="players"><span class="outcome ${g.outcome}">${result}</span>
      ${change && html`<small class="change" data-testid="change">${change}</small>`}
      <small>as ${g.color} vs</small> ${opponent}${rating}</span>
    <span class="meta">${g.game_type} · ${describeTime(g.time)} · ${kind} · ${g.plies} moves · ${new Date(g.ended).toLocaleDateString()}
      ${g.tournament && html`· <a href="#/tournament/${g.tournament}" data-testid="game-tournament">${g.tournament_name ?? "tournament"}</a>`}</span>
    <span class="row-actions"><a class="button" href="#/review/${g.id}" data-testid="review-game">Review</a></span></li>`;
}
