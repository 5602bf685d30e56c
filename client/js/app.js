// The web client's wiring: the socket's messages and the player's actions go through the pure
// transitions of state.js; the screens render the state; effects (sending, navigation, local
// storage, fetching review positions) happen here and nowhere else.

import { AccountControls } from "./account.js";
import { Connection } from "./connection.js";
import { clear, html, render } from "./dom.js";
import { GameScreen } from "./game.js";
import { bindActions } from "./input.js";
import { LeaderboardScreen } from "./leaderboard.js";
import { LobbyScreen, TIME_BY_KIND, formChoice } from "./lobby.js";
import { spellMove } from "./notation.js";
import { ratingRange, whyNotRated } from "./players.js";
import { ProfileScreen } from "./profile.js";
import * as P from "./protocol.js";
import { ReviewScreen } from "./review.js";
import { RulesScreen } from "./rules.js";
import { Sounds } from "./sound.js";
import * as S from "./state.js";

const NICKNAME_KEY = "hive.nickname";
const RECENT_KEY = "hive.recent";
const NOTATION_KEY = "hive.notation";
const GAME_ID = /^[0-9a-z]{8}$/;

const ACCOUNT = /^[A-Za-z0-9_-]{2,20}$/;

/** The route of a location hash: #/, #/game/ID, #/review/ID[/PLY], #/rules, #/@/NAME (a
 * profile), #/leaderboard[/SPEED]. */
