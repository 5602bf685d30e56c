// The page's buttons and forms (data-action, data-form: input.js's bindActions), by concern:
// the lobby's, the game's, the account's, and the rest of the page's (review, settings). Each
// concern is given what it uses, by name (as Connection is; `actions` says what each is); the
// state changes only through transitions.

import { analysisAsked } from "./evaluation.js";
import { TIME_BY_KIND, formChoice } from "./lobby.js";
import { authFailed, authOpened, authSent, profilePaged, ratingRange, whyNotRated } from "./players.js";
import * as P from "./protocol.js";
import { choiceDropped, chosenMove, confirmMoves, setConfirmMoves } from "./options.js";
import { GAME_ID } from "./route.js";
import * as S from "./state.js";
import { NICKNAME_KEY, NOTATION_KEY } from "./storage.js";
import * as Sub from "./subscription.js";
import { challengeTerms } from "./views.js";

/** Every action of the page, by name, from what they use:
 * - `state()`: the page's state now; `dispatch(transition, ...args)`: a transition applied;
 * - `send(message)`: sent, or false (the page then says it is not connected);
 * - `conn`: the connection (`rename()`, `login(name, password)`, `reconnect()`);
 * - `move(legal)`: a move played (play.js's `move`); `go(route)`: the page shows `route`;
 * - `screen()`: the screen on show (the lobby's `form`, the game's `confirming` and
 *   `bannerClosed`); `render()`, `renderHeader()`: drawn again;
 * - `sounds`: `muted`, `setMuted(muted)`; `subscribe()`: what the route shows asked for. */
export function actions(uses) {
  return { ...lobbyActions(uses), ...gameActions(uses), ...accountActions(uses), ...pageActions(uses) };
}

/** Creating, challenging, joining and cancelling games; opening one by its id. */
export function lobbyActions({ state, dispatch, send, go, screen }) {
  const create = (message) => {
    dispatch(Sub.awaited, "create");
    send(message);
  };
  return {
    playBot: (data) => create(P.CreateGame({ game_type: "Base+MLP", opponent: "bot", level: data.get("level") })),
    create: (data) => {
      const { game_type, time, color } = formChoice(data);
      const [opponent, level] = String(data.get("opponent")).split(":");
      const rated = data.get("rated") === "rated";
      if (rated) {
        const why = whyNotRated(state().me, time, opponent);
        if (why) {
          dispatch(S.noticed, `Not a rated game: ${why}.`, "error");
          return;
        }
      }
      // a rating range is for an open game only (anyone may join)
      const range = opponent === P.Opponent.ANYONE ? ratingRange(data.get("rating_min"), data.get("rating_max")) : { min: null, max: null };
      if (range.error) {
        dispatch(S.noticed, `Rating range: ${range.error}.`, "error");
        return;
      }
      create(P.CreateGame({
        game_type, time: P.TimeControl(time), color, opponent, level: level ?? null,
        rated, rating_min: range.min, rating_max: range.max,
      }));
    },
    challenge: (el) => {
      const name = el.dataset.bot;
      const choice = formChoice(new FormData(screen().form));
      const bot = state().lobby.bots.find((b) => b.name === name);
      // A bot gone from the list meanwhile: the server says why it cannot be challenged.
      const terms = bot ? challengeTerms(bot, choice, TIME_BY_KIND)
        : { ...choice, opponent: P.Opponent.BOTS, challenge: name };
      create(P.CreateGame({ ...terms, time: P.TimeControl(terms.time) }));
    },
    join: (el) => {
      dispatch(Sub.awaited, "join");
      send(P.JoinGame(el.dataset.game));
    },
    cancel: (el) => send(P.CancelGame(el.dataset.game)),
    cancelGame: (el) => send(P.CancelGame(el.dataset.game)),
    openGame: (data) => {
      const id = String(data.get("id")).trim();
      if (!GAME_ID.test(id)) return;
      go(data.get("how") === "review" ? { page: "review", id, ply: null } : { page: "game", id });
    },
  };
}

/** The game on show: pass, resign (asked twice), draws, takebacks, claims, rematches, play
 * again (a bot), a move confirmed or cancelled, its chat. */
