// The web client's wiring: the socket's messages and the player's actions go through the pure
// transitions of state.js, players.js and subscription.js; the screens render the state (what
// they show is derived in views.js); effects (sending, navigation, local storage, fetching
// review positions) happen here, in play.js and in actions.js, and nowhere else.

import { actions } from "./actions.js";
import { AnalysisScreen } from "./analysis.js";
import { Connection } from "./connection.js";
import { clear } from "./dom.js";
import { analysisReceived, analysisRefused } from "./evaluation.js";
import { GameScreen } from "./game.js";
import { Header } from "./header.js";
import { bindActions, bindPage } from "./input.js";
import { LeaderboardScreen } from "./leaderboard.js";
import { LobbyScreen } from "./lobby.js";
import { playing } from "./play.js";
import { accountMade, authOpened, leaderboardReceived, profileReceived } from "./players.js";
import { ProfileScreen } from "./profile.js";
import { PuzzleScreen, dailyReceived } from "./puzzles.js";
import * as P from "./protocol.js";
import { ReviewScreen } from "./review.js";
import { parseRoute, routeHash } from "./route.js";
import { RulesScreen } from "./rules.js";
import * as Social from "./social.js";
import { Sounds } from "./sound.js";
import * as S from "./state.js";
import { NICKNAME_KEY, NOTATION_KEY, recentGames } from "./storage.js";
import * as Sub from "./subscription.js";
import { TournamentScreen } from "./tournament.js";
import { TournamentsScreen, tournamentsReceived } from "./tournaments.js";
import { lowTimeTurn } from "./views.js";

/** The analysis board's requests: their refusals are its own to show. */
const ANALYSIS_REQUESTS = new Set([P.ClientType.POSITION, P.ClientType.ENGINE, P.ClientType.ENGINE_STOP]);
/** The puzzle page's requests: their refusals are its own to show (the lobby's puzzle of the
 * day refused: there is none). */
const PUZZLE_REQUESTS = new Set([P.ClientType.PUZZLE, P.ClientType.PUZZLE_MOVE, P.ClientType.PUZZLE_SOLUTION]);
/** The tournament pages: the messages and refusals that are theirs to show. */
const TOURNAMENT_PAGES = new Set(["tournaments", "tournament"]);
const TOURNAMENT_REQUESTS = new Set(P.TOURNAMENT_REQUESTS);

function guestName() {
  return `guest-${Math.floor(1000 + Math.random() * 9000)}`;
}

