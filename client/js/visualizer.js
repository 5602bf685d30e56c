// The search-tree visualizer at /visualizer: load a trace (file, paste, or a bot's move of a
// game), draw its tree from the root, open nodes on click, show each node's evaluation terms on
// hover and its position on a small board (the positions come from the server: the client
// holds no rules). Pan with a drag, zoom with the wheel.
//
// A trace is data from a file, a paste or the server: every field of it is shown as text
// (dom.js's `html`), never as markup. A link's `?src=` takes only this site's own trace
// addresses; `?game=ID&ply=N` names the same thing.

import { Board } from "./board.js";
import { clear, html, render } from "./dom.js";
import { READ_ONLY, bindActions, bindBoard, bindTree } from "./input.js";
import {
  BOUND_MARK, NODE_H, NODE_W, checkTrace, count, isGroup, layout, nodeAt, pathMoves, scoreText,
  termRows,
} from "./tree.js";
import * as views from "./view.js";

const RUN_FIGURES = [
  ["level", "level"], ["source", "source"], ["chosen", "chosen move"], ["chosen_index", "its rank"],
  ["skipped_best", "skipped the best"], ["quotient", "randomness Q"], ["depth", "depth (plies)"],
  ["branching", "branching K"], ["nodes", "positions visited"], ["seconds", "seconds"],
  ["completed", "completed"], ["deeper", "led by the depth cut short"],
  ["prunes", "alpha-beta cutoffs"], ["cut", "moves cut by K"], ["table_hits", "table hits"],
];

/** The only addresses `?src=` may load: this site's search traces of bots' moves. */
export const TRACE_PATH = /^\/games\/[0-9a-z]{8}\/trace\/\d{1,4}\.json$/;

const UNSEARCHED = { // why a trace has no tree, by its run's source
  book: "the move came from the opening book",
  forced: "it was the only legal move",
};

class Visualizer {
  constructor(root) {
    this.slots = Object.fromEntries([...root.querySelectorAll("[data-slot]")].map((el) => [el.dataset.slot, el]));
    this.svg = root.querySelector("svg.tree");
    this.viewport = this.svg.querySelector(".viewport");
    this.edgeLayer = this.svg.querySelector(".edges");
    this.nodeLayer = this.svg.querySelector(".nodes");
    this.board = new Board(this.slots.board, { controls: false, label: "Position of the node" });
    bindBoard(this.board, READ_ONLY);
    this.doc = null;
    this.expanded = new Set(["0"]);
    this.selected = "0";
    this.view = { k: 1, x: 20, y: 20 };
    this.positions = new Map(); // node id -> frame, fetched from the server
    this.bindInput(root);
    const params = new URLSearchParams(location.search);
    if (params.get("game") && params.get("ply")) this.fromGame(params.get("game"), params.get("ply"));
    else if (params.get("src")) this.fromSource(params.get("src"));
  }

  // -- loading ------------------------------------------------------------------------------

  load(doc) {
    try {
      checkTrace(doc);
    } catch (error) {
      this.fail(error.message);
      return;
    }
    this.doc = doc;
    this.expanded = new Set(["0"]);
    this.selected = "0";
    this.positions.clear();
    clear(this.slots.error);
    this.slots.empty.hidden = true;
    try {
      this.renderRun();
      this.renderTree();
    } catch (error) {
      this.fail(`This trace cannot be shown: ${error.message}`);
      return;
    }
    this.home();
    this.showPosition("0");
  }

  fail(message) {
    render(this.slots.error, html`${message}`);
  }

  /** A trace named by a link's `?src=`: only one of this site's own trace addresses. */
  fromSource(src) {
    if (!TRACE_PATH.test(src)) {
      this.fail(`Not a trace of this site: only /games/ID/trace/N.json addresses are loaded here (${String(src).slice(0, 80)}).`);
      return null;
    }
    return this.fromUrl(src);
  }

