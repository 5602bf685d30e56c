// Players who find each other: challenges by name (a notice with accept / decline wherever the
// page is, and a browser notification when its tab is hidden), who is online (with a rating and
// whether they play), follow / unfollow and block / unblock from a profile, whose challenges one
// takes, and the followed players' games in progress in the lobby. The state is
// `state.social` (pure transitions below), the panel renders it, `socialActions` are its
// buttons' and forms' (input.js binds them).

import { describeTime } from "./clock.js";
import { html, render } from "./dom.js";
import { TIME_CHOICES, formChoice } from "./lobby.js";
import { profileHref } from "./players.js";
import * as P from "./protocol.js";

/** The social state before the server said anything. */
export const initialSocial = () => ({
  following: [], blocked: [], allow: "everyone", // an account's own (`social`)
  online: null, total: 0, games: [], // who is online (`online`): OnlinePlayer, GameSummary
  challenges: [], // ChallengeOffer waiting (made and received)
  form: null, // the name a challenge is being written to
  notice: null, // the last challenge's end, in words
});

const social = (state) => state.social ?? initialSocial();
const changed = (state, change) => ({ ...state, social: { ...social(state), ...change } });
const same = (a, b) => String(a ?? "").toLowerCase() === String(b ?? "").toLowerCase();

// -- transitions -------------------------------------------------------------------------------

export const socialReceived = (state, m) => changed(state, { following: m.following, blocked: m.blocked, allow: m.allow });
export const onlineReceived = (state, m) => changed(state, { online: m.players, total: m.total, games: m.games });
export const challengeFormOpened = (state, name) => changed(state, { form: name });
export const socialNoticeClosed = (state) => changed(state, { notice: null });

export function challengeReceived(state, offer) {
  const others = social(state).challenges.filter((c) => c.id !== offer.id);
  return changed(state, { challenges: [...others, offer] });
}

const OUTCOME = {
  declined: (c, mine) => (mine ? `${c.challenged} declined your challenge.` : `You declined ${c.challenger}'s challenge.`),
  withdrawn: (c, mine) => (mine ? "You withdrew your challenge." : `${c.challenger} withdrew their challenge.`),
  expired: (c, mine) => (mine ? `${c.challenged} did not answer your challenge in time.` : `${c.challenger}'s challenge lapsed.`),
  accepted: (c, mine) => (mine ? `${c.challenged} accepted your challenge.` : `You accepted ${c.challenger}'s challenge.`),
};

/** A challenge ended (ChallengeEnd): it goes, and the page says how. */
export function challengeEnded(state, end) {
  const { challenges } = social(state);
  const challenge = challenges.find((c) => c.id === end.id);
  const rest = challenges.filter((c) => c.id !== end.id);
  if (!challenge) return changed(state, { challenges: rest });
  const mine = challenge.challenger_player === state.me?.player;
  return changed(state, { challenges: rest, notice: { text: OUTCOME[end.outcome](challenge, mine), outcome: end.outcome } });
}

/** The followed players' games in progress: those the lobby lists, and those `online` said. */
export function followedGames(state) {
  const { following, games } = social(state);
  if (following.length === 0) return [];
  const followed = (g) => [g.white, g.black].some((seat) => seat && following.some((n) => same(n, seat.name)));
  const found = new Map(games.map((g) => [g.id, g]));
  for (const g of state.lobby?.live ?? []) if (followed(g)) found.set(g.id, g);
  return [...found.values()];
}

/** A notification for a challenge received while the tab is hidden (when allowed). */
export function notify(offer, me) {
  if (offer.challenged_player !== me?.player || !document.hidden) return;
  if (!("Notification" in window) || Notification.permission !== "granted") return;
  new Notification(`${offer.challenger} challenges you`, { body: terms(offer), tag: offer.id });
}

/** Ask to show notifications (on a user's gesture: browsers ignore it otherwise). */
function askToNotify() {
  if ("Notification" in window && Notification.permission === "default") Notification.requestPermission();
}