export function gameActions({ state, dispatch, send, move, screen, render }) {
  const gameId = () => state().game?.id;
  return {
    pass: () => move(P.PASS),
    resign: () => {
      if (screen().confirming !== "resign") {
        screen().confirming = "resign";
        render();
        setTimeout(() => {
          if (screen()?.confirming === "resign") {
            screen().confirming = null;
            render();
          }
        }, 4000);
        return;
      }
      screen().confirming = null;
      send(P.Resign(gameId()));
    },
    offerDraw: () => send(P.Draw(gameId(), "offer")),
    acceptDraw: () => send(P.Draw(gameId(), "accept")),
    declineDraw: () => send(P.Draw(gameId(), "decline")),
    claim: () => send(P.ClaimWin(gameId())),
    rematch: () => send(P.Rematch(gameId())),
    askTakeback: () => send(P.Takeback(gameId(), "ask")),
    acceptTakeback: () => send(P.Takeback(gameId(), "accept")),
    declineTakeback: () => send(P.Takeback(gameId(), "decline")),
    playAgain: () => {
      // the same bot level, game type and time control, the colours swapped
      const gs = state().game?.state;
      const me = state().me?.player;
      const mine = gs?.white?.player === me ? "white" : gs?.black?.player === me ? "black" : null;
      const bot = mine && gs[mine === "white" ? "black" : "white"];
      if (!bot?.bot) return;
      dispatch(Sub.awaited, "create");
      send(P.CreateGame({
        game_type: gs.game_type, time: P.TimeControl(gs.time), color: mine === "white" ? "black" : "white",
        opponent: P.Opponent.BOT, level: bot.bot,
      }));
    },
    confirmMove: () => {
      const legal = chosenMove(state().game);
      if (legal) move(legal, { confirmed: true });
    },
    cancelMove: () => dispatch(choiceDropped),
    chat: (data, form) => {
      const text = String(data.get("text") ?? "").trim();
      if (text && send(P.Chat(gameId(), text))) form.reset();
    },
    spectatorChat: (el) => send(P.SpectatorChat(gameId(), el.dataset.open === "true")),
    mute: (el) => send(P.Mute(gameId(), el.dataset.player, true)),
    unmute: (el) => send(P.Mute(gameId(), el.dataset.player, false)),
    closeBanner: () => {
      screen().bannerClosed = state().game?.id;
      render();
    },
  };
}

/** The player's name and account: the name form, sign up, log in and out, the password. */
export function accountActions({ dispatch, send, conn }) {
  return {
    editName: () => dispatch((s) => ({ ...s, editingName: true })),
    nickname: (data) => {
      const nickname = String(data.get("nickname")).trim();
      if (!nickname) return;
      localStorage.setItem(NICKNAME_KEY, nickname);
      dispatch((s) => ({ ...S.nicknameChosen(s, nickname), editingName: false }));
      conn.rename();
    },
    logout: (el) => {
      closeMenu(el);
      send(P.Logout(false));
    },
    logoutEverywhere: (el) => {
      closeMenu(el);
      send(P.Logout(true));
    },
    authOpen: (el) => {
      closeMenu(el);
      dispatch(authOpened, el.dataset.panel || null);
    },
    signup: (data) => {
      if (send(P.SignUp(String(data.get("name")).trim(), String(data.get("password"))))) dispatch(authSent);
    },
    changePassword: (data) => {
      if (send(P.ChangePassword(String(data.get("old")), String(data.get("new"))))) dispatch(authSent);
    },
    login: async (data) => {
      dispatch(authSent);
      const error = await conn.login(String(data.get("name")).trim(), String(data.get("password")));
      if (error) dispatch(authFailed, { ...error, request: "login" });
      else dispatch(authOpened, null);
    },
  };
}

/** The rest of the page: the connection badge, settings, notices, profiles' pages, review. */
export function pageActions({ state, dispatch, conn, send, render, renderHeader, sounds, subscribe }) {
  return {
    reconnect: () => conn.reconnect(),
    notation: () => {
      const notation = state().notation === "icons" ? "uhp" : "icons";
      localStorage.setItem(NOTATION_KEY, notation);
      dispatch(S.notationChosen, notation);
    },
    notify: () => {
      Notification.requestPermission().then(() => render(), () => {});
    },
    toggleSound: () => {
      sounds.setMuted(!sounds.muted);
      renderHeader();
    },
    toggleConfirm: () => {
      setConfirmMoves(!confirmMoves());
      dispatch(choiceDropped);
      renderHeader();
    },
    profilePage: (el) => {
      dispatch(profilePaged, Number(el.dataset.page));
      subscribe(); // asks for that page
    },
    dismiss: () => dispatch(S.noticed, null),
    reviewFirst: () => dispatch(S.reviewStepped, 0),
    reviewPrev: () => dispatch(S.reviewStepped, state().review.ply - 1),
    reviewNext: () => dispatch(S.reviewStepped, state().review.ply + 1),
    reviewLast: () => dispatch(S.reviewStepped, Infinity),
    reviewGo: (el) => dispatch(S.reviewStepped, Number(el.dataset.ply)),
    analyse: () => {
      if (state().review && send(P.AnalyseGame(state().review.id, true))) dispatch(analysisAsked);
    },
  };
}

/** Close the account menu an item of which was chosen. */
function closeMenu(el) {
  el?.closest?.("details")?.removeAttribute("open");
}
