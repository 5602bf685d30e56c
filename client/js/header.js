// The page's header: the connection's badge (online with its lag, connecting, reconnecting,
// or why the server closed it, with a button to reconnect), the sound switch, the tab's title,
// and the account's controls: who is signed in (a guest, or an account's name linking to its
// profile), "Sign up" and "Log in" for a guest, and a menu (change password, log out, log out
// everywhere); below the header, the panel with the form chosen and its error. Renders from
// the state; the forms' submits and the buttons go to actions.js (data-form, data-action).

import { html, render } from "./dom.js";
import { confirmMoves } from "./options.js";
import { MAX_PASSWORD, MIN_PASSWORD } from "./protocol.js";
import { profileHref } from "./players.js";
import { pageTitle } from "./views.js";

export class Header {
  constructor(root) {
    this.badge = root.querySelector("[data-testid=connection]");
    this.account = new AccountControls(root.querySelector("[data-slot=account]"), root.querySelector("[data-slot=account-panel]"));
    this.soundButton = root.querySelector("[data-testid=sound]");
    this.confirmButton = root.querySelector("[data-testid=confirm-moves]");
  }

  /** Show `state`'s connection, account and title, and whether the sounds are `muted`. */
  render(state, muted) {
    const { status, lag, attempt, reason } = state.connection;
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
    document.title = pageTitle(state);
    this.account.render(state);
    this.soundButton.setAttribute("aria-pressed", String(muted));
    this.confirmButton?.setAttribute("aria-pressed", String(confirmMoves()));
  }
}

/** An account's name as the form's `pattern` (compiled with the `v` flag: "-" escaped). */
const NAME_PATTERN = "[A-Za-z0-9_\\-]{2,20}";

/** The header's part: `el` holds the controls, `panel` the form below the header. */
export class AccountControls {
  constructor(el, panel) {
    this.el = el;
    this.panel = panel;
    render(panel, html`<div class="account-card card" role="dialog" aria-labelledby="account-title">
      <div data-slot="form"></div>
      <p class="error" data-slot="error" data-testid="auth-error" role="alert"></p></div>`);
    this.form = panel.querySelector("[data-slot=form]");
    this.error = panel.querySelector("[data-slot=error]");
    this.shown = null;
  }

  render(state) {
    const { me, auth, connection } = state;
    const signedOut = connection.status === "signed-out";
    let controls;
    if (me?.account && !signedOut) {
      controls = html`<a class="account-name" href="${profileHref(me.nickname)}" data-testid="account-name" title="Your profile">${me.nickname}</a>
        ${menu(html`<a href="${profileHref(me.nickname)}" data-testid="menu-profile">Your profile</a>
          <button type="button" data-action="authOpen" data-panel="password" data-testid="password-open">Change password</button>
          ${logoutItems("this account")}`)}`;
    } else if (me && !signedOut && !me.bot) {
      controls = html`<span class="account-name guest" data-testid="account-name" title="You play as a guest: sign up to keep a name, your games and a rating">${me.nickname} <small>guest</small></span>
        <button type="button" class="topbar-text guest-action" data-action="authOpen" data-panel="signup" data-testid="signup-open">Sign up</button>
        <button type="button" class="topbar-text guest-action" data-action="authOpen" data-panel="login" data-testid="login-open">Log in</button>
        ${menu(html`<button type="button" class="phone-only" data-action="authOpen" data-panel="signup" data-testid="menu-signup">Sign up</button>
          <button type="button" class="phone-only" data-action="authOpen" data-panel="login" data-testid="menu-login">Log in</button>
          ${logoutItems("this guest")}`)}`;
    } else {
      controls = html`<button type="button" class="topbar-text" data-action="authOpen" data-panel="login" data-testid="login-open">Log in</button>`;
    }
    render(this.el, controls);
    this.el.dataset.kind = me?.account && !signedOut ? "account" : me && !signedOut ? "guest" : "none";

    this.panel.hidden = !auth.panel;
    if (auth.panel !== this.shown) {
      // drawn again only when another form is chosen: what is typed stays while errors come
      render(this.form, auth.panel ? formMarkup(auth.panel, me) : html``);
      this.shown = auth.panel;
      this.form.querySelector("input")?.focus();
    }
    const submit = this.form.querySelector("[type=submit]");
    if (submit) submit.disabled = auth.busy;
    render(this.error, html`${auth.error ?? ""}`);
    this.error.hidden = !auth.error;
  }
}

function menu(items) {
  return html`<details class="account-menu"><summary data-testid="account-menu" aria-label="Account menu" title="Account">⋯</summary>
    <div class="menu">${items}</div></details>`;
}

function logoutItems(whom) {
  return html`<button type="button" data-action="logout" data-testid="logout" title="${`End this session of ${whom}`}">Log out</button>
    <button type="button" data-action="logoutEverywhere" data-testid="logout-everywhere" title="${`End every session of ${whom}, in every browser`}">Log out everywhere</button>`;
}

const nameField = html`<label>Name
  <input name="name" required minlength="2" maxlength="20" pattern="${NAME_PATTERN}" autocomplete="username"
    title="2 to 20 letters, digits, _ or -" data-testid="auth-name"></label>`;

function passwordField(name, label, autocomplete, testid) {
  return html`<label>${label}
    <input name="${name}" type="password" required minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}"
      autocomplete="${autocomplete}" data-testid="${testid}"></label>`;
}

function formMarkup(panel, me) {
  const cancel = html`<button type="button" data-action="authOpen" data-panel="" data-testid="auth-cancel">Cancel</button>`;
  if (panel === "signup") {
    return html`<form class="account-form" data-form="signup" data-testid="auth-form">
      <h2 id="account-title">Sign up</h2>
      <p class="muted small">Keep ${me?.nickname ? html`<b>${me.nickname}</b>'s` : "your"} games under a name of your own, and play rated games.</p>
      ${nameField}${passwordField("password", `Password (${MIN_PASSWORD} characters or more)`, "new-password", "auth-password")}
      <div class="form-actions"><button type="submit" class="primary" data-testid="auth-submit">Sign up</button>${cancel}</div></form>`;
  }
  if (panel === "login") {
    return html`<form class="account-form" data-form="login" data-testid="auth-form">
      <h2 id="account-title">Log in</h2>
      ${nameField}${passwordField("password", "Password", "current-password", "auth-password")}
      <div class="form-actions"><button type="submit" class="primary" data-testid="auth-submit">Log in</button>${cancel}</div></form>`;
  }
  return html`<form class="account-form" data-form="changePassword" data-testid="auth-form">
    <h2 id="account-title">Change password</h2>
    <p class="muted small">Your other sessions end; this one goes on.</p>
    ${passwordField("old", "Current password", "current-password", "auth-password")}
    ${passwordField("new", `New password (${MIN_PASSWORD} characters or more)`, "new-password", "auth-new")}
    <div class="form-actions"><button type="submit" class="primary" data-testid="auth-submit">Change password</button>${cancel}</div></form>`;
}
