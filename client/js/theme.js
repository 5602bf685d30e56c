// The colour theme: light or dark, as the system says (prefers-color-scheme) until the switch
// in the top bar chooses one, which this browser remembers. A classic script in each page's
// head, run before the page is drawn, so that it never shows in the other theme first; it
// sets attributes only (data-theme on <html>, aria-pressed on the switch), no markup.
(() => {
  const KEY = "hive.theme";
  const system = matchMedia("(prefers-color-scheme: dark)");
  const chosen = () => {
    try {
      const theme = localStorage.getItem(KEY);
      return theme === "dark" || theme === "light" ? theme : null;
    } catch (error) {
      return null; // storage refused: follow the system
    }
  };
  const apply = () => {
    const theme = chosen() ?? (system.matches ? "dark" : "light");
    document.documentElement.dataset.theme = theme;
    for (const button of document.querySelectorAll("[data-theme-switch]")) {
      button.setAttribute("aria-pressed", String(theme === "dark"));
    }
  };
  apply();
  system.addEventListener("change", apply);
  addEventListener("storage", (event) => {
    if (event.key === KEY) apply(); // chosen in another tab
  });
  document.addEventListener("DOMContentLoaded", apply);
  document.addEventListener("click", (event) => {
    if (!event.target.closest?.("[data-theme-switch]")) return;
    localStorage.setItem(KEY, document.documentElement.dataset.theme === "dark" ? "light" : "dark");
    apply();
  });
})();
