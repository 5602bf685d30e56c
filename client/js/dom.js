// Small DOM helpers shared by the screens.

/** Escape text for HTML markup. */
export const esc = (value) => String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Replace `el`'s markup only when it changed (keeps focus and scroll otherwise). */
export function setHtml(el, markup) {
  if (el && el.__markup !== markup) {
    el.innerHTML = markup;
    el.__markup = markup;
  }
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
export const ICONS = {
  first: '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M6 5v14M19 5 9 12l10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>',
  prev: '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M17 5 7 12l10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>',
  next: '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="m7 5 10 7-10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>',
  last: '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M18 5v14M5 5l10 7-10 7Z" fill="currentColor" stroke="currentColor" stroke-width="2" stroke-linejoin="round"/></svg>',
  eye: '<svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path d="M1.5 12S5.5 5 12 5s10.5 7 10.5 7-4 7-10.5 7S1.5 12 1.5 12Z" fill="none" stroke="currentColor" stroke-width="2"/><circle cx="12" cy="12" r="3.2" fill="currentColor"/></svg>',
  search: '<svg class="icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true"><circle cx="10" cy="10" r="6.5" fill="none" stroke="currentColor" stroke-width="2.4"/><path d="M15 15l6 6" stroke="currentColor" stroke-width="2.6" stroke-linecap="round"/></svg>',
};
