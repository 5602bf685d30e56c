// A page for the unit tests of play.js and actions.js (client/test/): what `playing` and
// `actions` are given, each part a fake that notes what it was asked (the messages sent, the
// routes gone to, the sounds played, the renders), the state held here and changed only by
// the transitions dispatched. Also the browser's globals they touch (localStorage, document,
// Notification), as plain objects. Outside client/test/, where `node --test` would run it.

import "./vendored.mjs"; // the msgpack the server vendors, from client/node_modules

const { deepFreeze } = await import("./fixtures.mjs");

/** A localStorage of plain values, for the modules that remember things. */
class MemoryStorage {
  constructor() {
    this.items = new Map();
  }

  getItem(key) {
    return this.items.has(key) ? this.items.get(key) : null;
  }

  setItem(key, value) {
    this.items.set(key, String(value));
  }
}

globalThis.localStorage ??= new MemoryStorage();
globalThis.document ??= { hidden: false };

/** What play.js and actions.js use, around `state` (frozen: a transition that writes into
 * it throws). `online`: whether the connection is up; `number`: its number. */
export function fakePage(state, { online = true, number = 1 } = {}) {
  const page = {
    now: deepFreeze(state),
    sent: [],
    routes: [],
    sounds: { played: [], muted: false, play: (name) => page.sounds.played.push(name), setMuted: (m) => { page.sounds.muted = m; } },
    renders: 0,
    headers: 0,
    subscribed: 0,
    moves: [],
    screen: {},
    conn: {
      online,
      number,
      renamed: 0,
      send: (message) => {
        if (!page.conn.online) return false;
        page.sent.push(message);
        return true;
      },
      rename: () => { page.conn.renamed += 1; },
    },
  };
  page.uses = {
    state: () => page.now,
    dispatch: (transition, ...args) => { page.now = deepFreeze(transition(page.now, ...args)); },
    conn: page.conn,
    go: (route) => page.routes.push(route),
    sounds: page.sounds,
    send: (message) => page.conn.send(message),
    move: (legal) => page.moves.push(legal),
    screen: () => page.screen,
    render: () => { page.renders += 1; },
    renderHeader: () => { page.headers += 1; },
    subscribe: () => { page.subscribed += 1; },
  };
  return page;
}

/** A form's data as FormData gives it (`get`). */
export const formData = (fields) => ({ get: (name) => (name in fields ? fields[name] : null) });

/** Let the timers due now run (sounds are played in a task after the update's). */
export const tick = () => new Promise((resolve) => setTimeout(resolve));
