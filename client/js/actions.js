// The page's buttons and forms (data-action, data-form: input.js's bindActions), by concern:
// the lobby's, the game's, the account's, and the rest of the page's (review, settings). Each
// takes the app (its state, `dispatch`, `send`, connection, screen); the state changes only
// through transitions.

import { TIME_BY_KIND, formChoice } from "./lobby.js";
import { makeMove } from "./play.js";
import { authFailed, authOpened, authSent, profilePaged, ratingRange, whyNotRated } from "./players.js";
import * as P from "./protocol.js";
import { GAME_ID } from "./route.js";
import * as S from "./state.js";
import { NICKNAME_KEY, NOTATION_KEY } from "./storage.js";
import * as Sub from "./subscription.js";
import { challengeTerms } from "./views.js";

/** Every action of the page, by name. */
export function actions(app) {
  return { ...lobbyActions(app), ...gameActions(app), ...accountActions(app), ...pageActions(app) };
}

/** Creating, challenging, joining and cancelling games; opening one by its id. */
export function lobbyActions(app) {
  const create = (message) => {
    app.dispatch(Sub.awaited, "create");
    app.send(message);
  };
  return {
    playBot: (data) => create(P.CreateGame({ game_type: "Base+MLP", opponent: "bot", level: data.get("level") })),
    create: (data) => {
      const { game_type, time, color } = formChoice(data);
      const [opponent, level] = String(data.get("opponent")).split(":");
      const rated = data.get("rated") === "rated";
      if (rated) {
        const why = whyNotRated(app.state.me, time, opponent);
        if (why) {
          app.dispatch(S.noticed, `Not a rated game: ${why}.`, "error");
          return;
        }
      }
      // a rating range is for an open game only (anyone may join)
      const range = opponent === P.Opponent.ANYONE ? ratingRange(data.get("rating_min"), data.get("rating_max")) : { min: null, max: null };
      if (range.error) {
        app.dispatch(S.noticed, `Rating range: ${range.error}.`, "error");
        return;
      }
      create(P.CreateGame({
        game_type, time: P.TimeControl(time), color, opponent, level: level ?? null,
        rated, rating_min: range.min, rating_max: range.max,
      }));
    },
    challenge: (el) => {
      const name = el.dataset.bot;
      const choice = formChoice(new FormData(app.screen.form));
      const bot = app.state.lobby.bots.find((b) => b.name === name);
      // A bot gone from the list meanwhile: the server says why it cannot be challenged.
      const terms = bot ? challengeTerms(bot, choice, TIME_BY_KIND)
        : { ...choice, opponent: P.Opponent.BOTS, challenge: name };
      create(P.CreateGame({ ...terms, time: P.TimeControl(terms.time) }));
    },
    join: (el) => {
      app.dispatch(Sub.awaited, "join");
      app.send(P.JoinGame(el.dataset.game));
    },
    cancel: (el) => app.send(P.CancelGame(el.dataset.game)),
    cancelGame: (el) => app.send(P.CancelGame(el.dataset.game)),
    openGame: (data) => {
      const id = String(data.get("id")).trim();
      if (!GAME_ID.test(id)) return;
      app.go(data.get("how") === "review" ? { page: "review", id, ply: null } : { page: "game", id });
    },
  };
}

/** The game on show: pass, resign (asked twice), draws, claims, rematches, its chat. */
export function gameActions(app) {
  const gameId = () => app.state.game?.id;
  return {
    pass: () => makeMove(app, P.PASS),
    resign: () => {
      if (app.screen.confirming !== "resign") {
        app.screen.confirming = "resign";
        app.render();
        setTimeout(() => {
          if (app.screen?.confirming === "resign") {
            app.screen.confirming = null;
            app.render();
          }
        }, 4000);
        return;
      }
      app.screen.confirming = null;
      app.send(P.Resign(gameId()));
    },
    offerDraw: () => app.send(P.Draw(gameId(), "offer")),
    acceptDraw: () => app.send(P.Draw(gameId(), "accept")),
    declineDraw: () => app.send(P.Draw(gameId(), "decline")),
    claim: () => app.send(P.ClaimWin(gameId())),
    rematch: () => app.send(P.Rematch(gameId())),
    chat: (data, form) => {
      const text = String(data.get("text") ?? "").trim();
      if (text && app.send(P.Chat(gameId(), text))) form.reset();
    },
    spectatorChat: (el) => app.send(P.SpectatorChat(gameId(), el.dataset.open === "true")),
    mute: (el) => app.send(P.Mute(gameId(), el.dataset.player, true)),
    unmute: (el) => app.send(P.Mute(gameId(), el.dataset.player, false)),
    closeBanner: () => {
      app.screen.bannerClosed = app.state.game?.id;
      app.render();
    },
  };
}

/** The player's name and account: the name form, sign up, log in and out, the password. */
export function accountActions(app) {
  return {
    editName: () => app.dispatch((s) => ({ ...s, editingName: true })),
    nickname: (data) => {
      const nickname = String(data.get("nickname")).trim();
      if (!nickname) return;
      localStorage.setItem(NICKNAME_KEY, nickname);
      app.dispatch((s) => ({ ...S.nicknameChosen(s, nickname), editingName: false }));
      app.conn.rename();
    },
    logout: (el) => {
      closeMenu(el);
      app.send(P.Logout(false));
    },
    logoutEverywhere: (el) => {
      closeMenu(el);
      app.send(P.Logout(true));
    },
    authOpen: (el) => {
      closeMenu(el);
      app.dispatch(authOpened, el.dataset.panel || null);
    },
    signup: (data) => {
      if (app.send(P.SignUp(String(data.get("name")).trim(), String(data.get("password"))))) app.dispatch(authSent);
    },
    changePassword: (data) => {
      if (app.send(P.ChangePassword(String(data.get("old")), String(data.get("new"))))) app.dispatch(authSent);
    },
    login: async (data) => {
      app.dispatch(authSent);
      const error = await app.conn.login(String(data.get("name")).trim(), String(data.get("password")));
      if (error) app.dispatch(authFailed, { ...error, request: "login" });
      else app.dispatch(authOpened, null);
    },
  };
}

/** The rest of the page: the connection badge, settings, notices, profiles' pages, review. */
export function pageActions(app) {
  return {
    reconnect: () => app.conn.reconnect(),
    notation: () => {
      const notation = app.state.notation === "icons" ? "uhp" : "icons";
      localStorage.setItem(NOTATION_KEY, notation);
      app.dispatch(S.notationChosen, notation);
    },
    notify: () => {
      Notification.requestPermission().then(() => app.render(), () => {});
    },
    toggleSound: () => {
      app.sounds.setMuted(!app.sounds.muted);
      app.renderHeader();
    },
    profilePage: (el) => {
      app.dispatch(profilePaged, Number(el.dataset.page));
      app.subscribe(); // asks for that page
    },
    dismiss: () => app.dispatch(S.noticed, null),
    reviewFirst: () => app.dispatch(S.reviewStepped, 0),
    reviewPrev: () => app.dispatch(S.reviewStepped, app.state.review.ply - 1),
    reviewNext: () => app.dispatch(S.reviewStepped, app.state.review.ply + 1),
    reviewLast: () => app.dispatch(S.reviewStepped, Infinity),
    reviewGo: (el) => app.dispatch(S.reviewStepped, Number(el.dataset.ply)),
  };
}

/** Close the account menu an item of which was chosen. */
function closeMenu(el) {
  el?.closest?.("details")?.removeAttribute("open");
}
