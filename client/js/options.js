// A player's option kept in this browser beside the sound and the theme: move confirmation.
// On, a move chosen on the board (or a pass) is not sent at once: the game shows it to
// confirm or cancel, and only a confirm sends it (a premove, chosen ahead, goes as it is).
// The transitions are pure; the option is read from local storage.

export const CONFIRM_KEY = "hive.confirmMoves";

/** Whether moves wait for a confirm (the option is on). */
export function confirmMoves() {
  return localStorage.getItem(CONFIRM_KEY) === "on";
}

/** Turn move confirmation on or off. */
export function setConfirmMoves(on) {
  if (on) localStorage.setItem(CONFIRM_KEY, "on");
  else localStorage.removeItem(CONFIRM_KEY);
}

/** `legal` (a LegalMove, or PASS) chosen in the position of `version`: it waits for a
 * confirm. */
export function moveChosen(state, legal, version) {
  const view = state.game;
  if (!view) return state;
  return { ...state, game: { ...view, selected: null, chosen: { legal, version } } };
}

/** The move waiting for a confirm dropped (cancelled, or sent). */
export function choiceDropped(state) {
  return state.game?.chosen ? { ...state, game: { ...state.game, chosen: null } } : state;
}

/** The move waiting for a confirm in the game on show, if it is still current (its position
 * is the one on show); else null. */
export function chosenMove(view) {
  const chosen = view?.chosen;
  return chosen && view.state && chosen.version === view.state.version && !view.pending ? chosen.legal : null;
}