  async fromUrl(url) {
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error((await response.text()).trim() || `HTTP ${response.status}`);
      this.load(await response.json());
    } catch (error) {
      this.fail(`Cannot load ${url}: ${error.message}`);
    }
  }

  fromGame(game, ply) {
    return this.fromSource(`/games/${encodeURIComponent(game)}/trace/${encodeURIComponent(ply)}.json`);
  }

  // -- drawing --------------------------------------------------------------------------------

  renderRun() {
    const { doc } = this;
    const run = doc.run ?? {};
    const rows = RUN_FIGURES.filter(([k]) => run[k] !== undefined && run[k] !== null)
      .map(([k, label]) => html`<tr><th>${label}</th><td data-figure="${k}">${figure(k, run[k])}</td></tr>`);
    this.slots.run.hidden = false;
    render(this.slots.run, html`<h3>The search</h3>
      <p class="position"><code>${doc.position}</code></p>
      ${!doc.root && html`<p class="muted">Nothing was searched: ${UNSEARCHED[run.source] ?? UNSEARCHED.book}.</p>`}
      <table>${rows}</table>`);
  }

  renderTree() {
    const { doc } = this;
    if (!doc?.root) {
      clear(this.nodeLayer);
      clear(this.edgeLayer);
      return;
    }
    const chosen = doc.run?.chosen;
    const tree = layout(doc.root, this.expanded);
    this.tree = tree;
    render(this.edgeLayer, html`${tree.edges.map(({ from, to }) => {
      const x1 = from.x + NODE_W;
      const y1 = from.y + NODE_H / 2;
      const x2 = to.x;
      const y2 = to.y + NODE_H / 2;
      const mid = (x1 + x2) / 2;
      return html`<path class="edge${isGroup(to.node) ? " to-group" : ""}" d="M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}"/>`;
    })}`);
    render(this.nodeLayer, html`${tree.nodes.map((entry) => nodeMarkup(entry, {
      selected: entry.id === this.selected,
      chosen: entry.depth === 1 && entry.node.move === chosen,
    }))}`);
  }

  applyView() {
    this.viewport.setAttribute("transform", views.transform(this.view));
  }

  /** Show the root at the top left, at zoom 1. */
  home() {
    this.view = { k: 1, x: 24, y: 24 };
    this.applyView();
  }

  // -- nodes ------------------------------------------------------------------------------------

  toggle(id) {
    const node = nodeAt(this.doc.root, id);
    const before = this.tree.byId.get(id);
    if (node.children?.length) {
      if (this.expanded.has(id)) {
        for (const open of [...this.expanded]) if (open === id || open.startsWith(`${id}.`)) this.expanded.delete(open);
      } else {
        this.expanded.add(id);
      }
    }
    this.selected = id;
    this.renderTree();
    // keep the clicked node where it was on the screen
    const after = this.tree.byId.get(id);
    if (before && after) {
      this.view = views.panBy(this.view, (before.x - after.x) * this.view.k, (before.y - after.y) * this.view.k);
      this.applyView();
    }
    if (!isGroup(node)) this.showPosition(id);
  }

  async showPosition(id) {
    const { doc } = this;
    if (!doc) return;
    const moves = pathMoves(doc.root ?? { children: [] }, id);
    const node = doc.root ? nodeAt(doc.root, id) : null;
    this.slots.mini.hidden = false;
    render(this.slots.path, moves.length
      ? html`after ${moves.map((move, i) => html`${i > 0 && " · "}<code>${move}</code>`)}${node && html` <span class="score">${BOUND_MARK[node.bound] ?? ""}${scoreText(node.score)}</span>`}`
      : html`the root position`);
    this.slots.path.dataset.node = id;
    let frame = this.positions.get(id);
    if (!frame) {
      const played = doc.position.split(";").slice(3).filter((m) => m.trim()).length;
      const query = new URLSearchParams({ game: doc.position, moves: moves.join(";"), from: String(played + moves.length) });
      try {
        const response = await fetch(`/positions.json?${query}`);
        const body = await response.json();
        if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
        frame = body.frames[body.frames.length - 1];
        this.positions.set(id, frame);
      } catch (error) {
        render(this.slots.path, html`<span class="error">No position: ${error.message}</span>`);
        return;
      }
    }
    if (this.slots.path.dataset.node !== id) return; // another node was clicked meanwhile
    this.slots.board.dataset.node = id;
    this.board.set({
      pieces: frame.pieces,
      lastMove: frame.piece ? { piece: frame.piece, from: frame.from && { q: frame.from[0], r: frame.from[1] } } : null,
    });
    this.board.fit(true);
  }

  showTip(id, clientX, clientY) {
    const node = nodeAt(this.doc.root, id);
    const tip = this.slots.tip;
    render(tip, tipMarkup(node, this.doc));
    for (const bar of tip.querySelectorAll("i[data-share]")) bar.style.width = `${bar.dataset.share}%`;
    tip.dataset.node = id;
    tip.hidden = false;
    const rect = this.slots.canvas.getBoundingClientRect();
    const left = Math.min(clientX - rect.left + 16, rect.width - tip.offsetWidth - 8);
    const top = Math.min(clientY - rect.top + 16, rect.height - tip.offsetHeight - 8);
    tip.style.left = `${Math.max(8, left)}px`;
    tip.style.top = `${Math.max(8, top)}px`;
  }

  hideTip() {
    this.slots.tip.hidden = true;
    delete this.slots.tip.dataset.node;
  }

  // -- input ------------------------------------------------------------------------------------

  bindInput(root) {
    bindActions(root, {
      paste: (data) => {
        try {
          this.load(JSON.parse(String(data.get("json"))));
        } catch (error) {
          this.fail(`Not JSON: ${error.message}`);
        }
      },
      fromGame: (data) => this.fromGame(String(data.get("game")).trim(), String(data.get("ply")).trim()),
    });
    root.querySelector("[data-testid=trace-file]").addEventListener("change", async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      try {
        this.load(JSON.parse(await file.text()));
      } catch (error) {
        this.fail(`${file.name}: ${error.message}`);
      }
    });
    root.querySelector(".viz-canvas .board-controls").addEventListener("click", (event) => {
      const button = event.target.closest("[data-tree]");
      if (!button) return;
      const rect = this.svg.getBoundingClientRect();
      if (button.dataset.tree === "home") this.home();
      else this.zoomAt(button.dataset.tree === "zoom-in" ? 1.25 : 0.8, rect.width / 2, rect.height / 2);
    });

    bindTree(this.svg, {
      hover: (id, clientX, clientY) => (this.doc ? this.showTip(id, clientX, clientY) : this.hideTip()),
      hideTip: () => this.hideTip(),
      toggle: (id) => {
        if (this.doc) this.toggle(id);
      },
      pan: (dx, dy) => {
        this.view = views.panBy(this.view, dx, dy);
        this.applyView();
      },
      zoom: (factor, px, py) => this.zoomAt(factor, px, py),
    });
  }

  zoomAt(factor, px, py) {
    this.view = views.zoomAt(this.view, factor, px, py);
    this.applyView();
  }
}

