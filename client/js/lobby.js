// The lobby screen: who you are, "play a bot now", the create form, the live lists of open
// games, bot accounts online (to challenge) and games in progress, and your recent games.
// Renders from the state; clicks and submits are bound by input.js (data-action / data-form)
// and handled in app.js.

import { Opponent } from "./protocol.js";
import { describeTime } from "./clock.js";
import { ago, html, render } from "./dom.js";
import { noticeMarkup } from "./game.js";
import { pieceSvg } from "./bugs.js";
import { toPixel } from "./hex.js";
import { isBusy, nicknameLength } from "./views.js";
import { dailyCard } from "./puzzles.js";
import { tournamentsCard } from "./tournaments.js";
import { hasProfile, profileHref, rangeText, seatRating, speedOf, whyNotJoin } from "./players.js";

/** Time controls offered by the create form: value -> [label, TimeControl]. */
export const TIME_CHOICES = [
  ["none", "No clock", { kind: "none", base: 0, increment: 0, days: 0 }],
  ["3+2", "3 min + 2 s", { kind: "clock", base: 180, increment: 2, days: 0 }],
  ["5+5", "5 min + 5 s", { kind: "clock", base: 300, increment: 5, days: 0 }],
  ["10+10", "10 min + 10 s", { kind: "clock", base: 600, increment: 10, days: 0 }],
  ["20+20", "20 min + 20 s", { kind: "clock", base: 1200, increment: 20, days: 0 }],
  ["1d", "1 day per move", { kind: "days", base: 0, increment: 0, days: 1 }],
  ["3d", "3 days per move", { kind: "days", base: 0, increment: 0, days: 3 }],
];
const timeChoice = (value) => TIME_CHOICES.find(([v]) => v === value)?.[2];

/** For each kind of time control, the one a challenge asks for when the bot does not play the
 * kind chosen in the create form. */
export const TIME_BY_KIND = Object.freeze({
  none: timeChoice("none"), clock: timeChoice("5+5"), days: timeChoice("1d"),
});

/** The custom clock's bounds (the server's: base 1 s to 3 h, increment up to 10 min). */
export const CUSTOM = Object.freeze({ maxMinutes: 180, maxIncrement: 600 });

/** A custom clock of `minutes` (decimals allowed) and `increment` seconds, kept within the
 * server's bounds; null when either is not a number. */
export function customTime(minutes, increment) {
  const base = Math.round(Number(minutes) * 60);
  const plus = Math.round(Number(increment));
  if (!Number.isFinite(base) || !Number.isFinite(plus) || String(minutes).trim() === "") return null;
  return {
    kind: "clock",
    base: Math.min(Math.max(base, 1), CUSTOM.maxMinutes * 60),
    increment: Math.min(Math.max(plus, 0), CUSTOM.maxIncrement),
    days: 0,
  };
}

/** The create form's game type, time control (a preset, or "custom": base and increment) and
 * colour, from its FormData. */
export function formChoice(data) {
  const custom = data.get("time") === "custom" ? customTime(data.get("minutes"), data.get("increment") ?? 0) : null;
  return {
    game_type: String(data.get("game_type")),
    time: { ...(custom ?? timeChoice(data.get("time")) ?? TIME_BY_KIND.none) },
    color: String(data.get("color") ?? "random"),
  };
}

const KIND_WORDS = { none: "no clock", clock: "clock", days: "days per move" };

/** Chosen at first in the forms, when the server plays them (the welcome's game types and
 * levels fill the forms). */
const FIRST_GAME_TYPE = "Base+MLP";
const FIRST_LEVEL = "easy";

/** Put `options` (markup) in `select`, keeping the choice made if it is still offered; a
 * select with no option is disabled. */
function renderOptions(select, options) {
  const chosen = select.value;
  render(select, options);
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
  select.disabled = select.options.length === 0;
}

