// A tournament's page (#/tournament/ID): its settings, the countdown to its start (then to its
// end, or its round), its players and live standings (points, each game's points with the ones
// a streak doubled marked, the streak on, status), its games in progress to watch, the winner
// once it is over, and the buttons to join, pause or leave. The page watches the tournament
// (`tournament_watch`) while open: the server sends `tournament` on every change. Being paired
// (`tournament_game`) opens the game: app.js does that, wherever one is. docs/protocol.md.

import { html, render } from "./dom.js";
import { profileHref } from "./players.js";
import * as P from "./protocol.js";
import { countdownText, serverNow, settingsText } from "./tournaments.js";

const STATUS_WORDS = Object.freeze({ waiting: "waiting", playing: "playing", paused: "paused" });

/** Each of an arena's game points (2 a win, 1 a draw, 0 a loss, doubled on a streak of two
 * wins or more) with whether a streak doubled them: [{points, doubled}]. */
export function markedScores(scores, kind = "arena") {
  if (kind !== "arena") return scores.map((points) => ({ points, doubled: false }));
  const wins = [];
  return scores.map((points, n) => {
    const doubled = n >= 2 && wins[n - 1] && wins[n - 2];
    wins.push((doubled ? points / 2 : points) === 2);
    return { points, doubled: Boolean(doubled) && points > 0 }; // (a loss on a streak: nothing to mark)
  });
}

/** The games in progress, from the standings: [{game, players: [name, name]}]. */
export function gamesInProgress(standings) {
  const games = new Map();
  for (const s of standings) {
    if (s.game && s.status === "playing") games.set(s.game, [...(games.get(s.game) ?? []), s.name]);
  }
  return [...games].map(([game, players]) => ({ game, players }));
}

export class TournamentScreen {
  /** `send(message)`: sent on the socket. */
  constructor(root, route, { send }) {
    this.id = route.id;
    this.send = send;
    this.tournament = null;
    this.error = null;
    this.state = null;
    render(root, html`
      <div class="tournament" data-testid="tournament" data-status="loading">
        <section class="card">
          <h2 data-slot="name" data-testid="tournament-title">Tournament</h2>
          <p class="muted" data-slot="settings" data-testid="tournament-settings"></p>
          <p><b data-slot="clock" data-testid="tournament-clock"></b> · <span data-slot="count" data-testid="tournament-players"></span></p>
          <p class="winner" data-slot="winner" data-testid="tournament-winner" hidden></p>
          <div class="form-actions" data-slot="actions"></div>
          <p class="error" data-slot="error" data-testid="tournament-error" role="alert" hidden></p>
        </section>
        <section class="card">
          <h3>Standings</h3>
          <table class="figures standings" data-testid="standings">
            <thead><tr><th>#</th><th>Player</th><th>Rating</th><th>Points</th><th>Games</th><th>Status</th></tr></thead>
            <tbody data-slot="standings"></tbody></table>
        </section>
        <section class="card">
          <h3>Games in progress</h3>
          <ul data-slot="games" data-testid="tournament-games"></ul>
        </section>
      </div>`);
    this.el = root.querySelector("[data-testid=tournament]");
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    root.addEventListener("click", (event) => {
      const button = event.target.closest("[data-tour]");
      if (!button) return;
      this.error = null;
      const ask = button.dataset.tour === "join" ? P.JoinTournament : P.LeaveTournament;
      this.send(ask(this.id));
      this.show();
    });
    this.connected();
  }

  connected() {
    this.send(P.WatchTournament(this.id));
  }

  destroy() {
    this.send(P.WatchTournament(this.id, false));
  }

  received(message) {
    if (message.type === P.ServerType.TOURNAMENT) {
      if (message.summary.id !== this.id) return;
      this.tournament = message;
    } else if (message.type === P.ServerType.ERROR) {
      this.error = message.message;
    }
    this.show();
  }

  render(state) {
    this.state = state;
    this.show();
  }

  tick(state, now) {
    this.state = state;
    this.showClock(now);
  }