const terms = (c) => `${c.game_type} · ${describeTime(c.time)} · ${c.rated ? "rated" : "casual"}`;
const theirColor = (color) => ({ white: "black", black: "white" })[color] ?? "random";

// -- actions -----------------------------------------------------------------------------------

/** The panel's buttons and forms, from what they use (see actions.js). */
export function socialActions({ state, dispatch, send }) {
  return {
    openChallenge: (el) => {
      askToNotify();
      dispatch(challengeFormOpened, el.dataset.name);
    },
    closeChallenge: () => dispatch(challengeFormOpened, null),
    sendChallenge: (data) => {
      const { game_type, time, color } = formChoice(data);
      const rated = data.get("rated") === "rated";
      if (send(P.Challenge({ name: String(data.get("name")), game_type, time: P.TimeControl(time), color, rated }))) {
        dispatch(challengeFormOpened, null);
      }
    },
    answerChallenge: (el) => {
      askToNotify();
      send(P.AnswerChallenge(el.dataset.id, el.dataset.answer));
    },
    follow: (el) => send(P.Follow(el.dataset.name, el.dataset.on === "true")),
    block: (el) => send(P.Block(el.dataset.name, el.dataset.on === "true")),
    allowChallenges: (el) => send(P.AllowChallenges(el.dataset.allow)),
    refreshOnline: () => {
      askToNotify();
      send(P.GetOnline());
    },
    closeSocialNotice: () => dispatch(socialNoticeClosed),
    notifications: () => askToNotify(),
  };
}

// -- the panel ---------------------------------------------------------------------------------

export class SocialPanel {
  /** The panel, put in `root` before its `main` (it stays across pages). */
  constructor(root) {
    this.el = document.createElement("aside");
    this.el.className = "social";
    this.el.dataset.testid = "social";
    root.querySelector("main").before(this.el);
  }

  render(state) {
    const s = social(state);
    const me = state.me;
    const page = state.route.page;
    render(this.el, html`
      ${s.notice && html`<p class="notice social-notice" data-testid="challenge-notice" data-outcome="${s.notice.outcome}" role="status">${s.notice.text}
        <button type="button" class="link" data-action="closeSocialNotice" aria-label="Close">×</button></p>`}
      ${s.challenges.map((c) => challengeRow(c, me))}
      ${s.form !== null && challengeForm(s.form, state)}
      ${page === "profile" && me && profileActions(state.route.name, s, me)}
      ${page === "lobby" && lobbyCard(state, s, me)}`);
  }
}

function challengeRow(c, me) {
  if (c.challenged_player === me?.player) {
    return html`<div class="card challenge incoming" data-testid="challenge-incoming" data-id="${c.id}" role="alert">
      <strong><a href="${profileHref(c.challenger)}">${c.challenger}</a></strong> challenges you:
      ${terms(c)} · you play ${theirColor(c.color)}
      <button type="button" class="primary" data-action="answerChallenge" data-id="${c.id}" data-answer="accept" data-testid="accept-challenge">Accept</button>
      <button type="button" data-action="answerChallenge" data-id="${c.id}" data-answer="decline" data-testid="decline-challenge">Decline</button></div>`;
  }
  return html`<div class="card challenge outgoing" data-testid="challenge-outgoing" data-id="${c.id}">
    Waiting for <strong>${c.challenged}</strong> to answer: ${terms(c)} · you play ${c.color}
    <button type="button" data-action="answerChallenge" data-id="${c.id}" data-answer="withdraw" data-testid="withdraw-challenge">Withdraw</button></div>`;
}

