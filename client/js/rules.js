// The rules page (#/rules): how each bug moves, drawn with the board's own renderer on small
// example positions, the opening rules and how a game ends. The client holds no rules: each
// example is a position of Base+MLP reached by its `moves` and the legal destinations of one
// piece there, as the rules engine gives them (tests/client/test_rules.py replays the moves and
// checks every position and destination against the engine).

import { Board } from "./board.js";
import { BUGS, pieceIcon } from "./bugs.js";
import { html, render } from "./dom.js";

/** Each bug's example: its piece, words, the moves to the position, the position's pieces
 * [piece, q, r, height] and the piece's legal moves [MoveString, q, r]. */
export const EXAMPLES = Object.freeze([
  {"bug": "Q", "piece": "wQ", "text": "The Queen Bee steps one hex at a time round the hive. Each player places her by their fourth move, and no piece of theirs may move before she is on the board.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"], "pieces": [["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wQ \\wS1", 0, -1], ["wQ /wS1", -1, 1]]},
  {"bug": "S", "piece": "wS2", "text": "The Spider moves exactly three steps round the hive, never going back the way it came.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wS2 /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0], ["wS2", -2, 1, 0]], "targets": [["wS2 wQ/", 0, -1], ["wS2 /bQ", 1, 1]]},
  {"bug": "B", "piece": "wB1", "text": "The Beetle steps one hex, and may climb on top of the hive; a piece under a Beetle cannot move, and its hex takes the Beetle's colour.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wB1 /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wB1", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wB1 /wS1", -1, 1], ["wB1 wQ", -1, 0], ["wB1 -wQ", -2, 0]]},
  {"bug": "G", "piece": "wG1", "text": "The Grasshopper jumps in a straight line over one or more pieces to the first empty hex.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wG1 /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wG1", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wG1 wQ/", 0, -1]]},
  {"bug": "A", "piece": "wA1", "text": "The Soldier Ant goes any number of steps round the outside of the hive.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wA1 /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wA1", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wA1 wQ/", 0, -1], ["wA1 wS1/", 1, -1], ["wA1 bS1/", 2, -1], ["wA1 bQ/", 3, -1], ["wA1 bA1/", 4, -1], ["wA1 bA1-", 4, 0], ["wA1 bA1\\", 3, 1], ["wA1 /bA1", 2, 1], ["wA1 /bQ", 1, 1], ["wA1 /bS1", 0, 1], ["wA1 /wS1", -1, 1], ["wA1 -wQ", -2, 0], ["wA1 \\wQ", -1, -1]]},
  {"bug": "M", "piece": "wM", "text": "The Mosquito moves as any bug it touches (here only the Queen: one step); on top of the hive it moves as a Beetle.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wM /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wM", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wM /wS1", -1, 1], ["wM -wQ", -2, 0]]},
  {"bug": "L", "piece": "wL", "text": "The Ladybug makes exactly three moves: two on top of the hive, then one down into an empty hex.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wL /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wL", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wL wQ/", 0, -1], ["wL wS1/", 1, -1], ["wL /bS1", 0, 1], ["wL /wS1", -1, 1]]},
  {"bug": "P", "piece": "wP", "text": "The Pillbug steps one hex like the Queen; instead of moving, it may lift a piece next to it (of either colour) over itself onto an empty hex beside it.", "moves": ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-", "wP /wQ", "bA1 bQ-"], "pieces": [["bA1", 3, 0, 0], ["bQ", 2, 0, 0], ["bS1", 1, 0, 0], ["wP", -2, 1, 0], ["wQ", -1, 0, 0], ["wS1", 0, 0, 0]], "targets": [["wP /wS1", -1, 1], ["wP -wQ", -2, 0]]},
]);

export class RulesScreen {
  constructor(root) {
    this.root = root;
    render(root, html`
      <article class="rules" data-testid="rules">
        <h1>How to play Hive</h1>
        <p class="lead">Two players, White and Black, each with the same bugs. There is no board:
        the pieces placed make the hive. <b>Surround the opponent's Queen Bee</b> on all six sides
        to win.</p>
        <section class="card rules-text">
          <h2>A turn</h2>
          <ul>
            <li><b>Place</b> a piece from your hand: the first two pieces touch each other; after
            that, a new piece must touch your own colour and no piece of the opponent's.</li>
            <li>Or <b>move</b> one of your pieces on the board, as its bug moves (below).</li>
            <li><b>One hive:</b> the pieces must always stay connected, during a move too; a piece
            whose lifting would split the hive cannot move.</li>
            <li><b>Freedom to move:</b> a piece moving round the hive slides: it cannot squeeze
            through a gap too narrow for it (the Beetle, the Grasshopper and the Ladybug go over
            instead).</li>
            <li>A player with no legal move must <b>pass</b>.</li>
          </ul>
          <h2>The opening</h2>
          <ul>
            <li><b>Tournament opening:</b> neither player may place the Queen Bee on their first
            move.</li>
            <li>Each player must place the Queen by their <b>fourth move</b>, and no piece of
            theirs may move before she is on the board.</li>
          </ul>
          <h2>How a game ends</h2>
          <ul>
            <li>A Queen surrounded on all six sides (by pieces of either colour) loses; both at once
            is a draw.</li>
            <li>Here a game also ends by resignation, an agreed draw, the same position three
            times (a draw), a clock run out, or a player gone too long (the other may claim the
            win); a first move not made within the first-move time aborts the game.</li>
          </ul>
        </section>
        <h2>The bugs</h2>
        <div class="rules-grid" data-slot="bugs"></div>
      </article>`);
    const grid = root.querySelector("[data-slot=bugs]");
    render(grid, html`${EXAMPLES.map((e) => html`<section class="card rules-bug" data-bug="${e.bug}" data-moves="${e.moves.join(";")}">
      <h3>${pieceIcon(e.piece, 28)} ${BUGS[e.bug].name}</h3>
      <p>${e.text}</p>
      <div class="rules-board" data-piece="${e.piece}"></div></section>`)}`);
    this.boards = EXAMPLES.map((e, i) => {
      const board = new Board(grid.querySelectorAll(".rules-board")[i], {
        controls: false, interactive: false, label: `${BUGS[e.bug].name}: where ${e.piece} may go`,
      });
      board.set({
        pieces: e.pieces.map(([piece, q, r, height]) => ({ piece, q, r, height })),
        selected: { piece: e.piece, from: null },
        targets: e.targets.map(([move, q, r]) => ({ move, to_q: q, to_r: r })),
      });
      return board;
    });
  }

  render() {}

  destroy() {
    for (const board of this.boards) board.destroy();
  }
}
