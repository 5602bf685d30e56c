// The tournaments page (#/tournaments): the upcoming and running tournaments (then the last
// ended), each linking to its page (tournament.js), and the form that creates one (an account
// only). The form is drawn once: a refusal (`error` to `tournament_create`) is shown beside it
// and what was typed stays; the new tournament's page opens once the server made it.
// docs/protocol.md (tournament_create, tournaments).

import { html, render } from "./dom.js";
import * as P from "./protocol.js";

/** Ask the list again this often while the page is open (ms). */
const REFRESH_MS = 15_000;

/** A clock as shown: "3+2". */
export const timeText = (time) => `${time.base % 60 === 0 ? time.base / 60 : (time.base / 60).toFixed(1)}+${time.increment}`;

/** "in 4 min 05 s", "1 h 02 min", "0 s": the time left until `ms` (a duration). */
export function countdownText(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  return m > 0 ? `${m} min ${sec} s` : `${s} s`;
}

/** The server's clock now, in this browser's terms (`state.server.offset`: server - local). */
export const serverNow = (state, now = Date.now()) => now + (state.server?.offset ?? 0);

/** A tournament's kind, game type, clock and rating in a few words. */
export function settingsText(s) {
  const kind = s.kind === "swiss" ? `Swiss, ${s.rounds} rounds` : "Arena";
  const range = s.rating_min !== null || s.rating_max !== null
    ? ` · rating ${s.rating_min ?? ""}–${s.rating_max ?? ""}` : "";
  return `${kind} · ${s.game_type} · ${timeText(s.time)} · ${s.rated ? "rated" : "casual"}${range}`;
}

