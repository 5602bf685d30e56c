// The game screen: the board between both players' bars (name, presence, reserve, clock), the
// status and actions, the move list, chat, and links. Players and spectators share it; only a
// player on turn can pick pieces. Renders from the state; input.js binds the pointer.

import { Board, reserveMarkup } from "./board.js";
import { LOW_TIME, clockReading, describeTime, formatClock } from "./clock.js";
import { ICONS, html, render } from "./dom.js";
import { bindBoard, bindReserve } from "./input.js";
import { pieceIcon, pieceTitle } from "./bugs.js";
import { moveWords } from "./notation.js";
import { chosenMove } from "./options.js";
import { hasProfile, profileHref, ratingText, seatRating, signed, speedName } from "./players.js";
import { announcement, boardModel, chatLength, chatLines, firstMoveDeadline, resultText, seatColor, whyBarred } from "./views.js";
import { routeHash } from "./route.js";

const other = (color) => (color === "white" ? "black" : "white");
const PASS_MOVE = "pass"; // (protocol.js's PASS)

/** The takeback buttons of a casual game against a person (a bot is never asked): answer the
 * opponent's request, or ask to take back one's last move (once one has moved). */
function takebackButtons(gs, mine) {
  const opponent = gs[other(mine)];
  if (gs.rated || !opponent || opponent.account === "bot") return [];
  if (gs.takeback_offer === other(mine)) {
    return [html`<span class="offer" data-testid="takeback-asked">${name(gs, other(mine))} asks to take back a move</span>`,
      html`<button type="button" class="primary" data-action="acceptTakeback" data-testid="accept-takeback">Accept takeback</button>`,
      html`<button type="button" data-action="declineTakeback" data-testid="decline-takeback">Decline</button>`];
  }
  if (gs.takeback_offer === mine) return [html`<span class="offer" data-testid="takeback-waiting">Takeback asked…</span>`];
  const moved = gs.moves.length >= (mine === "white" ? 1 : 2);
  return moved ? [html`<button type="button" data-action="askTakeback" data-testid="takeback"
    title="Ask your opponent to take back your last move">Takeback</button>`] : [];
}

export class GameScreen {
  /** @param {HTMLElement} root @param {object} handlers board handlers (see input.js) */
  constructor(root, handlers) {
    this.root = root;
    render(root, html`
      <div class="game" data-testid="game">
        <section class="play-area">
          <div class="player-bar top" data-slot="top"></div>
          <div class="board-wrap">
            <div class="board-host" data-slot="board"></div>
            <div class="notice" data-slot="notice" data-testid="notice" aria-live="polite"></div>
          </div>
          <div class="sr-only" data-slot="announce" data-testid="announce" aria-live="polite"></div>
          <div class="banner" data-slot="banner"></div>
          <div class="player-bar bottom" data-slot="bottom"></div>
        </section>
        <aside class="side">
          <div class="card status-card">
            <div class="status" data-slot="status" data-testid="status"></div>
            <div class="deadline" data-slot="deadline"></div>
            <div class="actions" data-slot="actions"></div>
          </div>
          <div class="card moves-card">
            <h3>Moves <span data-slot="notation"></span></h3>
            <ol class="moves" data-slot="moves" data-testid="moves" tabindex="0" aria-label="Moves"></ol>
          </div>
          <div class="card chat-card">
            <h3>Chat <span class="chat-mode" data-slot="chatMode"></span></h3>
            <ul class="chat" data-slot="chat" data-testid="chat" tabindex="0" aria-label="Chat messages"></ul>
            <form class="chat-form" data-form="chat">
              <input name="text" autocomplete="off" placeholder="Say something…" aria-label="Chat message" data-testid="chat-input">
              <button type="submit">Send</button>
            </form>
          </div>
          <div class="card info" data-slot="info"></div>
        </aside>
      </div>`);
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    render(this.slots.top, barSkeleton());
    render(this.slots.bottom, barSkeleton());
    this.board = new Board(this.slots.board);
    bindBoard(this.board, handlers);
    this.board.onFlip = () => this.render(this.state); // the players' bars change places
    bindReserve(this.slots.top, this.board, handlers);
    bindReserve(this.slots.bottom, this.board, handlers);
    this.state = null;
    this.confirming = null;
  }