function figure(key, value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value !== "number") return String(value); // a trace is data: any field may be off
  if (key === "seconds") return value.toFixed(value < 1 ? 3 : 2);
  if (key === "nodes" || key === "cut") return value.toLocaleString("en");
  if (key === "chosen_index") return value === 0 ? "best" : `#${value + 1}`;
  return String(value);
}

function nodeMarkup({ id, node, x, y, expandable, expanded }, { selected, chosen }) {
  const classes = ["node"];
  if (isGroup(node)) {
    classes.push("group", node.kind);
    const label = node.kind === "cut" ? `${node.count} cut by K` : `${node.count} pruned`;
    return html`<g class="${classes.join(" ")}" data-node="${id}" data-kind="${node.kind}" transform="translate(${x} ${y})"><rect width="${NODE_W}" height="${NODE_H}" rx="8"/><text class="move" x="12" y="25">${label}</text></g>`;
  }
  classes.push(node.kind === "root" ? "root" : node.maximizing ? "max" : "min");
  if (selected) classes.push("selected");
  if (chosen) classes.push("chosen");
  const move = node.kind === "root" ? `root · ${node.player}` : node.move;
  const flags = [node.table ? "TT" : "", node.terminal ? String(node.terminal).replace("Wins", " wins") : "",
    node.hidden ? `${count(node.hidden)} below` : ""].filter(Boolean).join(" · ");
  const score = `${BOUND_MARK[node.bound] ?? ""}${scoreText(node.score)}`;
  const kids = node.children?.length ?? 0;
  const toggle = expandable && html`<g class="toggle" transform="translate(${NODE_W - 16} ${NODE_H / 2})"><circle r="9"/><text dy="4">${expanded ? "−" : kids}</text></g>`;
  return html`<g class="${classes.join(" ")}" data-node="${id}" data-move="${node.move ?? ""}" data-expanded="${expanded}" transform="translate(${x} ${y})"><rect width="${NODE_W}" height="${NODE_H}" rx="8"/><text class="move" x="10" y="16">${move}</text><text class="score" x="10" y="32">${score}<tspan class="meta"> d${node.depth}${flags && ` · ${flags}`}</tspan></text>${toggle}${chosen && html`<text class="star" x="${NODE_W - 30}" y="16">★</text>`}</g>`;
}