class App {
  constructor(root) {
    this.root = root;
    this.main = root.querySelector("main");
    this.header = new Header(root);
    this.social = new Social.SocialPanel(root);
    this.onlineAsked = 0;
    this.onlineLater = null;
    let nickname = localStorage.getItem(NICKNAME_KEY);
    if (!nickname) {
      nickname = guestName();
      localStorage.setItem(NICKNAME_KEY, nickname);
    }
    this.state = S.initial(parseRoute(location.hash), nickname, {
      notation: localStorage.getItem(NOTATION_KEY) === "icons" ? "icons" : "uhp",
    });
    this.screen = null;
    this.screenKey = "";
    this.renderQueued = false;
    this.sounds = new Sounds();
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.socketUrl = `${scheme}//${location.host}/ws`;
    this.conn = new Connection({
      url: this.urlFor(this.state.route),
      nickname: () => this.state.nickname,
      onMessage: (message) => this.receive(message),
      onStatus: (status, attempt, reason) => this.connectionChanged(status, attempt, reason),
      onLag: (lag) => this.dispatch(S.lagMeasured, lag),
    });
    const uses = {
      state: () => this.state,
      dispatch: (transition, ...args) => this.dispatch(transition, ...args),
      conn: this.conn,
      go: (route) => this.go(route),
      sounds: this.sounds,
    };
    this.play = playing(uses);
    const send = (message) => this.send(message);
    const all = actions({
      ...uses,
      send,
      move: this.play.move,
      screen: () => this.screen,
      render: () => this.render(),
      renderHeader: () => this.renderHeader(),
      subscribe: () => this.subscribe(),
    });
    bindActions(document.body, { ...Social.socialActions({ ...uses, send }), ...all });
    bindPage(document, { stepped: (ply) => this.dispatch(S.reviewStepped, ply) });
    addEventListener("hashchange", () => {
      // a page chosen from a menu of the top bar closes it
      for (const open of document.querySelectorAll(".topbar details[open]")) open.removeAttribute("open");
      this.navigate(parseRoute(location.hash));
    });
    addEventListener("keydown", (event) => this.key(event));
    setInterval(() => this.askOnline(10_000), 1000);
    setInterval(() => {
      this.screen?.tick?.(this.state, Date.now());
      this.lowTime(Date.now());
    }, 100);
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && this.state.subs.nudged) this.dispatch(Sub.nudged, false);
    });
    if (this.state.route.page === "review") this.loadReview(this.state.route.id);
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
      const send = (m) => this.conn.send(m);
      if (route.page === "game") this.screen = new GameScreen(host, this.play.board);
      else if (route.page === "review") this.screen = new ReviewScreen(host);
      else if (route.page === "rules") this.screen = new RulesScreen(host);
      else if (route.page === "profile") this.screen = new ProfileScreen(host);
      else if (route.page === "leaderboard") this.screen = new LeaderboardScreen(host);
      else if (route.page === "analysis") this.screen = new AnalysisScreen(host, route, { send });
      else if (route.page === "puzzles") this.screen = new PuzzleScreen(host, route, { send });
      else if (route.page === "tournaments") this.screen = new TournamentsScreen(host, { send, go: (r) => this.go(r) });
      else if (route.page === "tournament") this.screen = new TournamentScreen(host, route, { send });
      else this.screen = new LobbyScreen(host);
      this.screenKey = key;
    }
    if (route.page === "lobby") this.screen.render(this.state, recentGames());
    else this.screen.render(this.state);
    this.social.render(this.state);
    if (route.page === "review" && this.state.review?.doc) {
      // the address names the move on show, so a reload or a shared link opens it there
      const hash = `#/review/${route.id}/${this.state.review.ply}`;
      if (location.hash !== hash) history.replaceState(null, "", hash);
    }
    this.renderHeader();
  }

  renderHeader() {
    this.header.render(this.state, this.sounds.muted);
  }

  /** Sound low time once a turn, when this player's clock runs under LOW_TIME. */
  lowTime(now) {
    const turn = lowTimeTurn(this.state, now);
    if (turn !== null && this.state.subs.warned !== turn) {
      this.dispatch(Sub.warned, turn);
      this.sounds.play("low");
    }
  }

  // -- the socket ---------------------------------------------------------------------------------

  connectionChanged(status, attempt, reason) {
    if (status !== "online") this.dispatch(Sub.forgotten);
    this.dispatch(S.connectionChanged, status, attempt, reason);
  }

  receive(message) {
    switch (message.type) {
      case P.ServerType.WELCOME:
        this.dispatch(Sub.forgotten); // a new connection (maybe one that took over): watch anew
        if (!message.bot) localStorage.setItem(NICKNAME_KEY, message.nickname); // as the server spells it
        this.dispatch(S.welcomed, message, Date.now());
        this.subscribe();
        this.screen?.connected?.(); // (the analysis board and the puzzle page ask again)
        this.askDaily();
        this.askOnline(0, true); // (the challenges waiting come first)
        break;
      case P.ServerType.ACCOUNT:
        localStorage.setItem(NICKNAME_KEY, message.name);
        this.dispatch(accountMade, message);
        this.dispatch(Sub.ratingsAsked, false);
        break;
      case P.ServerType.PROFILE:
        this.dispatch(profileReceived, message);
        break;
      case P.ServerType.LEADERBOARD:
        this.dispatch(leaderboardReceived, message);
        break;
      case P.ServerType.LOBBY:
        this.dispatch(S.lobbyReceived, message);
        this.askRatings();
        break;
      case P.ServerType.LOBBY_CHANGE:
        this.dispatch(S.lobbyChanged, message);
        this.askRatings();
        this.askOnline(2000); // who plays may have changed
        break;
      case P.ServerType.CHALLENGE:
        this.dispatch(Social.challengeReceived, message);
        Social.notify(message, this.state.me);
        break;
      case P.ServerType.CHALLENGE_END:
        this.dispatch(Social.challengeEnded, message);
        if (message.outcome === "accepted" && message.game) this.go({ page: "game", id: message.game });
        break;
      case P.ServerType.SOCIAL:
        this.dispatch(Social.socialReceived, message);
        break;
      case P.ServerType.ONLINE:
        this.dispatch(Social.onlineReceived, message);
        break;
      case P.ServerType.UPDATE:
        this.play.updated(message);
        break;
      case P.ServerType.PRESENCE:
        this.dispatch(S.presenceReceived, message);
        break;
      case P.ServerType.POSITION:
      case P.ServerType.LINES:
      case P.ServerType.ENGINE_DONE:
        this.screen?.received?.(message); // the analysis board's
        break;
      case P.ServerType.PUZZLE:
      case P.ServerType.PUZZLE_ANSWER:
        if (this.state.route.page === "puzzles") this.screen?.received?.(message);
        else if (message.type === P.ServerType.PUZZLE && message.daily) this.dispatch(dailyReceived, message);
        break;
      case P.ServerType.TOURNAMENT:
      case P.ServerType.TOURNAMENTS:
        if (TOURNAMENT_PAGES.has(this.state.route.page)) this.screen?.received?.(message);
        else if (message.type === P.ServerType.TOURNAMENTS) this.dispatch(tournamentsReceived, message.tournaments);
        break;
      case P.ServerType.TOURNAMENT_GAME:
        this.go({ page: "game", id: message.game }); // paired: to the game, as one found in the lobby
        break;
      case P.ServerType.GAME_ANALYSIS:
        this.dispatch(analysisReceived, message);
        break;
      case P.ServerType.ERROR:
        if (PUZZLE_REQUESTS.has(message.request)) {
          if (this.state.route.page === "puzzles") this.screen?.received?.(message);
          else this.dispatch(dailyReceived, null);
          break;
        }
        if (TOURNAMENT_REQUESTS.has(message.request) && TOURNAMENT_PAGES.has(this.state.route.page)) {
          this.screen?.received?.(message);
          break;
        }
        if (ANALYSIS_REQUESTS.has(message.request)) {
          this.screen?.received?.(message); // the analysis board's
          break;
        }
        this.dispatch(analysisRefused, message);
        this.dispatch(Sub.refused, message); // a create, join or watch refused
        this.dispatch(S.errorReceived, message);
        break;
      default:
        break;
    }
  }

  /** Ask for my own profile once a connection (and again after a rated game of mine ended)
   * when the lobby lists an open game with a rating range: my ratings say which I may join. */
  askRatings() {
    if (!this.conn.online || !Sub.ratingsWanted(this.state)) return;
    this.dispatch(Sub.ratingsAsked, this.conn.send(P.GetProfile(this.state.me.nickname)));
  }

  /** Ask who is online, on the lobby and a profile (`anyPage`: wherever), when the last ask is
   * `after` ms old. */
  askOnline(after, anyPage = false) {
    const page = this.state.route.page;
    if (!this.conn.online || (!anyPage && page !== "lobby" && page !== "profile")) return;
    const wait = after - (Date.now() - this.onlineAsked);
    if (wait > 0) {
      // asked lately: once more when it is time (the lobby changed meanwhile)
      if (after < 10_000 && !this.onlineLater) {
        this.onlineLater = setTimeout(() => {
          this.onlineLater = null;
          this.askOnline(0);
        }, wait);
      }
      return;
    }
    this.onlineAsked = Date.now();
    this.conn.send(P.GetOnline());
  }

  /** Ask for the lobby's puzzle of the day (once a connection) and its tournaments. */
  askDaily() {
    if (this.conn.online && this.state.route.page === "lobby") this.conn.send(P.GetTournaments());
    if (this.conn.online && this.state.route.page === "lobby" && this.state.daily === undefined) {
      this.conn.send(P.GetPuzzle({ daily: true }));
    }
  }

  /** Watch what the route shows (after a welcome, or a navigation). */
  subscribe() {
    if (!this.conn.online) return;
    for (const message of Sub.subscriptionsDue(this.state)) this.conn.send(message);
    this.dispatch(Sub.subscribed);
  }

  send(message) {
    if (this.conn.send(message)) return true;
    this.dispatch(S.noticed, "Not connected right now: try again in a moment.", "error");
    return false;
  }

  // -- navigation ---------------------------------------------------------------------------------

  go(route) {
    const hash = routeHash(route);
    if (location.hash !== hash) history.pushState(null, "", hash);
    this.navigate(route);
  }

  navigate(route) {
    const leaving = this.state.game?.id;
    if (leaving && !(route.page === "game" && route.id === leaving) && this.state.subs.watching.includes(leaving)) {
      this.conn.send(P.Unwatch(leaving));
      this.dispatch(Sub.unwatched, leaving);
    }
    const reviewBefore = this.state.review?.id;
    if (route.page === "game") this.conn.moveTo(this.urlFor(route));
    this.dispatch(S.navigated, route);
    if (route.page === "review" && route.id !== reviewBefore) this.loadReview(route.id);
    this.dispatch(Sub.reopened); // a page opened again: asked again
    this.subscribe();
    this.askOnline(0);
    this.askDaily();
    window.scrollTo(0, 0);
  }

  /** The socket's address for a route: a game's page names its game, so that a proxy in front
   * of several processes sends every connection to one game to one process (the lobby and the
   * other pages go on on the connection they have). */
  urlFor(route) {
    return route.page === "game" ? `${this.socketUrl}?game=${encodeURIComponent(route.id)}` : this.socketUrl;
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
      this.dispatch(authOpened, null); // the account's form closes
      return;
    }
    if (event.target.closest?.("input, textarea, select")) return;
    if (this.state.route.page === "analysis" || this.state.route.page === "puzzles") return; // their own keys
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
}

new App(document.body);
