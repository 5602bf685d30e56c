// The socket: connect, say hello (the session token, else the nickname), reconnect with
// backoff when the connection drops (not when the server closed it for what this client did:
// then the player reconnects by hand), and measure the lag with application-level pings.
// Messages go through protocol.js; what they mean is app.js's business.

import {
  ErrorCode, Hello, LogIn, MESSAGE_TOO_BIG, POLICY_VIOLATION, Ping, SIGNED_OUT, ServerType, decode, encode,
} from "./protocol.js";

const TOKEN_KEY = "hive.token";
const BACKOFF_MS = [250, 500, 1000, 2000, 3000, 5000];
const PING_EVERY_MS = 5000;
const PONG_TIMEOUT_MS = 12000;
/** How long a login waits for its answer before it gives up. */
const LOGIN_TIMEOUT_MS = 15000;
/** Refusals of a hello that a later hello may not get: retried with the reconnect backoff. */
const HELLO_AGAIN = new Set([ErrorCode.UNAVAILABLE, ErrorCode.RATE_LIMITED, ErrorCode.INTERNAL]);
/** Closes that are not retried by themselves: the server refused what this client did (too
 * many requests, no hello in time, a message too big), and a new connection would most likely
 * do it again. What to say when the server gave no reason. */
const NOT_RETRIED = new Map([
  [POLICY_VIOLATION, "the server's limits were broken"],
  [MESSAGE_TOO_BIG, "a message was too big"],
]);

export const tokenStore = {
  get: () => localStorage.getItem(TOKEN_KEY),
  set: (token) => localStorage.setItem(TOKEN_KEY, token),
  clear: () => localStorage.removeItem(TOKEN_KEY),
};

/**
 * Status: "connecting" (first try), "online" (welcomed), "reconnecting" (dropped, retrying),
 * "signed-out" (no token and no nickname to say hello with, a nickname the server refused, or
 * the session ended: logged out here or elsewhere; `rename` says hello again), "closed" (the
 * server closed the connection for what this client did, 1008 or 1009: `reason` says why; no
 * retry until `reconnect`).
 */
export class Connection {
  /**
   * @param {{url: string, nickname: () => string, onMessage: (m: object) => void,
   *          onStatus: (status: string, attempt: number, reason: string | null) => void,
   *          onLag: (ms: number) => void}} o
   */
  constructor({ url, nickname, onMessage, onStatus, onLag }) {
    this.url = url;
    this.nickname = nickname;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onLag = onLag;
    this.ws = null;
    this.number = 0; // counts the connections welcomed: a move remembers which one it went on
    this.attempt = 0;
    this.status = "connecting";
    this.timer = null;
    // a silent connection: given up on, and reconnected
    this.heartbeat = new Heartbeat({ alive: () => this.online, send: (m) => this.send(m), onSilent: () => this.abandon() });
    this.stopped = false;
    this.signedOut = false; // the session ended: no hello until a nickname is chosen
    this.renaming = false; // the next hello carries the nickname with the token
    this.reason = null; // why the server closed the connection ("closed")
    this.token = null; // the token this connection said hello with
    this.successor = null; // a socket to another address, taking over once welcomed (moveTo)
    addEventListener("online", () => this.retryNow());
    // another tab of this browser logged in (or signed up anew): this one follows its session
    addEventListener("storage", (event) => {
      if (event.key === TOKEN_KEY && event.newValue && event.newValue !== this.token && !this.stopped) this.follow();
    });
  }

  /** Open again with the session token now stored (another tab's login). */
  follow() {
    this.signedOut = false;
    this.renaming = false;
    this.reopen();
  }

  /** Close the socket (if any) and open a new one at once, from the first attempt. */
  reopen() {
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    drop(ws);
    this.attempt = 0;
    this.open();
  }

