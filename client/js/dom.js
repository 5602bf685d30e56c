// Rendering markup safely, and small DOM helpers shared by the screens.
//
// Every view builds its markup with the `html` tag and puts it in the page with `render`: a
// value put in an `html` template is text, escaped, whatever it holds (a nickname, a chat line,
// a field of a search trace), unless it is itself markup made by `html` (or an array of such).
// So nothing from the server, a file or a link becomes markup by mistake; the
// Content-Security-Policy the server sends backs this up. No other module touches innerHTML
// (a test checks it).

/** Escape text for HTML markup (element content and quoted attribute values). */
export const esc = (value) => String(value ?? "").replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Markup made by `html` (or `trusted`): the only thing `render` and `html` take as markup. */
class Markup {
  constructor(text) {
    this.text = text;
    Object.freeze(this);
  }

  toString() {
    return this.text;
  }
}

function piece(value) {
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(piece).join("");
  if (value === null || value === undefined || value === false) return "";
  return esc(value);
}

/**
 * A template of markup: html`<b>${name}</b>`. Every value is escaped as text, unless it is
 * markup made by `html` or an array of such; null, undefined and false put nothing.
 */
export function html(strings, ...values) {
  let text = strings[0];
  for (let i = 0; i < values.length; i += 1) text += piece(values[i]) + strings[i + 1];
  return new Markup(text);
}

/** Markup written in this code (icons drawn from constants): never for data. */
export const trusted = (text) => new Markup(String(text));

/** Put `markup` (made by `html`) in `el`, only when it changed (keeps focus and scroll
 * otherwise). */
export function render(el, markup) {
  if (!(markup instanceof Markup)) throw new TypeError("render takes markup made by html``");
  if (el && el.__markup !== markup.text) {
    el.innerHTML = markup.text;
    el.__markup = markup.text;
  }
}

/** Empty `el`. */
export function clear(el) {
  el.replaceChildren();
  el.__markup = "";
}

/** "just now", "5 min ago", "3 h ago", "2 d ago". */
export function ago(ms, now = Date.now()) {
  const s = Math.max(0, (now - ms) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** Small inline icons (no emoji font needed). */
export const ICONS = Object.freeze({
  first: trusted('<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M6 5v14M19 5 9 12l10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>'),
  prev: trusted('<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M17 5 7 12l10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>'),
  next: trusted('<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="m7 5 10 7-10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>'),
  last: trusted('<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M18 5v14M5 5l10 7-10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>'),
  eye: trusted('<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M1.5 12S5.5 5 12 5s10.5 7 10.5 7-4 7-10.5 7S1.5 12 1.5 12Z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3.2" fill="currentColor"/></svg>'),
  search: trusted('<svg class="icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true"><circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/></svg>'),
});
