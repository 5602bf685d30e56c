// The page's header, for app.js: the connection's badge (online with its lag, connecting,
// reconnecting, or why the server closed it, with a button to reconnect), the account's
// controls, the sound switch, and the tab's title.

import { AccountControls } from "./account.js";
import { html, render } from "./dom.js";
import { pageTitle } from "./views.js";

export class Header {
  constructor(root) {
    this.badge = root.querySelector("[data-testid=connection]");
    this.account = new AccountControls(root.querySelector("[data-slot=account]"), root.querySelector("[data-slot=account-panel]"));
    this.soundButton = root.querySelector("[data-testid=sound]");
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
  }
}