export function parseRoute(hash) {
  const [page, id, ply] = hash.replace(/^#\/?/, "").split("/");
  if (page === "@") {
    let name = "";
    try {
      name = decodeURIComponent(id ?? "");
    } catch (error) {
      name = "";
    }
    if (ACCOUNT.test(name)) return { page: "profile", name };
  }
  if (page === "leaderboard") return { page: "leaderboard", speed: P.SPEEDS.includes(id) ? id : "blitz" };
  if (page === "game" && GAME_ID.test(id ?? "")) return { page: "game", id };
  if (page === "review" && GAME_ID.test(id ?? "")) {
    return { page: "review", id, ply: ply !== undefined && /^\d+$/.test(ply) ? Number(ply) : null };
  }
  if (page === "rules") return { page: "rules" };
  return { page: "lobby" };
}

function guestName() {
  return `guest-${Math.floor(1000 + Math.random() * 9000)}`;
}

class App {
  constructor(root) {
    this.root = root;
    this.main = root.querySelector("main");
    this.badge = root.querySelector("[data-testid=connection]");
    this.account = new AccountControls(root.querySelector("[data-slot=account]"), root.querySelector("[data-slot=account-panel]"));
    this.asked = ""; // the profile or leaderboard asked for on this connection (key)
    this.ratingsAsked = false; // my own profile asked for on this connection (my ratings)
    let nickname = localStorage.getItem(NICKNAME_KEY);
    if (!nickname) {
      nickname = guestName();
      localStorage.setItem(NICKNAME_KEY, nickname);
    }
    this.state = S.initial(parseRoute(location.hash), nickname, {
      notation: localStorage.getItem(NOTATION_KEY) === "icons" ? "icons" : "uhp",
    });
    this.watching = new Set(); // games this connection watches
    this.lobbySubscribed = false;
    this.syncedOn = 0; // the connection on which the game on show was last brought up to date
    this.awaiting = null; // "create" or "join": show the game the server answers with
    this.screen = null;
    this.screenKey = "";
    this.renderQueued = false;
    this.sounds = new Sounds();
    this.warned = ""; // the game and turn whose low time has sounded
    this.nudged = false; // it became this player's turn while the tab was hidden
    this.soundButton = root.querySelector("[data-testid=sound]");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.socketUrl = `${scheme}//${location.host}/ws`;
    this.conn = new Connection({
      url: this.urlFor(this.state.route),
      nickname: () => this.state.nickname,
      onMessage: (message) => this.receive(message),
      onStatus: (status, attempt, reason) => this.connectionChanged(status, attempt, reason),
      onLag: (lag) => this.dispatch(S.lagMeasured, lag),
    });
    bindActions(document.body, this.actions());
    addEventListener("hashchange", () => this.navigate(parseRoute(location.hash)));
    addEventListener("keydown", (event) => this.key(event));
    setInterval(() => {
      this.screen?.tick?.(this.state, Date.now());
      this.lowTime(Date.now());
    }, 100);
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.nudged) {
        this.nudged = false;
        this.renderHeader();
      }
    });
    this.enter();
    this.render();
    this.conn.start();
  }

  // -- state and rendering ---------------------------------------------------------------------

  dispatch(transition, ...args) {
    this.state = transition(this.state, ...args);
    if (!this.renderQueued) {
      this.renderQueued = true;
      queueMicrotask(() => {
        this.renderQueued = false;
        this.render();
      });
    }
  }

  render() {
    const { route } = this.state;
    const key = `${route.page}:${route.id ?? route.name ?? ""}`;
    if (key !== this.screenKey) {
      this.screen?.destroy?.();
      clear(this.main);
      const host = document.createElement("div");
      host.className = "screen";
      this.main.append(host);
      if (route.page === "game") this.screen = new GameScreen(host, this.boardHandlers());
      else if (route.page === "review") this.screen = new ReviewScreen(host);
      else if (route.page === "rules") this.screen = new RulesScreen(host);
      else if (route.page === "profile") this.screen = new ProfileScreen(host);
      else if (route.page === "leaderboard") this.screen = new LeaderboardScreen(host);
      else this.screen = new LobbyScreen(host);
      this.screenKey = key;
    }
    if (route.page === "lobby") this.screen.render(this.state, this.recent());
    else this.screen.render(this.state);
    if (route.page === "review" && this.state.review?.doc) {
      // the address names the move on show, so a reload or a shared link opens it there
      const hash = `#/review/${route.id}/${this.state.review.ply}`;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    this.renderHeader();
  }

  renderHeader() {
    const { status, lag, attempt, reason } = this.state.connection;
    const words = {
      // the lag is left out on a phone (CSS): room for the account's menu
      online: lag === null ? "online" : html`online<span class="lag"> · ${lag} ms</span>`,
      connecting: "connecting…",
      reconnecting: attempt > 1 ? `reconnecting (try ${attempt})…` : "reconnecting…",
      "signed-out": "choose a nickname",
    };
    this.badge.dataset.status = status;
    if (status === "closed") {
      // the server closed the connection for what this client did: no retry by itself
      render(this.badge, html`<i></i><span data-testid="closed-reason">disconnected: ${reason}</span>
        <button type="button" class="reconnect" data-action="reconnect" data-testid="reconnect">Reconnect</button>`);
    } else {
      render(this.badge, html`<i></i>${words[status] ?? status}`);
    }
    const gs = this.state.game?.state;
    let title = "Hive Arena";
    if (gs && S.isMyTurn(this.state.me, gs)) title = `${this.nudged ? "● " : ""}Your turn · ${title}`;
    else if (this.state.route.page === "review") title = `Review · ${title}`;
    else if (this.state.route.page === "rules") title = `Rules · ${title}`;
    else if (this.state.route.page === "profile") title = `${this.state.route.name} · ${title}`;
    else if (this.state.route.page === "leaderboard") title = `Leaderboard · ${title}`;
    document.title = title;
    this.account.render(this.state);
    this.soundButton.setAttribute("aria-pressed", String(this.sounds.muted));
  }

  /** Sound low time once a turn, when this player's clock runs under LOW_TIME. */
  lowTime(now) {
    const turn = S.lowTimeTurn(this.state, now);
    if (turn !== null && this.warned !== turn) {
      this.warned = turn;
      this.sounds.play("low");
    }
  }

  // -- the socket ---------------------------------------------------------------------------------

  connectionChanged(status, attempt, reason) {
    if (status !== "online") this.forgetSubscriptions();
    this.dispatch(S.connectionChanged, status, attempt, reason);
  }

  /** Nothing is watched or asked for on the connection now (it is down, or new): `subscribe`
   * asks again once welcomed. */
  forgetSubscriptions() {
    this.watching.clear();
    this.lobbySubscribed = false;
    this.asked = "";
    this.ratingsAsked = false;
  }

  receive(message) {
    switch (message.type) {
      case P.ServerType.WELCOME:
        this.forgetSubscriptions(); // a new connection (maybe one that took over): watch anew
        if (!message.bot) localStorage.setItem(NICKNAME_KEY, message.nickname); // as the server spells it
        this.dispatch(S.welcomed, message, Date.now());
        this.subscribe();
        break;
      case P.ServerType.ACCOUNT:
        localStorage.setItem(NICKNAME_KEY, message.name);
        this.dispatch(S.accountMade, message);
        this.ratingsAsked = false;
        break;
      case P.ServerType.PROFILE:
        this.dispatch(S.profileReceived, message);
        break;
      case P.ServerType.LEADERBOARD:
        this.dispatch(S.leaderboardReceived, message);
        break;
      case P.ServerType.LOBBY:
        this.dispatch(S.lobbyReceived, message);
        this.askRatings();
        break;
      case P.ServerType.LOBBY_CHANGE:
        this.dispatch(S.lobbyChanged, message);
        this.askRatings();
        break;
      case P.ServerType.UPDATE:
        this.updated(message);
        break;
      case P.ServerType.PRESENCE:
        this.dispatch(S.presenceReceived, message);
        break;
      case P.ServerType.ERROR:
        if (message.request === this.awaiting) this.awaiting = null; // a create or join refused
        if (message.request === "watch" && message.game === this.state.game?.id) {
          this.watching.delete(message.game);
        }
        this.dispatch(S.errorReceived, message);
        break;
      default:
        break;
    }
  }

  /** Ask for my own profile once a connection (and again after a rated game of mine ended)
   * when the lobby lists an open game with a rating range: my ratings say which I may join. */
  askRatings() {
    const me = this.state.me;
    if (this.ratingsAsked || !me?.account || !this.conn.online) return;
    if (!this.state.lobby.open.some((g) => (g.rating_min ?? null) !== null || (g.rating_max ?? null) !== null)) return;
    this.ratingsAsked = this.conn.send(P.GetProfile(me.nickname));
  }

  updated(update) {
    const created = Boolean(this.awaiting); // a game this page created or joined: its start sounds
    if (this.awaiting && this.state.game?.id !== update.game) {
      this.awaiting = null;
      this.watching.add(update.game); // creating and joining watch the game on the server
      this.go({ page: "game", id: update.game });
    }
    if (this.state.game?.id !== update.game) return;
    const before = this.state.game.state;
    this.dispatch(S.updateReceived, update, Date.now());
    this.syncedOn = this.conn.number;
    this.remember(update.state);
    this.flush();
    const due = S.premoveDue(this.state); // a premove waits, and it is this player's turn now
    if (due) {
      this.dispatch(S.premoveDone, due.legal !== null);
      if (due.legal) this.makeMove(due.legal);
    }
    const gs = update.state;
    if (gs.rating_changes?.length && S.isPlayer(this.state.me, gs)) this.ratingsAsked = false; // my ratings changed
    if (before) this.sound(before, gs);
    else if (created && gs.status === "live") this.sounds.play("start");
    const rematch = update.events.find((e) => e.kind === "rematch");
    if (rematch && S.isPlayer(this.state.me, gs) && before) {
      this.watching.add(rematch.text); // the server moved the players' watch to the new game
      this.go({ page: "game", id: rematch.text });
    }
  }

  /** The sounds of what changed from game state `before` to `gs` (none for the first state a
   * page sees), and the tab's nudge when it became this player's turn while hidden. */
  sound(before, gs) {
    // played after the move is drawn (a task after this one), which they must not delay
    const play = (name) => setTimeout(() => this.sounds.play(name));
    if (before.status === "open" && gs.status === "live") play("start");
    else if (gs.moves.length > before.moves.length) play("move");
    if (before.status !== "over" && gs.status === "over") play("end");
    const mine = S.isMyTurn(this.state.me, gs);
    if (document.hidden && mine && !S.isMyTurn(this.state.me, before)) {
      this.nudged = true;
      this.notify(gs);
    }
    if (!mine) this.nudged = false;
  }

  /** A browser notification that it is this player's turn (the tab is hidden), when the
   * player allowed them (the game's "notify me" link asks). */
  notify(gs) {
    if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
    const last = gs.moves[gs.moves.length - 1];
    const opponent = gs[gs.turn === "white" ? "black" : "white"]?.name ?? "Your opponent";
    const note = new Notification("Your turn · Hive Arena", {
      body: last ? `${opponent} played ${last}` : "",
      tag: `hive-${gs.id}`, // one at a time for a game
    });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  }

  /** Watch what the route shows (after a welcome, or a navigation). */
  subscribe() {
    if (!this.conn.online) return;
    const { route } = this.state;
    const wantLobby = route.page === "lobby";
    if (wantLobby !== this.lobbySubscribed) {
      this.conn.send(P.WatchLobby(wantLobby));
      this.lobbySubscribed = wantLobby;
    }
    if (route.page === "game" && !this.watching.has(route.id)) {
      this.watching.add(route.id);
      this.conn.send(P.Watch(route.id, this.state.game?.state?.version ?? null));
    }
    const { profile, leaderboard } = this.state;
    const ask = profile ? `profile:${profile.name}:${profile.page}` : leaderboard ? `leaderboard:${leaderboard.speed}` : "";
    if (ask && ask !== this.asked) {
      this.asked = ask;
      this.conn.send(profile ? P.GetProfile(profile.name, profile.page) : P.GetLeaderboard(leaderboard.speed));
    }
  }

  /** Send the pending move if it has not gone on this connection (a move made while the
   * socket was down, or one whose answer the drop swallowed: it carries the version it was
   * made on, so the server plays it once and answers `stale` to a copy). */
  flush() {
    const pending = this.state.game?.pending;
    if (!pending || !this.conn.online || pending.sentOn === this.conn.number) return;
    if (this.syncedOn !== this.conn.number) return; // the watch's update comes first
    if (this.conn.send(P.Play(this.state.game.id, pending.version, pending.move))) {
      this.dispatch(S.pendingSent, this.conn.number);
    }
  }

  send(message) {
    if (this.conn.send(message)) return true;
    this.dispatch(S.noticed, "Not connected right now: try again in a moment.", "error");
    return false;
  }

  // -- navigation ---------------------------------------------------------------------------------

  go(route) {
    const hash = route.page === "game" ? `#/game/${route.id}`
      : route.page === "review" ? `#/review/${route.id}${route.ply !== null && route.ply !== undefined ? `/${route.ply}` : ""}`
        : route.page === "rules" ? "#/rules"
          : route.page === "profile" ? `#/@/${encodeURIComponent(route.name)}`
            : route.page === "leaderboard" ? `#/leaderboard/${route.speed}` : "#/";
    if (location.hash !== hash) history.pushState(null, "", hash);
    this.navigate(route);
  }

  navigate(route) {
    const leaving = this.state.game?.id;
    if (leaving && !(route.page === "game" && route.id === leaving) && this.watching.has(leaving)) {
      this.conn.send(P.Unwatch(leaving));
      this.watching.delete(leaving);
    }
    const reviewBefore = this.state.review?.id;
    if (route.page === "game") this.conn.moveTo(this.urlFor(route));
    this.dispatch(S.navigated, route);
    if (route.page === "review" && route.id !== reviewBefore) this.loadReview(route.id);
    const { profile, leaderboard } = this.state;
    if (!profile?.data && !leaderboard?.data) this.asked = ""; // a page opened again: asked again
    this.subscribe();
    window.scrollTo(0, 0);
  }

  /** The socket's address for a route: a game's page names its game, so that a proxy in front
   * of several processes sends every connection to one game to one process (the lobby and the
   * other pages go on on the connection they have). */
  urlFor(route) {
    return route.page === "game" ? `${this.socketUrl}?game=${encodeURIComponent(route.id)}` : this.socketUrl;
  }

  enter() {
    if (this.state.route.page === "review") this.loadReview(this.state.route.id);
  }

  async loadReview(id) {
    try {
      const response = await fetch(`/games/${id}/positions.json`);
      const body = await response.json();
      if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
      if (this.state.review?.id === id) this.dispatch(S.reviewLoaded, body);
    } catch (error) {
      this.dispatch(S.reviewFailed, `Cannot load game ${id}: ${error.message}`);
    }
  }

  key(event) {
    if (event.key === "Escape" && this.state.auth.panel) {
      this.dispatch(S.authOpened, null); // the account's form closes
      return;
    }
    if (event.target.closest?.("input, textarea, select")) return;
    if (this.state.route.page === "review" && this.state.review?.doc) {
      const ply = this.state.review.ply;
      const last = this.state.review.doc.frames.length - 1;
      const to = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: last }[event.key];
      if (to !== undefined) {
        event.preventDefault();
        this.dispatch(S.reviewStepped, to);
      }
    } else if (event.key === "Escape" && this.state.game) {
      this.dispatch(S.deselected);
    }
  }

  // -- moves ------------------------------------------------------------------------------------

  boardHandlers() {
    return {
      canDrag: () => {
        const gs = this.state.game?.state;
        return Boolean(gs && S.isMyTurn(this.state.me, gs) && !this.state.game.pending);
      },
      pick: (piece, from, { drag = false } = {}) => {
        const selected = this.state.game?.selected;
        if (!drag && selected?.piece === piece) this.dispatch(S.deselected);
        else this.dispatch(S.selected, piece, from);
      },
      target: (move) => {
        const legal = this.state.game?.state?.legal.find((m) => m.move === move);
        if (legal) this.makeMove(legal);
      },
      drop: (piece, from, q, r) => this.drop(piece, from, q, r),
      empty: (q, r) => {
        const selected = this.state.game?.selected;
        if (selected) this.drop(selected.piece, selected.from, q, r, { quiet: true });
      },
    };
  }

  /** `piece` let go on hex (q, r): a legal move is played; anything else is not, and the
   * server's engine is asked why (the client holds no rules to tell). */
  drop(piece, from, q, r, { quiet = false } = {}) {
    const view = this.state.game;
    const gs = view?.state;
    if (!gs) return;
    if (from && from.q === q && from.r === r) return; // put back where it was
    if (view.selected && !view.pending && gs.status === "live" && S.isPlayer(this.state.me, gs)
      && !S.isMyTurn(this.state.me, gs)) {
      this.dispatch(S.premoved, q, r); // the opponent's turn: played when it is this player's
      return;
    }
    if (!S.isMyTurn(this.state.me, gs) || view.pending) {
      this.dispatch(S.selected, piece, from); // says why not (not your turn, over...)
      this.dispatch(S.deselected);
      return;
    }
    const legal = gs.legal.find((m) => m.piece === piece && m.to_q === q && m.to_r === r);
    if (legal) {
      this.makeMove(legal);
      return;
    }
    const move = spellMove(gs.pieces, piece, q, r);
    if (!move) {
      this.dispatch(S.deselected);
      if (!quiet) this.dispatch(S.noticed, `${piece} cannot go there: that hex does not touch the hive.`, "error");
      return;
    }
    if (this.conn.online) {
      this.dispatch(S.probed, piece, move);
      this.conn.send(P.Play(gs.id, gs.version, move));
    } else {
      this.dispatch(S.deselected);
      this.dispatch(S.noticed, `${piece} cannot go there.`, "error");
    }
  }

  makeMove(move) {
    const view = this.state.game;
    const gs = view?.state;
    if (!gs || !S.isMyTurn(this.state.me, gs) || view.pending) return;
    const text = move === P.PASS ? P.PASS : move.move;
    const sent = this.conn.online && this.syncedOn === this.conn.number
      && this.conn.send(P.Play(gs.id, gs.version, text));
    this.dispatch(S.moveMade, move, sent ? this.conn.number : null);
    if (!sent) this.dispatch(S.noticed, "Connection lost: your move is queued and goes as soon as it is back.");
  }

  // -- buttons and forms ---------------------------------------------------------------------

  actions() {
    const gameId = () => this.state.game?.id;
    return {
      playBot: (data) => {
        this.awaiting = "create";
        this.send(P.CreateGame({ game_type: "Base+MLP", opponent: "bot", level: data.get("level") }));
      },
      create: (data) => {
        const { game_type, time, color } = formChoice(data);
        const [opponent, level] = String(data.get("opponent")).split(":");
        const rated = data.get("rated") === "rated";
        if (rated) {
          const why = whyNotRated(this.state.me, time, opponent);
          if (why) {
            this.dispatch(S.noticed, `Not a rated game: ${why}.`, "error");
            return;
          }
        }
        // a rating range is for an open game only (anyone may join)
        const range = opponent === P.Opponent.ANYONE ? ratingRange(data.get("rating_min"), data.get("rating_max")) : { min: null, max: null };
        if (range.error) {
          this.dispatch(S.noticed, `Rating range: ${range.error}.`, "error");
          return;
        }
        this.awaiting = "create";
        this.send(P.CreateGame({
          game_type, time: P.TimeControl(time), color, opponent, level: level ?? null,
          rated, rating_min: range.min, rating_max: range.max,
        }));
      },
      challenge: (el) => {
        const name = el.dataset.bot;
        const choice = formChoice(new FormData(this.screen.form));
        const bot = this.state.lobby.bots.find((b) => b.name === name);
        // A bot gone from the list meanwhile: the server says why it cannot be challenged.
        const terms = bot ? S.challengeTerms(bot, choice, TIME_BY_KIND)
          : { ...choice, opponent: P.Opponent.BOTS, challenge: name };
        this.awaiting = "create";
        this.send(P.CreateGame({ ...terms, time: P.TimeControl(terms.time) }));
      },
      join: (el) => {
        this.awaiting = "join";
        this.send(P.JoinGame(el.dataset.game));
      },
      cancel: (el) => this.send(P.CancelGame(el.dataset.game)),
      cancelGame: (el) => this.send(P.CancelGame(el.dataset.game)),
      editName: () => this.dispatch((s) => ({ ...s, editingName: true })),
      nickname: (data) => {
        const nickname = String(data.get("nickname")).trim();
        if (!nickname) return;
        localStorage.setItem(NICKNAME_KEY, nickname);
        this.dispatch((s) => ({ ...S.nicknameChosen(s, nickname), editingName: false }));
        this.conn.rename();
      },
      openGame: (data) => {
        const id = String(data.get("id")).trim();
        if (!GAME_ID.test(id)) return;
        this.go(data.get("how") === "review" ? { page: "review", id, ply: null } : { page: "game", id });
      },
      pass: () => this.makeMove(P.PASS),
      resign: () => {
        if (this.screen.confirming !== "resign") {
          this.screen.confirming = "resign";
          this.render();
          setTimeout(() => {
            if (this.screen?.confirming === "resign") {
              this.screen.confirming = null;
              this.render();
            }
          }, 4000);
          return;
        }
        this.screen.confirming = null;
        this.send(P.Resign(gameId()));
      },
      offerDraw: () => this.send(P.Draw(gameId(), "offer")),
      acceptDraw: () => this.send(P.Draw(gameId(), "accept")),
      declineDraw: () => this.send(P.Draw(gameId(), "decline")),
      claim: () => this.send(P.ClaimWin(gameId())),
      rematch: () => this.send(P.Rematch(gameId())),
      chat: (data, form) => {
        const text = String(data.get("text") ?? "").trim();
        if (text && this.send(P.Chat(gameId(), text))) form.reset();
      },
      reconnect: () => this.conn.reconnect(),
      notation: () => {
        const notation = this.state.notation === "icons" ? "uhp" : "icons";
        localStorage.setItem(NOTATION_KEY, notation);
        this.dispatch(S.notationChosen, notation);
      },
      notify: () => {
        Notification.requestPermission().then(() => this.render(), () => {});
      },
      toggleSound: () => {
        this.sounds.setMuted(!this.sounds.muted);
        this.renderHeader();
      },
      logout: (el) => {
        closeMenu(el);
        this.send(P.Logout(false));
      },
      logoutEverywhere: (el) => {
        closeMenu(el);
        this.send(P.Logout(true));
      },
      authOpen: (el) => {
        closeMenu(el);
        this.dispatch(S.authOpened, el.dataset.panel || null);
      },
      signup: (data) => {
        if (this.send(P.SignUp(String(data.get("name")).trim(), String(data.get("password"))))) this.dispatch(S.authSent);
      },
      changePassword: (data) => {
        if (this.send(P.ChangePassword(String(data.get("old")), String(data.get("new"))))) this.dispatch(S.authSent);
      },
      login: async (data) => {
        this.dispatch(S.authSent);
        const error = await this.conn.login(String(data.get("name")).trim(), String(data.get("password")));
        if (error) this.dispatch(S.authFailed, { ...error, request: "login" });
        else this.dispatch(S.authOpened, null);
      },
      profilePage: (el) => {
        this.dispatch(S.profilePaged, Number(el.dataset.page));
        this.subscribe(); // asks for that page
      },
      spectatorChat: (el) => this.send(P.SpectatorChat(gameId(), el.dataset.open === "true")),
      mute: (el) => this.send(P.Mute(gameId(), el.dataset.player, true)),
      unmute: (el) => this.send(P.Mute(gameId(), el.dataset.player, false)),
      dismiss: () => this.dispatch(S.noticed, null),
      closeBanner: () => {
        this.screen.bannerClosed = this.state.game?.id;
        this.render();
      },
      reviewFirst: () => this.dispatch(S.reviewStepped, 0),
      reviewPrev: () => this.dispatch(S.reviewStepped, this.state.review.ply - 1),
      reviewNext: () => this.dispatch(S.reviewStepped, this.state.review.ply + 1),
      reviewLast: () => this.dispatch(S.reviewStepped, Infinity),
      reviewGo: (el) => this.dispatch(S.reviewStepped, Number(el.dataset.ply)),
    };
  }

  // -- recent games (this browser) ----------------------------------------------------------

  recent() {
    try {
      return JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
    } catch (error) {
      return [];
    }
  }

  remember(gs) {
    if (gs.status === "open") return;
    const entry = {
      id: gs.id,
      white: gs.white?.name ?? "?",
      black: gs.black?.name ?? "?",
      status: gs.status,
      result: gs.result ? gs.result.replace("Wins", " wins") : gs.status === "over" ? "no result" : null,
      at: Date.now(),
    };
    const list = [entry, ...this.recent().filter((g) => g.id !== gs.id)].slice(0, 20);
    localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  }
}

/** Close the account menu an item of which was chosen. */
function closeMenu(el) {
  el?.closest?.("details")?.removeAttribute("open");
}

// The account's menu closes on a click anywhere else.
document.addEventListener("click", (event) => {
  for (const menu of document.querySelectorAll("details.account-menu[open]")) {
    if (!menu.contains(event.target)) menu.removeAttribute("open");
  }
});

// Review range slider: step as it moves.
document.addEventListener("input", (event) => {
  if (event.target.matches?.(".review input[type=range]")) window.hiveApp?.dispatch(S.reviewStepped, Number(event.target.value));
});

window.hiveApp = new App(document.body);