export class LobbyScreen {
  constructor(root) {
    this.root = root;
    render(root, html`
      <div class="lobby" data-testid="lobby">
        <section class="hero">
          <div class="hero-text">
            <h1>Play Hive</h1>
            <p>The bug game with no board: surround the opponent's Queen Bee. Play people or bots,
            watch games live, and see how a bot thinks. New to Hive? <a href="#/rules" data-testid="rules-link">How to play</a>.</p>
            <div class="who" data-slot="who"></div>
          </div>
          <div class="hero-hive" aria-hidden="true">${heroHive()}</div>
          <form class="quick card" data-form="playBot" data-testid="quick-bot">
            <h2>Quick game</h2>
            <label>Bot level
              <select name="level" data-slot="levels" disabled></select>
            </label>
            <button type="submit" class="primary big" data-testid="play-bot" disabled>Play a bot now</button>
            <small>Base+MLP, no clock, random colour</small>
          </form>
        </section>
        <div class="notice lobby-notice" data-slot="notice" data-testid="notice" aria-live="polite"></div>
        <div class="lobby-grid">
          <form class="card create" data-form="create" data-testid="create-form">
            <h2>Create a game</h2>
            <label>Game type
              <select name="game_type" data-slot="gameTypes" disabled></select>
            </label>
            <label>Time control
              <select name="time" data-testid="time">${TIME_CHOICES.map(([v, label]) => html`<option value="${v}" ${v === "5+5" && "selected"}>${label}</option>`)}
                <option value="custom">Custom: minutes + seconds a move</option></select>
            </label>
            <div class="custom-time">
              <label>Minutes each
                <input name="minutes" type="number" min="0.5" max="${CUSTOM.maxMinutes}" step="0.5" value="7" data-testid="minutes"></label>
              <label>+ seconds a move
                <input name="increment" type="number" min="0" max="${CUSTOM.maxIncrement}" step="1" value="3" data-testid="increment"></label>
            </div>
            <fieldset class="colors"><legend>Your colour</legend>
              <label><input type="radio" name="color" value="random" checked> Random</label>
              <label><input type="radio" name="color" value="white"> White</label>
              <label><input type="radio" name="color" value="black"> Black</label>
            </fieldset>
            <label>Opponent
              <select name="opponent" data-slot="opponents" disabled></select>
            </label>
            <fieldset class="colors rated"><legend>Game</legend>
              <label><input type="radio" name="rated" value="casual" checked data-testid="casual"> Casual</label>
              <label><input type="radio" name="rated" value="rated" data-testid="rated"> Rated</label>
              <small class="muted" data-slot="rated-note" data-testid="rated-note"></small>
            </fieldset>
            <fieldset class="range"><legend>Opponent's rating (an open game; optional)</legend>
              <label>From <input name="rating_min" inputmode="numeric" pattern="[0-9]{1,4}" maxlength="4" placeholder="any" data-testid="rating-min"></label>
              <label>To <input name="rating_max" inputmode="numeric" pattern="[0-9]{1,4}" maxlength="4" placeholder="any" data-testid="rating-max"></label>
            </fieldset>
            <button type="submit" class="primary" data-testid="create" disabled>Create game</button>
          </form>
          <section class="card">
            <h2>Open games <span class="count" data-slot="open-count"></span></h2>
            <div data-slot="open" data-testid="open-games"></div>
          </section>
          <section class="card" data-slot="botsCard" hidden>
            <h2>Bots online <span class="count" data-slot="bots-count"></span></h2>
            <div data-slot="bots" data-testid="bots"></div>
          </section>
          <section class="card">
            <h2>Games in progress <span class="count" data-slot="live-count"></span></h2>
            <div data-slot="live" data-testid="live-games"></div>
          </section>
          <section class="card" data-testid="lobby-tournaments">
            <h2>Tournaments</h2>
            <div data-slot="tournaments"></div>
          </section>
          <section class="card daily" data-testid="daily-puzzle">
            <h2>Puzzle of the day</h2>
            <div data-slot="daily"></div>
          </section>
          <section class="card">
            <h2>Your games</h2>
            <div data-slot="mine" data-testid="my-games"></div>
            <form class="goto" data-form="openGame">
              <input name="id" placeholder="game id" pattern="[0-9a-z]{8}" aria-label="Game id" required>
              <button type="submit" name="how" value="watch">Watch</button>
              <button type="submit" name="how" value="review">Review</button>
            </form>
          </section>
        </div>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.form = root.querySelector("form[data-form=create]");
    this.submits = [...root.querySelectorAll("form[data-form=playBot] [type=submit], form[data-form=create] [type=submit]")];
  }

  /** The forms' choices, from what the server plays (its welcome); the forms wait for it. */
  renderChoices(server) {
    const types = server?.gameTypes ?? [];
    const levels = server?.levels ?? [];
    renderOptions(this.slots.gameTypes, html`${types.map((t) => html`<option ${t === FIRST_GAME_TYPE && "selected"}>${t}</option>`)}`);
    renderOptions(this.slots.levels, html`${levels.map((l) => html`<option value="${l}" ${l === FIRST_LEVEL && "selected"}>${l}</option>`)}`);
    renderOptions(this.slots.opponents, server ? html`<option value="${Opponent.ANYONE}">Anyone (open game)</option>
      ${levels.map((l) => html`<option value="${Opponent.BOT}:${l}">Bot: ${l}</option>`)}
      <option value="${Opponent.BOTS}">Any bot from outside (a bot account)</option>` : html``);
    for (const button of this.submits) button.disabled = !server;
  }

  /** Rated games are for accounts: a guest sees why the choice is off. */
  renderRated(me) {
    const rated = this.form.querySelector("input[name=rated][value=rated]");
    const account = Boolean(me?.account);
    rated.disabled = !account;
    if (!account && rated.checked) this.form.querySelector("input[name=rated][value=casual]").checked = true;
    render(this.slots["rated-note"], html`${account ? "Rated: with a clock or days per move, not against the server's bots."
      : "Sign up or log in to play rated games."}`);
  }

  render(state, recent) {
    const me = state.me;
    this.renderChoices(state.server);
    this.renderRated(me);
    render(this.slots.who, state.connection.status === "signed-out" || state.editingName
      ? html`<form class="nickname" data-form="nickname"><label>Your nickname
          <input name="nickname" maxlength="${nicknameLength(state)}" required value="${state.nickname}"
          data-testid="nickname" autocomplete="nickname"></label><button type="submit" class="primary">Save</button></form>
          ${state.connection.status === "signed-out" && html`<small class="muted" data-testid="signed-out">You are signed out: choose a nickname to play as a new guest, or log in.</small>`}`
      : me?.account ? html`<span>Playing as <a href="${profileHref(me.nickname)}" data-testid="me">${me.nickname}</a></span>`
        : html`<span>Playing as <b data-testid="me">${me?.nickname ?? state.nickname}</b> (a guest)</span>
         <button type="button" class="link" data-action="editName">change name</button>`);
    render(this.slots.notice, noticeMarkup(state.notice));
    this.slots.notice.dataset.kind = state.notice?.kind ?? "";
    const { open, live, bots, received, openTotal, liveTotal } = state.lobby;
    const count = (shown, total) => (total > shown ? `${shown} of ${total}` : String(shown));
    render(this.slots["open-count"], html`${received && count(open.length, openTotal)}`);
    render(this.slots["bots-count"], html`${received && String(bots.length)}`);
    // bot accounts (bots from outside) are listed when some are online: the server's own bots
    // are in the forms, and a player has no use for how to bring one
    this.slots.botsCard.hidden = bots.length === 0;
    const loading = html`<p class="muted">Loading…</p>`;
    render(this.slots.bots, !received ? loading
      : bots.length === 0 ? html`<p class="muted">No bot account is online.</p>`
        : html`<ul class="games">${bots.map(botRow)}</ul>`);
    render(this.slots["live-count"], html`${received && count(live.length, liveTotal)}`);
    render(this.slots.open, !received ? loading
      : open.length === 0 ? html`<p class="muted">No open game. Create one, and it shows here for others to join.</p>`
        : html`<ul class="games">${open.map((g) => openRow(g, me, state.myRatings))}</ul>`);
    render(this.slots.live, !received ? loading
      : live.length === 0 ? html`<p class="muted">Nobody is playing right now.</p>`
        : html`<ul class="games">${live.map((g) => liveRow(g, me))}</ul>`);
    const mine = new Set(state.myGames);
    const rows = [];
    for (const id of state.myGames) {
      const info = recent.find((g) => g.id === id);
      rows.push(html`<li><span class="players">${info ? `${info.white} – ${info.black}` : `Game ${id}`}</span>
        <span class="meta">in progress</span><span class="row-actions"><a class="button primary" href="#/game/${id}" data-testid="resume">Resume</a></span></li>`);
    }
    for (const g of recent.filter((r) => !mine.has(r.id)).slice(0, 8)) {
      rows.push(html`<li><span class="players">${g.white} – ${g.black}</span>
        <span class="meta">${g.result ?? g.status} · ${ago(g.at)}</span>
        <span class="row-actions">${g.status === "over" ? html`<a class="button" href="#/review/${g.id}">Review</a>` : html`<a class="button" href="#/game/${g.id}">Open</a>`}</span></li>`);
    }
    render(this.slots.tournaments, tournamentsCard(state));
    render(this.slots.daily, state.daily === undefined ? html`<p class="muted">Loading…</p>` : dailyCard(state.daily));
    render(this.slots.mine, rows.length ? html`<ul class="games">${rows}</ul>` : html`<p class="muted">Games you play or watch show here.</p>`);
  }
}

/** A bot account's mark beside its name (the server's bots are named "LEVEL bot" already). */
const botMark = (seat) => seat?.account === "bot" && !seat.bot && html` <small class="bot-mark" title="a bot">bot</small>`;

/** A seat's name (a link to the profile of an account), its rating in the game's speed beside
 * it ("1612?" while provisional). */
export function seatName(seat) {
  if (!seat) return "?";
  const rating = seatRating(seat);
  const name = hasProfile(seat) ? html`<a class="player-link" href="${profileHref(seat.name)}" data-testid="profile-link">${seat.name}</a>` : html`${seat.name}`;
  return html`${name}${rating && html` <small class="rating" data-testid="seat-rating">${rating}</small>`}${botMark(seat)}`;
}

/** "rated blitz" or "casual", and the rating range, of a GameSummary. */
function gameKind(g) {
  const range = rangeText(g.rating_min ?? null, g.rating_max ?? null);
  return html`${g.rated ? html`<small class="rated-tag" data-testid="rated-tag">rated ${speedOf(g.time) ?? ""}</small>` : html`<small>casual</small>`}${range && html` <small class="range" data-testid="range">${range}</small>`}`;
}

function openRow(g, me, ratings = []) {
  const creator = g.white ?? g.black;
  const own = me && creator?.player === me.player;
  const color = g.creator_color === "random" ? "random colour" : `plays ${g.creator_color}`;
  const forBots = g.wants === Opponent.BOTS;
  const whom = forBots && (g.challenge
    ? html` <small class="for-bot" data-testid="for-bot">challenges ${g.challenge.name}</small>`
    : html` <small class="for-bot" data-testid="for-bot">for a bot</small>`);
  const barred = !own && !forBots ? whyNotJoin(g, me, ratings) : null;
  const actions = own
    ? html`<a class="button" href="#/game/${g.id}">Open</a><button type="button" data-action="cancel" data-game="${g.id}">Cancel</button>`
    : forBots ? html`<span class="muted" data-testid="bots-only" title="${`Only ${g.challenge ? `the bot ${g.challenge.name}` : "a bot account"} may join this game`}">bots only</span>`
      : barred ? html`<span class="muted cannot-join" data-testid="cannot-join" title="${`You cannot join: ${barred}`}">${barred}</span>`
        : html`<button type="button" class="primary" data-action="join" data-game="${g.id}" data-testid="join">Join</button>`;
  return html`<li data-game="${g.id}" ${barred && html`data-barred="true"`}><span class="players">${seatName(creator)} <small>${color}</small>${whom}</span>
    <span class="meta">${g.game_type} · ${describeTime(g.time)} · ${gameKind(g)}</span>
    <span class="row-actions">${actions}</span></li>`;
}

/** A bot account online (BotInfo): what it plays, how busy it is, and a Challenge button (the
 * challenge takes the create form's choices where the bot plays them: see challengeTerms). */
function botRow(b) {
  const busy = isBusy(b);
  const title = busy ? `${b.name} plays as many games as it takes at once`
    : `Play ${b.name}: the game type, time control and colour of the form when it plays them`;
  return html`<li data-bot="${b.name}"><span class="players">${b.name}<small class="bot-mark" title="a bot">bot</small>
    <small data-testid="bot-load">${b.playing}/${b.max_games} games</small></span>
    <span class="meta">${b.game_types.join(", ")} · ${b.times.map((k) => KIND_WORDS[k] ?? k).join(", ")}</span>
    <span class="row-actions"><button type="button" class="primary" data-action="challenge" data-bot="${b.name}" data-testid="challenge"
      ${busy && "disabled"} title="${title}">${busy ? "Busy" : "Challenge"}</button></span></li>`;
}

function liveRow(g, me) {
  const mine = me && (g.white?.player === me.player || g.black?.player === me.player);
  return html`<li data-game="${g.id}"><span class="players"><i class="dot white"></i>${seatName(g.white)}
    <i class="dot black"></i>${seatName(g.black)}</span>
    <span class="meta">${g.game_type} · ${describeTime(g.time)} · ${g.rated ? html`<small class="rated-tag">rated</small> · ` : ""}${g.moves} moves${g.spectators > 0 && ` · ${g.spectators} watching`}</span>
    <span class="row-actions"><a class="button${mine ? " primary" : ""}" href="#/game/${g.id}" data-testid="watch">${mine ? "Resume" : "Watch"}</a></span></li>`;
}

/** A little hive for the lobby's header (drawn from constants). */
function heroHive() {
  const pieces = [["wQ", 0, 0], ["bS1", 1, 0], ["wA1", -1, 1], ["bB1", 1, -1], ["wG1", 0, 1], ["bL", 2, -1], ["wP", -1, 0], ["bM", 1, 1]];
  const placed = pieces.map(([name, q, r]) => {
    const { x, y } = toPixel(q, r);
    return html`<g transform="translate(${x} ${y})">${pieceSvg(name)}</g>`;
  });
  return html`<svg viewBox="-110 -110 260 210" width="260" height="210">${placed}</svg>`;
}
