// Playing the game on show, for app.js: the board's handlers (a piece picked, a destination
// chosen, a drop), moves made and sent or queued, and the updates received with what they
// sound and notify. Each function takes the app (its state, `dispatch`, connection, sounds,
// `go`); the state changes only through the transitions of state.js and subscription.js.

import { spellMove } from "./notation.js";
import * as P from "./protocol.js";
import { remember } from "./storage.js";
import * as S from "./state.js";
import * as Sub from "./subscription.js";
import { isMyTurn, isPlayer, premoveDue } from "./views.js";

/** The handlers the board's input calls (input.js's bindBoard). */
export function boardHandlers(app) {
  return {
    canDrag: () => {
      const gs = app.state.game?.state;
      return Boolean(gs && isMyTurn(app.state.me, gs) && !app.state.game.pending);
    },
    pick: (piece, from, { drag = false } = {}) => {
      const selected = app.state.game?.selected;
      if (!drag && selected?.piece === piece) app.dispatch(S.deselected);
      else app.dispatch(S.selected, piece, from);
    },
    target: (move) => {
      const legal = app.state.game?.state?.legal.find((m) => m.move === move);
      if (legal) makeMove(app, legal);
    },
    drop: (piece, from, q, r) => drop(app, piece, from, q, r),
    empty: (q, r) => {
      const selected = app.state.game?.selected;
      if (selected) drop(app, selected.piece, selected.from, q, r, { quiet: true });
    },
  };
}

/** `piece` let go on hex (q, r): a legal move is played; anything else is not, and the
 * server's engine is asked why (the client holds no rules to tell). */
function drop(app, piece, from, q, r, { quiet = false } = {}) {
  const view = app.state.game;
  const gs = view?.state;
  if (!gs) return;
  if (from && from.q === q && from.r === r) return; // put back where it was
  const { me } = app.state;
  if (view.selected && !view.pending && gs.status === "live" && isPlayer(me, gs) && !isMyTurn(me, gs)) {
    app.dispatch(S.premoved, q, r); // the opponent's turn: played when it is this player's
    return;
  }
  if (!isMyTurn(me, gs) || view.pending) {
    app.dispatch(S.selected, piece, from); // says why not (not your turn, over...)
    app.dispatch(S.deselected);
    return;
  }
  const legal = gs.legal.find((m) => m.piece === piece && m.to_q === q && m.to_r === r);
  if (legal) {
    makeMove(app, legal);
    return;
  }
  const move = spellMove(gs.pieces, piece, q, r);
  if (!move) {
    app.dispatch(S.deselected);
    if (!quiet) app.dispatch(S.noticed, `${piece} cannot go there: that hex does not touch the hive.`, "error");
    return;
  }
  if (app.conn.online) {
    app.dispatch(S.probed, piece, move);
    app.conn.send(P.Play(gs.id, gs.version, move));
  } else {
    app.dispatch(S.deselected);
    app.dispatch(S.noticed, `${piece} cannot go there.`, "error");
  }
}

/** Play `move` (a legal move, or PASS): sent at once when the game on show is up to date on
 * this connection, else queued (see flush). */
export function makeMove(app, move) {
  const view = app.state.game;
  const gs = view?.state;
  if (!gs || !isMyTurn(app.state.me, gs) || view.pending) return;
  const text = move === P.PASS ? P.PASS : move.move;
  const sent = app.conn.online && app.state.subs.syncedOn === app.conn.number
    && app.conn.send(P.Play(gs.id, gs.version, text));
  app.dispatch(S.moveMade, move, sent ? app.conn.number : null);
  if (!sent) app.dispatch(S.noticed, "Connection lost: your move is queued and goes as soon as it is back.");
}

/** Send the pending move if it has not gone on this connection (a move made while the
 * socket was down, or one whose answer the drop swallowed: it carries the version it was
 * made on, so the server plays it once and answers `stale` to a copy). */
function flush(app) {
  const pending = app.state.game?.pending;
  if (!pending || !app.conn.online || pending.sentOn === app.conn.number) return;
  if (app.state.subs.syncedOn !== app.conn.number) return; // the watch's update comes first
  if (app.conn.send(P.Play(app.state.game.id, pending.version, pending.move))) {
    app.dispatch(S.pendingSent, app.conn.number);
  }
}

/** An `update`: the game this page created or joined is shown; the game on show takes it,
 * with the queued move or the premove that is now due, its sounds, and a rematch followed. */
export function updated(app, update) {
  const awaiting = app.state.subs.awaiting;
  const created = Boolean(awaiting); // a game this page created or joined: its start sounds
  if (awaiting && app.state.game?.id !== update.game) {
    app.dispatch(Sub.awaited, null);
    app.dispatch(Sub.watched, update.game); // creating and joining watch the game on the server
    app.go({ page: "game", id: update.game });
  }
  if (app.state.game?.id !== update.game) return;
  const before = app.state.game.state;
  app.dispatch(S.updateReceived, update, Date.now());
  app.dispatch(Sub.synced, app.conn.number);
  remember(update.state, Date.now());
  flush(app);
  const due = premoveDue(app.state); // a premove waits, and it is this player's turn now
  if (due) {
    app.dispatch(S.premoveDone, due.legal !== null);
    if (due.legal) makeMove(app, due.legal);
  }
  const gs = update.state;
  if (gs.rating_changes?.length && isPlayer(app.state.me, gs)) app.dispatch(Sub.ratingsAsked, false); // my ratings changed
  if (before) sound(app, before, gs);
  else if (created && gs.status === "live") app.sounds.play("start");
  const rematch = update.events.find((e) => e.kind === "rematch");
  if (rematch && isPlayer(app.state.me, gs) && before) {
    app.dispatch(Sub.watched, rematch.text); // the server moved the players' watch to the new game
    app.go({ page: "game", id: rematch.text });
  }
}

/** The sounds of what changed from game state `before` to `gs` (none for the first state a
 * page sees), and the tab's nudge when it became this player's turn while hidden. */
function sound(app, before, gs) {
  // played after the move is drawn (a task after this one), which they must not delay
  const play = (name) => setTimeout(() => app.sounds.play(name));
  if (before.status === "open" && gs.status === "live") play("start");
  else if (gs.moves.length > before.moves.length) play("move");
  if (before.status !== "over" && gs.status === "over") play("end");
  const mine = isMyTurn(app.state.me, gs);
  if (document.hidden && mine && !isMyTurn(app.state.me, before)) {
    app.dispatch(Sub.nudged, true);
    notify(gs);
  }
  if (!mine) app.dispatch(Sub.nudged, false);
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