function tipMarkup(node, doc) {
  if (isGroup(node)) {
    return node.kind === "cut"
      ? html`<b>${node.count} moves cut</b><p>Pre-scored below the best K = ${doc.run?.branching ?? "?"} siblings, so never searched.</p>`
      : html`<b>${node.count} moves pruned</b><p>Left unsearched after an alpha-beta cutoff: a sibling already refuted this line.</p>`;
  }
  const rows = termRows(node.terms);
  const title = node.kind === "root" ? html`Root: ${node.player} to move` : html`<code>${node.move}</code> by ${node.player}`;
  const bound = { exact: "exact", lower: "at least (cut off after a refutation)", upper: "at most (nothing reached the window)" }[node.bound];
  const below = node.depth === 0 ? "a leaf" : `${node.depth} ${node.depth === 1 ? "ply" : "plies"} searched below`;
  const terms = rows.length > 0 && html`<table class="terms" data-testid="terms"><caption>pre-score <b>${scoreText(node.prescore)}</b> = </caption>${rows.map((r) => html`<tr data-term="${r.name}" data-value="${r.value}"><th>${String(r.name).replaceAll("_", " ")}</th><td class="num">${scoreText(r.value)}</td><td class="bar"><i class="${r.value < 0 ? "neg" : "pos"}" data-share="${Math.round(r.share * 100)}"></i></td></tr>`)}</table>`;
  const run = node.kind === "root" && doc.run && html`<div class="tip-run">${doc.run.nodes?.toLocaleString?.("en") ?? "?"} positions in ${figure("seconds", doc.run.seconds ?? 0)} s · depth ${doc.run.depth ?? "?"} · K ${doc.run.branching ?? "∞"}</div>`;
  return html`<div class="tip-head">${title}</div>
    <div class="tip-score">score <b>${scoreText(node.score)}</b> <span class="muted">${bound}</span></div>
    <div class="tip-score">${node.maximizing ? "root player" : "opponent"} to move · ${below}</div>
    ${node.terminal && html`<div class="tip-score">game over here: ${node.terminal}</div>`}
    ${node.table && html`<div class="tip-score">score from the transposition table</div>`}
    ${node.hidden && html`<div class="tip-score">${count(node.hidden)} positions searched below (not stored)</div>`}
    ${terms}${run}`;
}

new Visualizer(document.querySelector("[data-testid=visualizer]"));