  /**
   * Connect to `url` from now on (a game's page connects to the process of its game). When
   * online, a second socket says hello there with the session's token and takes over once
   * welcomed: the first one goes on meanwhile, and closes then, so the player is never seen
   * gone. Should the second fail, the first stays.
   */
  moveTo(url) {
    if (url === this.url) return;
    this.url = url;
    drop(this.successor);
    this.successor = null;
    if (!this.online || !this.token) return; // the next connection goes there
    const token = this.token;
    try {
      this.successor = this.socket(url, () => Hello({ token, nickname: null }));
    } catch (error) {
      // the next connection goes there
    }
  }

  /** The successor's first message: its welcome makes it the connection. */
  takeOver(ws, data) {
    this.successor = null;
    let message = null;
    try {
      message = decode(data);
    } catch (error) {
      // not a welcome
    }
    if (message?.type !== ServerType.WELCOME || !this.online) {
      drop(ws);
      return;
    }
    const old = this.ws;
    this.ws = ws;
    drop(old);
    this.receive(ws, data);
  }

  get online() {
    return this.status === "online";
  }

  start() {
    this.stopped = false;
    this.open();
  }

  /** Close and open again at once (the browser came back online). */
  retryNow() {
    if (this.stopped || this.status === "online" || this.status === "closed") return;
    this.reopen();
  }

  /** Give up on the current socket (it went silent) and reconnect. */
  abandon() {
    const ws = this.ws;
    this.ws = null;
    this.heartbeat.stop();
    drop(ws);
    this.scheduleRetry();
  }

  /** Open again after a close that is not retried by itself (the player asked to). */
  reconnect() {
    if (this.status !== "closed") return;
    this.attempt = 0;
    this.open();
  }

  /** Say hello again, now with the nickname: with a session, the same player takes that name
   * (its games stay its own); without one, a new guest of that name. */
  rename() {
    this.renaming = true;
    this.signedOut = false;
    this.reopen();
  }

  /**
   * Log in to the account `name` (see logIn); once in, this connection opens again with the
   * account's token (the guest's games stay the guest's). Resolves with null, or with the
   * server's Error (a wrong password...).
   */
  async login(name, password) {
    const error = await logIn(this.url, name, password);
    if (!error) this.follow(); // with the account's token
    return error;
  }

  open() {
    drop(this.successor); // a new connection goes to the address now asked for
    this.successor = null;
    const token = tokenStore.get();
    const nickname = this.nickname();
    if (this.signedOut || (!token && !nickname)) {
      this.setStatus("signed-out");
      return;
    }
    try {
      this.ws = this.socket(this.url, () => (token ? Hello({ token, nickname: this.renaming ? nickname : null }) : Hello({ nickname })));
    } catch (error) {
      this.scheduleRetry();
      return;
    }
    this.setStatus(this.number === 0 && this.attempt === 0 ? "connecting" : "reconnecting");
    this.token = token;
  }

  /** A socket to `url` that says `hello()` once open, its frames to `receive` and its close
   * watched (throws as `new WebSocket` does, on a URL it refuses). */
  socket(url, hello) {
    const ws = new WebSocket(url);
    ws.binaryType = "arraybuffer";
    ws.addEventListener("open", () => ws.send(encode(hello())));
    ws.addEventListener("message", (event) => this.receive(ws, event.data));
    this.watchClose(ws);
    return ws;
  }

  /** What to do when the socket `ws` closes. */
  watchClose(ws) {
    ws.addEventListener("close", (event) => {
      if (this.successor === ws) this.successor = null; // it never took over: the first stays
      if (this.ws !== ws) return;
      this.ws = null;
      this.heartbeat.stop();
      if (event.code === SIGNED_OUT) {
        tokenStore.clear(); // the session ended (log out, here or in another browser)
        this.signedOut = true;
        this.setStatus("signed-out");
        return;
      }
      if (NOT_RETRIED.has(event.code)) {
        clearTimeout(this.timer);
        this.reason = event.reason || NOT_RETRIED.get(event.code);
        this.setStatus("closed");
        return;
      }
      this.scheduleRetry();
    });
  }