export class TournamentsScreen {
  /** `send(message)`: sent on the socket; `go(route)`: open a page. */
  constructor(root, { send, go }) {
    this.send = send;
    this.go = go;
    this.list = null;
    this.error = null;
    this.creating = null; // the name of the tournament asked for, until it is made or refused
    this.asked = 0;
    this.state = null;
    render(root, html`
      <div class="tournaments" data-testid="tournaments">
        <section class="card">
          <h2>Tournaments</h2>
          <div data-slot="list" data-testid="tournament-list"><p class="muted">Loading…</p></div>
        </section>
        <form class="card create" data-testid="tournament-form" novalidate>
          <h2>Create a tournament</h2>
          <p class="muted small" data-slot="who" data-testid="tournament-who"></p>
          <label>Name <input name="name" maxlength="60" data-testid="tournament-name"></label>
          <fieldset class="colors"><legend>Kind</legend>
            <label><input type="radio" name="kind" value="arena" checked data-testid="kind-arena"> Arena</label>
            <label><input type="radio" name="kind" value="swiss" data-testid="kind-swiss"> Swiss</label>
          </fieldset>
          <label>Game type <select name="game_type" data-testid="tournament-type">
            ${P.GAME_TYPES.map((t) => html`<option value="${t}" ${t === "Base+MLP" && "selected"}>${t}</option>`)}</select></label>
          <label>Minutes each <input name="base" type="number" step="0.5" value="3" data-testid="tournament-base"></label>
          <label>+ seconds a move <input name="increment" type="number" step="1" value="2" data-testid="tournament-increment"></label>
          <fieldset class="colors rated"><legend>Games</legend>
            <label><input type="radio" name="rated" value="rated" checked data-testid="tournament-rated"> Rated</label>
            <label><input type="radio" name="rated" value="casual" data-testid="tournament-casual"> Casual</label>
          </fieldset>
          <label>Starts (empty: now) <input name="starts" type="datetime-local" data-testid="tournament-starts"></label>
          <label>Duration, minutes (an arena) <input name="minutes" type="number" value="60" data-testid="tournament-minutes"></label>
          <label>Rounds (a Swiss) <input name="rounds" type="number" value="7" data-testid="tournament-rounds"></label>
          <fieldset class="range"><legend>Players' rating (optional)</legend>
            <label>From <input name="rating_min" inputmode="numeric" placeholder="any" data-testid="tournament-rating-min"></label>
            <label>To <input name="rating_max" inputmode="numeric" placeholder="any" data-testid="tournament-rating-max"></label>
          </fieldset>
          <label>Most players <input name="max_players" type="number" value="64" data-testid="tournament-cap"></label>
          <p class="error" data-slot="error" data-testid="tournament-error" role="alert" hidden></p>
          <button type="submit" class="primary" data-testid="tournament-create">Create tournament</button>
        </form>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.form = root.querySelector("form");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.create();
    });
    this.connected();
  }

  connected() {
    this.asked = Date.now();
    this.send(P.GetTournaments());
  }

  tick(state, now) {
    if (now - this.asked > REFRESH_MS) this.connected();
  }

  received(message) {
    if (message.type === P.ServerType.TOURNAMENTS) this.list = message.tournaments;
    else if (message.type === P.ServerType.TOURNAMENT && this.creating === message.summary.name) {
      this.creating = null;
      this.go({ page: "tournament", id: message.summary.id });
      return;
    } else if (message.type === P.ServerType.ERROR && message.request === P.ClientType.TOURNAMENT_CREATE) {
      this.creating = null;
      this.error = message.message;
    }
    this.show();
  }

  render(state) {
    this.state = state;
    this.show();
  }

  /** The request the form asks for, or a reason it cannot be sent. */
  request() {
    const f = new FormData(this.form);
    const number = (name) => (String(f.get(name) ?? "").trim() === "" ? null : Number(f.get(name)));
    const starts = String(f.get("starts") ?? "");
    const when = starts ? serverNow(this.state, new Date(starts).getTime()) : 0;
    const values = {
      name: String(f.get("name") ?? ""),
      kind: f.get("kind") === "swiss" ? "swiss" : "arena",
      game_type: String(f.get("game_type")),
      time: P.TimeControl({ kind: "clock", base: Math.round((number("base") ?? 0) * 60), increment: number("increment") ?? 0 }),
      rated: f.get("rated") === "rated",
      starts: when,
      minutes: number("minutes") ?? 0,
      rounds: number("rounds") ?? 0,
      rating_min: number("rating_min"),
      rating_max: number("rating_max"),
      max_players: number("max_players") ?? 0,
    };
    const whole = ["minutes", "rounds", "rating_min", "rating_max", "max_players", "starts"];
    const bad = whole.find((k) => values[k] !== null && !Number.isInteger(values[k]));
    if (bad || !Number.isInteger(values.time.increment)) return `${bad ?? "increment"}: a whole number, please`;
    return P.CreateTournament(values);
  }

  create() {
    const request = this.request();
    if (typeof request === "string") {
      this.error = request;
    } else {
      this.error = null;
      this.creating = request.name.split(/\s+/).filter(Boolean).join(" ");
      if (!this.send(request)) this.creating = null;
    }
    this.show();
  }

  show() {
    const me = this.state?.me;
    const signedIn = Boolean(me?.account);
    render(this.slots.who, signedIn ? html`Made by <b>${me.nickname}</b>.` : html`Sign up or log in to create a tournament.`);
    this.form.querySelector("[type=submit]").disabled = !signedIn || this.creating !== null;
    render(this.slots.error, html`${this.error ?? ""}`);
    this.slots.error.hidden = !this.error;
    if (this.list === null) return;
    render(this.slots.list, tournamentList(this.list, this.state ? serverNow(this.state) : Date.now()));
  }
}

/** The tournaments listed (`tournaments`), each linking to its page; `now`: server time. */
export function tournamentList(list, now) {
  const rows = list.map((t) => html`<li data-testid="tournament-row" data-status="${t.status}" data-id="${t.id}">
    <a href="#/tournament/${t.id}" data-testid="tournament-link">${t.name}</a>
    <span class="muted small">${settingsText(t)} · ${t.players}/${t.max_players} players ·
      ${t.status === "upcoming" ? `starts in ${countdownText(t.starts - now)}` : t.status === "running" ? "running" : "over"}</span></li>`);
  return rows.length ? html`<ul class="tournament-list">${rows}</ul>` : html`<p class="muted">No tournament yet: create one.</p>`;
}

/** The app's state with the tournaments listed (for the lobby's card). */
export const tournamentsReceived = (state, list) => ({ ...state, tournaments: list });

/** The lobby's card: the upcoming and running tournaments (null: not heard of yet). */
export function tournamentsCard(state) {
  if (!state.tournaments) return html`<p class="muted">Loading…</p>`;
  const current = state.tournaments.filter((t) => t.status !== "over").slice(0, 5);
  return html`${current.length ? tournamentList(current, serverNow(state)) : html`<p class="muted">None upcoming.</p>`}
    <a class="button" href="#/tournaments" data-testid="all-tournaments">All tournaments, or create one</a>`;
}