  render(state) {
    this.state = state;
    const view = state.game;
    const gs = view.state;
    const input = this.root.querySelector(".chat-form input");
    const length = chatLength(state); // the server's (welcome), once it said it
    if (length === null) input.removeAttribute("maxlength");
    else input.maxLength = length;
    this.root.querySelector(".game").dataset.version = gs ? gs.version : "";
    if (!gs) {
      render(this.slots.status, html`<span class="muted">Loading game ${view.id}…</span>`);
      this.board.set({ pieces: [] });
      return;
    }
    const me = state.me;
    const mine = seatColor(gs, me?.player);
    const bottom = this.board.flipped ? other(mine ?? "white") : mine ?? "white";
    const model = boardModel(state);
    this.board.set(model);
    this.renderBar(this.slots.top, gs, other(bottom), model);
    this.renderBar(this.slots.bottom, gs, bottom, model);
    this.tick(state, Date.now());

    // status line
    let status;
    if (gs.status === "open") status = "Waiting for an opponent…";
    else if (gs.status === "over") status = resultText(gs).title;
    else if (view.pending) status = state.connection.status === "online" ? "Sending your move…" : "Move queued: it goes when the connection is back";
    else if (mine) status = gs.turn === mine ? (gs.must_pass ? "Your turn: you must pass" : "Your turn") : `${name(gs, gs.turn)} to move`;
    else status = `${name(gs, gs.turn)} to move · you are watching`;
    render(this.slots.status, html`<span class="turn-dot ${gs.status === "live" ? gs.turn : ""}"></span>${status}`);
    this.slots.status.dataset.turn = gs.turn;

    render(this.slots.actions, this.actions(state, gs, mine));
    render(this.slots.banner, this.bannerClosed === gs.id ? html`` : banner(gs, mine, view.id));
    render(this.slots.notice, noticeMarkup(state.notice));
    render(this.slots.announce, html`${announcement(state, pieceTitle)}`);
    const notice = state.notice;
    this.slots.notice.dataset.kind = notice?.kind ?? "";

    render(this.slots.notation, notationSwitch(state.notation));
    this.renderMoves(gs, view, state.notation);
    const lines = chatLines(gs, me);
    const list = this.slots.chat;
    const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    render(list, lines.length ? html`${lines.map(chatLine)}` : html`<li class="muted">No messages yet.</li>`);
    if (atEnd) list.scrollTop = list.scrollHeight;
    const closed = gs.spectator_chat === false;
    render(this.slots.chatMode, mine
      ? html`<button type="button" class="link" data-action="spectatorChat" data-open="${closed ? "true" : "false"}" data-testid="spectator-chat"
          title="${closed ? "Let spectators chat again" : "Only the players may chat"}">${closed ? "open to spectators" : "close to spectators"}</button>`
      : html`${closed && html`<small class="muted" data-testid="chat-closed">players only</small>`}`);
    input.disabled = closed && !mine;
    input.placeholder = closed && !mine ? "The players have closed the chat to spectators" : "Say something…";

    render(this.slots.info, html`
      <div class="info-row"><span>${gs.game_type} · ${describeTime(gs.time)} · <span data-testid="game-kind">${gs.rated ? `rated ${gs.speed ?? ""}`.trim() : "casual"}</span>${gs.tournament && html` · <a href="#/tournament/${gs.tournament}" data-testid="game-tournament">${gs.tournament_name ?? "tournament"}</a>`}</span>
        <span class="spectators" data-testid="spectators" data-count="${gs.spectators}" title="spectators">${ICONS.eye} ${gs.spectators} watching</span></div>
      <div class="info-row"><span>Game <code>${gs.id}</code></span>
        <span><a href="/games/${gs.id}.txt" target="_blank" data-testid="record-link">record</a>
        ${gs.status !== "open" && html` · <a href="#/review/${gs.id}" data-testid="review-link">${gs.status === "over" ? "review" : "replay"}</a>
          · <a href="${routeHash({ page: "analysis", gameType: gs.game_type, moves: gs.moves })}" data-testid="analyse-link">analyse</a>`}</span></div>`);
  }