  receive(ws, data) {
    if (ws === this.successor) {
      this.takeOver(ws, data);
      return;
    }
    if (ws !== this.ws) return;
    let message;
    try {
      message = decode(data);
    } catch (error) {
      console.warn("ignored a frame:", error.message);
      return;
    }
    if (message.type === ServerType.WELCOME) {
      this.token = message.token;
      tokenStore.set(message.token);
      this.renaming = false;
      this.number += 1;
      this.attempt = 0;
      this.setStatus("online");
      this.heartbeat.start();
    } else if (message.type === ServerType.PONG) {
      this.onLag(this.heartbeat.pong(message.t));
      return;
    } else if (message.type === ServerType.ERROR && message.request === "hello") {
      if (message.code === ErrorCode.BAD_TOKEN) {
        tokenStore.clear(); // an expired session: start a new one with the nickname
        if (this.nickname()) ws.send(encode(Hello({ nickname: this.nickname() })));
        else this.setStatus("signed-out");
        return;
      }
      if (HELLO_AGAIN.has(message.code)) {
        // the server cannot take us in just now (its storage is away): say why, try again later
        this.onMessage(message);
        this.abandon();
        return;
      }
      this.setStatus("signed-out"); // a nickname the server refuses: the page asks for another
    }
    this.onMessage(message);
  }

  /** Send a message if the socket is up and welcomed; returns whether it went. */
  send(message) {
    if (!this.online || !this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(encode(message));
    return true;
  }

  scheduleRetry() {
    if (this.stopped) return;
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.setStatus("reconnecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), base * (0.85 + Math.random() * 0.3));
  }

  setStatus(status) {
    if (status !== "online") this.heartbeat.stop();
    this.status = status;
    this.onStatus(status, this.attempt, status === "closed" ? this.reason : null);
  }
}

/**
 * Log in to the account `name` at `url`: `login` is said instead of `hello`, on a connection of
 * its own, so that the page's plays on as it is while the password is tried. Its welcome's
 * token becomes the session's. Resolves with null, or with the server's Error.
 */
function logIn(url, name, password) {
  return new Promise((resolve) => {
    let ws;
    try {
      ws = new WebSocket(url);
    } catch (error) {
      resolve({ code: ErrorCode.UNAVAILABLE, message: "cannot reach the server", request: "login" });
      return;
    }
    ws.binaryType = "arraybuffer";
    let done = false;
    const finish = (error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      drop(ws);
      resolve(error);
    };
    const timer = setTimeout(() => finish({ code: ErrorCode.UNAVAILABLE, message: "no answer", request: "login" }), LOGIN_TIMEOUT_MS);
    ws.addEventListener("open", () => ws.send(encode(LogIn(name, password))));
    ws.addEventListener("message", (event) => {
      let message;
      try {
        message = decode(event.data);
      } catch (error) {
        return;
      }
      if (message.type === ServerType.WELCOME) {
        tokenStore.set(message.token);
        finish(null);
      } else if (message.type === ServerType.ERROR) {
        finish(message);
      }
    });
    ws.addEventListener("close", () => finish({ code: ErrorCode.UNAVAILABLE, message: "the connection closed", request: "login" }));
  });
}

/** Close socket `ws` (none: nothing), whatever its state. */
function drop(ws) {
  if (!ws) return;
  try {
    ws.close();
  } catch (error) {
    // already closed
  }
}

/** Application-level pings, every PING_EVERY_MS while `alive()`, for the lag and to give up
 * on a silent socket: `onSilent()` when no pong came for PONG_TIMEOUT_MS. */
class Heartbeat {
  constructor({ alive, send, onSilent }) {
    this.alive = alive;
    this.send = send;
    this.onSilent = onSilent;
    this.timer = null;
    this.lastPong = 0;
  }

  start() {
    this.stop();
    this.lastPong = performance.now();
    const ping = () => {
      if (!this.alive()) return;
      if (performance.now() - this.lastPong > PONG_TIMEOUT_MS) {
        this.onSilent();
        return;
      }
      this.send(Ping(performance.now()));
    };
    ping();
    this.timer = setInterval(ping, PING_EVERY_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
  }

  /** A pong to the ping sent at `t` (performance.now()): the lag in ms. */
  pong(t) {
    this.lastPong = performance.now();
    return Math.max(0, Math.round(performance.now() - t));
  }
}