  /** My line in the standings (null: not a player). */
  mine() {
    const me = this.state?.me?.player;
    return this.tournament?.standings.find((s) => s.player === me) ?? null;
  }

  showClock(now = Date.now()) {
    const t = this.tournament;
    if (!t) return;
    const s = t.summary;
    const at = this.state ? serverNow(this.state, now) : now;
    let text = "Over";
    if (s.status === "upcoming") text = `Starts in ${countdownText(s.starts - at)}`;
    else if (s.status === "running" && s.kind === "swiss") text = `Round ${s.round} of ${s.rounds}`;
    else if (s.status === "running") text = `Running: ends in ${countdownText(s.ends - at)}`;
    render(this.slots.clock, html`${text}`);
  }

  show() {
    render(this.slots.error, html`${this.error ?? ""}`);
    this.slots.error.hidden = !this.error;
    const t = this.tournament;
    if (!t) return;
    const s = t.summary;
    this.el.dataset.status = s.status;
    render(this.slots.name, html`${s.name}`);
    render(this.slots.settings, html`${settingsText(s)} · made by ${s.creator}`);
    render(this.slots.count, html`${s.players} / ${s.max_players} players`);
    this.showClock();
    const winner = s.status === "over" && t.winner ? t.standings.find((w) => w.player === t.winner) : null;
    render(this.slots.winner, winner ? html`Winner: <b>${winner.name}</b>` : html``);
    this.slots.winner.hidden = !winner;
    this.showActions(s);
    render(this.slots.standings, html`${t.standings.map((line, n) => this.standing(line, n, s.kind))}`);
    const games = gamesInProgress(t.standings);
    render(this.slots.games, games.length
      ? html`${games.map((g) => html`<li data-testid="tournament-game" data-game="${g.game}">${g.players.join(" – ")}
          <a href="#/game/${g.game}" data-testid="watch-game">Watch</a></li>`)}`
      : html`<li class="muted">None now.</li>`);
  }

  showActions(s) {
    const me = this.state?.me;
    const line = this.mine();
    let buttons = html``;
    if (s.status !== "over" && me?.account) {
      if (!line || line.status === "paused") {
        buttons = html`<button type="button" class="primary" data-tour="join" data-testid="tournament-join">${line ? "Come back" : "Join"}</button>`;
      } else {
        buttons = html`<button type="button" data-tour="leave" data-testid="tournament-leave">${s.status === "running" ? "Pause" : "Leave"}</button>`;
      }
    } else if (s.status !== "over" && me && !me.account) {
      buttons = html`<span class="muted small">Sign up or log in to play in a tournament.</span>`;
    }
    render(this.slots.actions, buttons);
  }

  standing(line, n, kind) {
    const marked = markedScores(line.scores, kind);
    const mine = line.player === this.state?.me?.player;
    const points = kind === "swiss"
      ? html`${line.points} <small class="muted" title="Buchholz, Sonneborn-Berger">(${line.buchholz}, ${line.sonneborn_berger})</small>`
      : html`${line.points}`;
    return html`<tr data-testid="standing" data-name="${line.name}" data-points="${line.points}" data-status="${line.status}" class="${mine ? "me" : ""}">
      <td>${n + 1}</td>
      <td><a href="${profileHref(line.name)}">${line.name}</a>${line.streak ? html` <span class="streak" data-testid="streak" title="On a streak: the next win counts double">🔥</span>` : ""}</td>
      <td>${line.rating ?? "?"}</td>
      <td data-testid="points">${points}</td>
      <td data-testid="scores">${marked.map((m) => html`<span class="${m.doubled ? "score doubled" : "score"}" data-doubled="${m.doubled}">${m.points}</span> `)}${kind === "swiss" && line.byes ? html`<small class="muted" data-testid="byes" title="A round without a game, for a point">${line.byes === 1 ? "1 bye" : `${line.byes} byes`}</small>` : ""}</td>
      <td data-testid="standing-status">${STATUS_WORDS[line.status] ?? line.status}${line.game ? html` <a href="#/game/${line.game}">watch</a>` : ""}</td>
    </tr>`;
  }
}