  renderBar(el, gs, color, model) {
    const seat = gs[color];
    el.dataset.color = color;
    // any bot: the server's (with its level) or a bot account playing from outside
    const bot = (seat?.account === "bot" || seat?.bot)
      && html`<span class="tag" data-testid="bot-${color}" title="a bot">${seat.bot ? `bot · ${seat.bot}` : "bot"}</span>`;
    const presence = seat && html`<span class="presence ${seat.connected ? "on" : "off"}" title="${seat.connected ? "connected" : "not connected"}"></span>`;
    const rating = seatRating(seat);
    const shown = seat && hasProfile(seat)
      ? html`<a href="${profileHref(seat.name)}" data-testid="profile-link-${color}">${seat.name}</a>` : html`${seat ? seat.name : "waiting…"}`;
    render(el.querySelector(".seat"), html`<span class="seat-hex ${color}"></span>
      <span class="name" data-testid="name-${color}">${shown}</span>${rating && html`<span class="rating" data-testid="rating-${color}" title="${seat.provisional ? "rating (provisional)" : "rating"}">${rating}</span>`}${bot}${presence}`);
    const hand = color === "white" ? gs.hand_white : gs.hand_black;
    const reserve = el.querySelector(".reserve");
    const focused = reserve.contains(document.activeElement) ? document.activeElement.dataset.bug : null;
    render(reserve, reserveMarkup(hand, color, {
      movable: model.movable,
      pickable: model.interactive && gs.turn === color,
      selected: model.selected && !model.selected.from ? model.selected.piece : null,
      why: (piece) => whyBarred(gs, piece, true),
    }));
    if (focused && !reserve.contains(document.activeElement)) {
      reserve.querySelector(`[data-bug="${CSS.escape(focused)}"]`)?.focus(); // kept on the keyboard
    }
    el.querySelector(".reserve").dataset.testid = `reserve-${color}`;
    const clock = el.querySelector(".clock");
    clock.dataset.testid = `clock-${color}`;
    clock.hidden = gs.time.kind === "none";
  }

  /** Update the clocks only (called often). */
  tick(state, now) {
    const view = state.game;
    const gs = view?.state;
    if (!gs) return;
    const reading = clockReading(gs.clocks, view.receivedAt, now, state.connection.lag);
    for (const slot of [this.slots.top, this.slots.bottom]) {
      const color = slot.dataset.color;
      const clock = slot.querySelector(".clock");
      const ms = reading[color];
      const text = formatClock(ms, gs.time.kind);
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("running", reading.running === color);
      clock.classList.toggle("low", ms !== null && gs.time.kind === "clock" && ms < LOW_TIME);
    }
    // a first move not made yet: the server aborts the game at its deadline
    const deadline = firstMoveDeadline(state);
    let words = html``;
    if (deadline) {
      const left = formatClock(Math.max(0, deadline.at - now), "clock");
      const mine = seatColor(gs, state.me?.player) === deadline.color;
      const whose = mine ? "Your first move" : `${name(gs, deadline.color)}'s first move`;
      words = html`<span data-testid="first-move">${whose}: ${left} left, or the game is aborted</span>`;
    }
    render(this.slots.deadline, words);
  }

