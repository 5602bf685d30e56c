// Playing the game on show, for app.js: the board's handlers (a piece picked, a destination
// chosen, a drop), moves made and sent or queued, and the updates received with what they
// sound and notify. `playing` is given what it uses, by name (as Connection is): the state,
// `dispatch`, the connection, `go` and the sounds; the state changes only through the
// transitions of state.js and subscription.js.

import { spellMove } from "./notation.js";
import { choiceDropped, confirmMoves, moveChosen } from "./options.js";
import * as P from "./protocol.js";
import { remember } from "./storage.js";
import * as S from "./state.js";
import * as Sub from "./subscription.js";
import { isMyTurn, isPlayer, premoveDue } from "./views.js";

/** The game on show, played, with what it uses:
 * - `state()`: the page's state now;
 * - `dispatch(transition, ...args)`: a transition of state.js or subscription.js applied;
 * - `conn`: the connection (`online`, `number`, `send(message)`: false when not sent);
 * - `go(route)`: the page shows `route`;
 * - `sounds`: `play(name)`.
 * Returns `board` (the handlers input.js's bindBoard calls), `move` (play a legal move, or
 * PASS) and `updated` (an `update` received). */
export function playing({ state, dispatch, conn, go, sounds }) {
  const board = {
    canDrag: () => {
      const { game, me } = state();
      return Boolean(game?.state && isMyTurn(me, game.state) && !game.pending);
    },
    pick: (piece, from, { drag = false } = {}) => {
      const selected = state().game?.selected;
      if (!drag && selected?.piece === piece) dispatch(S.deselected);
      else dispatch(S.selected, piece, from);
    },
    target: (text) => {
      const legal = state().game?.state?.legal.find((m) => m.move === text);
      if (legal) move(legal);
    },
    drop: (piece, from, q, r) => drop(piece, from, q, r),
    empty: (q, r) => {
      const selected = state().game?.selected;
      if (selected) drop(selected.piece, selected.from, q, r, { quiet: true });
    },
  };

  /** `piece` let go on hex (q, r): a legal move is played; anything else is not, and the
   * server's engine is asked why (the client holds no rules to tell). */
  function drop(piece, from, q, r, { quiet = false } = {}) {
    const { game: view, me } = state();
    const gs = view?.state;
    if (!gs) return;
    if (from && from.q === q && from.r === r) return; // put back where it was
    if (view.selected && !view.pending && gs.status === "live" && isPlayer(me, gs) && !isMyTurn(me, gs)) {
      dispatch(S.premoved, q, r); // the opponent's turn: played when it is this player's
      return;
    }
    if (!isMyTurn(me, gs) || view.pending) {
      dispatch(S.selected, piece, from); // says why not (not your turn, over...)
      dispatch(S.deselected);
      return;
    }
    const legal = gs.legal.find((m) => m.piece === piece && m.to_q === q && m.to_r === r);
    if (legal) {
      move(legal);
      return;
    }
    const text = spellMove(gs.pieces, piece, q, r);
    if (!text) {
      dispatch(S.deselected);
      if (!quiet) dispatch(S.noticed, `${piece} cannot go there: that hex does not touch the hive.`, "error");
      return;
    }
    if (conn.online) {
      dispatch(S.probed, piece, text);
      conn.send(P.Play(gs.id, gs.version, text));
    } else {
      dispatch(S.deselected);
      dispatch(S.noticed, `${piece} cannot go there.`, "error");
    }
  }

  /** Play `legal` (a legal move, or PASS): sent at once when the game on show is up to date
   * on this connection, else queued (see flush). With move confirmation on, a move not yet
   * `confirmed` waits for the confirm instead (options.js). */
  function move(legal, { confirmed = false } = {}) {
    const { game: view, me, subs } = state();
    const gs = view?.state;
    if (!gs || !isMyTurn(me, gs) || view.pending) return;
    if (!confirmed && confirmMoves()) {
      dispatch(moveChosen, legal, gs.version);
      return;
    }
    dispatch(choiceDropped);
    const text = legal === P.PASS ? P.PASS : legal.move;
    const sent = conn.online && subs.syncedOn === conn.number && conn.send(P.Play(gs.id, gs.version, text));
    dispatch(S.moveMade, legal, sent ? conn.number : null);
    if (!sent) dispatch(S.noticed, "Connection lost: your move is queued and goes as soon as it is back.");
  }

  /** Send the pending move if it has not gone on this connection (a move made while the
   * socket was down, or one whose answer the drop swallowed: it carries the version it was
   * made on, so the server plays it once and answers `stale` to a copy). */
  function flush() {
    const { game, subs } = state();
    const pending = game?.pending;
    if (!pending || !conn.online || pending.sentOn === conn.number) return;
    if (subs.syncedOn !== conn.number) return; // the watch's update comes first
    if (conn.send(P.Play(game.id, pending.version, pending.move))) dispatch(S.pendingSent, conn.number);
  }

  /** An `update`: the game this page created or joined is shown; the game on show takes it,
   * with the queued move or the premove that is now due, its sounds, and a rematch followed. */
  function updated(update) {
    const awaiting = state().subs.awaiting;
    const created = Boolean(awaiting); // a game this page created or joined: its start sounds
    if (awaiting && state().game?.id !== update.game) {
      dispatch(Sub.awaited, null);
      dispatch(Sub.watched, update.game); // creating and joining watch the game on the server
      go({ page: "game", id: update.game });
    }
    if (state().game?.id !== update.game) return;
    const before = state().game.state;
    dispatch(S.updateReceived, update, Date.now());
    dispatch(Sub.synced, conn.number);
    remember(update.state, Date.now());
    flush();
    const due = premoveDue(state()); // a premove waits, and it is this player's turn now
    if (due) {
      dispatch(S.premoveDone, due.legal !== null);
      if (due.legal) move(due.legal, { confirmed: true }); // chosen ahead: no second ask
    }
    const gs = update.state;
    const mine = isPlayer(state().me, gs);
    if (gs.rating_changes?.length && mine) dispatch(Sub.ratingsAsked, false); // my ratings changed
    if (before) sound(before, gs);
    else if (created && gs.status === "live") sounds.play("start");
    const rematch = update.events.find((e) => e.kind === "rematch");
    if (rematch && mine && before) {
      dispatch(Sub.watched, rematch.text); // the server moved the players' watch to the new game
      go({ page: "game", id: rematch.text });
    }
  }

  /** The sounds of what changed from game state `before` to `gs` (none for the first state a
   * page sees), and the tab's nudge when it became this player's turn while hidden. */
  function sound(before, gs) {
    // played after the move is drawn (a task after this one), which they must not delay
    const play = (name) => setTimeout(() => sounds.play(name));
    if (before.status === "open" && gs.status === "live") play("start");
    else if (gs.moves.length > before.moves.length) play("move");
    if (before.status !== "over" && gs.status === "over") play("end");
    const { me } = state();
    const mine = isMyTurn(me, gs);
    if (document.hidden && mine && !isMyTurn(me, before)) {
      dispatch(Sub.nudged, true);
      notify(gs);
    }
    if (!mine) dispatch(Sub.nudged, false);
  }

  return { board, move, updated };
}

/** A browser notification that it is this player's turn (the tab is hidden), when the
 * player allowed them (the game's "notify me" link asks). */
function notify(gs) {
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