function challengeForm(name, state) {
  const types = state.server?.gameTypes ?? ["Base+MLP"];
  return html`<form class="card challenge-form" data-form="sendChallenge" data-testid="challenge-form">
    <h2>Challenge ${name}</h2>
    <input type="hidden" name="name" value="${name}">
    <label>Game type <select name="game_type">${types.map((t) => html`<option value="${t}" ${t === "Base+MLP" && "selected"}>${t}</option>`)}</select></label>
    <label>Time control <select name="time" data-testid="challenge-time">${TIME_CHOICES.map(([v, label]) => html`<option value="${v}" ${v === "5+5" && "selected"}>${label}</option>`)}</select></label>
    <fieldset class="colors"><legend>Your colour</legend>
      ${["random", "white", "black"].map((c) => html`<label><input type="radio" name="color" value="${c}" ${c === "random" && "checked"}> ${c}</label>`)}</fieldset>
    <fieldset class="colors"><legend>Game</legend>
      <label><input type="radio" name="rated" value="casual" checked> Casual</label>
      <label><input type="radio" name="rated" value="rated" data-testid="challenge-rated"> Rated</label></fieldset>
    <button type="submit" class="primary" data-testid="send-challenge">Send challenge</button>
    <button type="button" data-action="closeChallenge">Cancel</button></form>`;
}

function profileActions(name, s, me) {
  if (!name || same(name, me.nickname)) return html``;
  const following = s.following.some((n) => same(n, name));
  const blocked = s.blocked.some((n) => same(n, name));
  return html`<div class="card profile-actions" data-testid="profile-actions">
    <button type="button" class="primary" data-action="openChallenge" data-name="${name}" data-testid="challenge-player">Challenge</button>
    ${me.account && html`
      <button type="button" data-action="follow" data-name="${name}" data-on="${String(!following)}" data-testid="follow" aria-pressed="${String(following)}">${following ? "Unfollow" : "Follow"}</button>
      <button type="button" data-action="block" data-name="${name}" data-on="${String(!blocked)}" data-testid="block" aria-pressed="${String(blocked)}">${blocked ? "Unblock" : "Block"}</button>`}
  </div>`;
}

function lobbyCard(state, s, me) {
  const games = followedGames(state);
  const players = s.online ?? [];
  // who plays: as the server said, or as the lobby's games in progress say since
  const live = new Set((state.lobby?.live ?? []).flatMap((g) => [g.white?.name, g.black?.name]));
  return html`<section class="card online" data-testid="online">
    <h2>Players online <span class="count" data-testid="online-total">${s.online ? String(s.total) : ""}</span>
      <button type="button" class="link" data-action="refreshOnline" data-testid="refresh-online">refresh</button></h2>
    ${s.online === null ? html`<p class="muted">…</p>` : players.length === 0 ? html`<p class="muted">No one with an account is online.</p>`
      : html`<ul class="online-players">${players.map((p) => ({ ...p, playing: p.playing || live.has(p.name) })).map((p) => html`<li data-testid="online-player" data-name="${p.name}" data-playing="${String(p.playing)}">
        <a href="${profileHref(p.name)}">${p.name}</a>
        <small>${p.rating === null ? "unrated" : `${p.rating} ${p.speed}`}</small>
        ${p.playing && html`<span class="tag" data-testid="playing">playing</span>`}
        ${p.player !== me?.player && html`<button type="button" data-action="openChallenge" data-name="${p.name}" data-testid="challenge-online">Challenge</button>`}
      </li>`)}</ul>`}
    ${"Notification" in window && Notification.permission === "default"
      && html`<button type="button" class="wraps" data-action="notifications" data-testid="notify-me">Notify me of challenges when this tab is hidden</button>`}
    ${me?.account && html`<p class="allow" data-testid="allow-challenges">Challenges from:
      ${["everyone", "followed", "nobody"].map((a) => html`<button type="button" data-action="allowChallenges" data-allow="${a}" aria-pressed="${String(s.allow === a)}">${a === "followed" ? "people I follow" : a}</button>`)}</p>`}
    ${s.following.length > 0 && html`<h3>Following: games in progress</h3>
      ${games.length === 0 ? html`<p class="muted">None now.</p>`
        : html`<ul class="followed-games" data-testid="followed-games">${games.map((g) => html`<li data-game="${g.id}">
          <a href="#/game/${g.id}">${g.white?.name ?? "?"} vs ${g.black?.name ?? "?"}</a> <small>${g.game_type} · ${describeTime(g.time)}</small></li>`)}</ul>`}`}
  </section>`;
}