  actions(state, gs, mine) {
    const buttons = [];
    const id = gs.id;
    if (gs.status === "open" && mine) {
      buttons.push(html`<p class="share">Send this link to a friend, or wait for someone in the lobby:
        <input readonly value="${location.origin + "/#/game/" + gs.id}"></p>`);
      buttons.push(html`<button type="button" data-action="cancelGame" data-game="${id}">Cancel game</button>`);
    } else if (gs.status === "open" && !mine && gs.rated && !state.me?.account) {
      buttons.push(html`<p class="muted" data-testid="cannot-join">A rated game: sign up or log in (at the top) to join it.</p>`);
    } else if (gs.status === "open" && !mine) {
      buttons.push(html`<button type="button" class="primary" data-action="join" data-game="${id}">Join this game</button>`);
    }
    const chosen = gs.status === "live" && mine ? chosenMove(state.game) : null;
    if (chosen) {
      const what = chosen === PASS_MOVE ? "the pass" : chosen.move;
      buttons.push(html`<span class="offer" data-testid="chosen-move">Play ${what}?</span>`,
        html`<button type="button" class="primary" data-action="confirmMove" data-testid="confirm-move">Confirm move</button>`,
        html`<button type="button" data-action="cancelMove" data-testid="cancel-move">Cancel</button>`);
    }
    if (gs.status === "live" && mine) {
      if (gs.must_pass && gs.turn === mine) {
        buttons.push(html`<button type="button" class="primary" data-action="pass" data-testid="pass">Pass</button>`);
      }
      if (gs.draw_offer === other(mine)) {
        buttons.push(html`<span class="offer">${name(gs, other(mine))} offers a draw</span>`,
          html`<button type="button" class="primary" data-action="acceptDraw" data-testid="accept-draw">Accept draw</button>`,
          html`<button type="button" data-action="declineDraw" data-testid="decline-draw">Decline</button>`);
      } else if (gs.draw_offer === mine) {
        buttons.push(html`<span class="offer">Draw offered…</span>`);
      } else {
        buttons.push(html`<button type="button" data-action="offerDraw" data-testid="offer-draw">Offer draw</button>`);
      }
      buttons.push(...takebackButtons(gs, mine));
      buttons.push(this.confirming === "resign"
        ? html`<button type="button" class="danger" data-action="resign" data-testid="resign-confirm">Really resign?</button>`
        : html`<button type="button" data-action="resign" data-testid="resign">Resign</button>`);
      const opponent = gs[other(mine)];
      if (opponent && !opponent.connected) {
        const gone = state.game?.gone?.[other(mine)];
        const from = gone != null && state.game.claimAfter != null
          ? ` (you may claim from ${new Date(gone + state.game.claimAfter).toLocaleTimeString()})` : "";
        buttons.push(html`<span class="offer" data-testid="opponent-left">Your opponent left${from}</span>`);
        buttons.push(html`<button type="button" data-action="claim" data-testid="claim" title="Win if your opponent stays away">Claim win</button>`);
      }
    }
    if (gs.status === "over" && mine && gs.tournament) {
      buttons.push(html`<a class="button primary" href="#/tournament/${gs.tournament}" data-testid="back-to-tournament">Back to the tournament</a>`);
    } else if (gs.status === "over" && mine && gs.result) {
      if (gs.rematch) {
        buttons.push(html`<a class="button primary" href="#/game/${gs.rematch}">Go to the rematch</a>`);
      } else if (gs.rematch_offer === mine) {
        buttons.push(html`<span class="offer">Rematch offered…</span>`);
      } else if (!gs[other(mine)]?.bot) {
        const offered = gs.rematch_offer === other(mine);
        buttons.push(html`<button type="button" class="primary" data-action="rematch" data-testid="rematch">${offered ? "Accept rematch" : "Rematch"}</button>`);
      }
    }
    if (gs.status === "over" && mine && gs[other(mine)]?.bot) {
      // against one of the server's bots: the same level again, colours swapped, in one click
      buttons.push(html`<button type="button" class="primary" data-action="playAgain" data-testid="play-again"
        title="${`A new game against the ${gs[other(mine)].bot} bot, playing ${other(mine)}`}">Play again (as ${other(mine)})</button>`);
    }
    if (gs.status === "over" && !mine && gs.rematch) {
      buttons.push(html`<a class="button" href="#/game/${gs.rematch}">Watch the rematch</a>`);
    }
    if (gs.status === "over") {
      buttons.push(html`<a class="button" href="#/review/${id}" data-testid="review">Review</a>`);
    }
    buttons.push(html`<a class="button" href="#/">Lobby</a>`);
    if (gs.status !== "over" && mine && typeof Notification !== "undefined" && Notification.permission === "default") {
      buttons.push(html`<button type="button" class="link" data-action="notify" data-testid="notify"
        title="A browser notification when it is your turn and this tab is in the background">notify me of my turn</button>`);
    }
    return html`${buttons}`;
  }

  renderMoves(gs, view, notation) {
    const rows = [];
    const traces = (ply) => {
      const color = ply % 2 === 1 ? "white" : "black";
      return gs[color]?.bot && html` <a class="trace" href="/visualizer?game=${gs.id}&amp;ply=${ply}" target="_blank" title="How the bot chose this move">${ICONS.search}</a>`;
    };
    const moves = [...gs.moves];
    if (view.pending && view.pending.move) moves.push(null);
    for (let i = 0; i < moves.length; i += 2) {
      const cell = (j) => {
        if (j >= moves.length) return html`<span></span>`;
        if (moves[j] === null) return html`<span class="pending">${view.pending.move}…</span>`;
        const last = j === gs.moves.length - 1 ? " last" : "";
        return html`<span class="mv${last}" data-ply="${j + 1}">${moveMarkup(moves[j], notation)}${traces(j + 1)}</span>`;
      };
      rows.push(html`<li>${cell(i)}${cell(i + 1)}</li>`);
    }
    const list = this.slots.moves;
    render(list, rows.length ? html`${rows}` : html`<li class="muted none">No moves yet.</li>`);
    list.scrollTop = list.scrollHeight;
  }

  destroy() {
    this.board.destroy();
  }
}

const PIECE = /^[wb][QSBGAMLP][1-3]?$/;
/** Where a MoveString's reference names the destination, as an arrow on the reference's side
 * where UHP writes its mark ("-wS1": "←" before the Spider, west of it). */
const ARROWS = [[/^(\S+)-$/, "→"], [/^(\S+)\/$/, "↗"], [/^\\(\S+)$/, "↖"], [/^-(\S+)$/, "←"], [/^\/(\S+)$/, "↙"], [/^(\S+)\\$/, "↘"]];

function iconOf(piece) {
  return PIECE.test(piece)
    ? html`<span class="mv-piece">${pieceIcon(piece, 20)}${piece.slice(2)}</span>`
    : html`${piece}`;
}

/** A move as the player chose to read them: its MoveString ("uhp"), or "icons": the piece's
 * icon, an arrow, and the reference piece's icon (the move in words as its title). */
export function moveMarkup(move, notation) {
  if (notation !== "icons" || move === "pass") return html`${move}`;
  const [piece, reference] = move.split(" ");
  const words = moveWords(move, pieceTitle);
  if (!reference) return html`<span class="mv-icons" role="img" title="${words}" aria-label="${words}">${iconOf(piece)}</span>`;
  const found = ARROWS.map(([re, arrow]) => [re.exec(reference), arrow]).find(([m]) => m);
  const arrow = (mark) => html`<span class="arrow">${mark}</span>`;
  let where = html`${arrow("on")}${iconOf(reference)}`; // on top of it
  if (found) {
    const [[, to], mark] = found;
    where = reference.startsWith(to) ? html`${iconOf(to)}${arrow(mark)}` : html`${arrow(mark)}${iconOf(to)}`;
  }
  return html`<span class="mv-icons" role="img" title="${words}" aria-label="${words}">${iconOf(piece)}<span class="gap"></span>${where}</span>`;
}

/** The move list's switch between MoveStrings and piece icons. */
export function notationSwitch(notation) {
  const icons = notation === "icons";
  return html`<button type="button" class="link" data-action="notation" data-testid="notation"
    title="${icons ? "Write moves as UHP MoveStrings" : "Write moves with piece icons"}">${icons ? "as text" : "as icons"}</button>`;
}

function barSkeleton() {
  return html`<div class="seat"></div><div class="reserve"></div><div class="clock" hidden></div>`;
}

/** A notice (a toast) with its dismiss button, or nothing. */
export function noticeMarkup(notice) {
  return notice ? html`<div class="toast ${notice.kind}">${notice.text}<button type="button" class="close" data-action="dismiss" aria-label="Dismiss">×</button></div>` : html``;
}

/** A chat line (see chatLines), with its mute or unmute button for a player of the game. */
function chatLine(line) {
  const button = line.canMute && (line.muted
    ? html`<button type="button" class="mute" data-action="unmute" data-player="${line.player}" data-testid="unmute" title="Accept their chat lines again">unmute</button>`
    : html`<button type="button" class="mute" data-action="mute" data-player="${line.player}" data-testid="mute" title="Refuse their chat lines in this game">mute</button>`);
  return html`<li${line.muted ? html` class="silenced" title="muted"` : ""}><b>${line.by}</b> ${line.text}${button}</li>`;
}

function name(gs, color) {
  return gs[color]?.name ?? (color === "white" ? "White" : "Black");
}

/** What a finished rated game did to each side's rating (the state's rating_changes), for
 * players and spectators alike: "ada 1500 → 1516 (+16)"; or why it changed none (the state's
 * unrated: too few moves, or too many rated games of the pair in a day). */
export function ratingChanges(gs) {
  const changes = gs.rating_changes ?? [];
  if (gs.unrated) return html`<p class="muted small" data-testid="unrated">Not rated: ${gs.unrated}.</p>`;
  if (changes.length === 0) return html``;
  return html`<ul class="rating-changes" data-testid="rating-changes" aria-label="${`${speedName(gs.speed ?? "")} rating changes`.trim()}">${changes.map((c) => html`
    <li data-testid="rating-change-${c.color}" data-delta="${c.after - c.before}"><span class="seat-hex ${c.color}"></span>${name(gs, c.color)}
      ${c.before} → ${ratingText(c.after, c.provisional)} <b class="${c.after >= c.before ? "up" : "down"}">(${signed(c.after - c.before)})</b></li>`)}</ul>`;
}

function banner(gs, mine, id) {
  if (gs.status !== "over") return html``;
  const { title, detail, winner } = resultText(gs);
  const mood = !gs.result ? "neutral" : gs.result === "Draw" ? "draw" : mine ? (winner === mine ? "won" : "lost") : "neutral";
  const headline = mine && winner ? (winner === mine ? "You won!" : "You lost") : title;
  return html`<div class="result ${mood}" data-testid="result" data-result="${gs.result ?? ""}" data-reason="${gs.reason ?? ""}">
    <div class="result-words"><div class="result-title">${headline}</div>
    <div class="result-detail">${mine && winner ? `${title}: ${detail}` : detail}</div>
    ${ratingChanges(gs)}</div>
    <a class="button" href="#/review/${id}">Review the game</a>
    <button type="button" class="close" data-action="closeBanner" aria-label="Close">×</button></div>`;
}
