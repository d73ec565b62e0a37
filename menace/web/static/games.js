// Shared by play, the console and the audience view: a game's board, MENACE's turn, the ledger.
"use strict";

const G = (() => {
  let info = null;
  async function shape() { if (!info) info = await M.api("/info"); return info; }

  // A game whose pieces move (Hexapawn): click a piece, then where it goes.
  function moves(table) { return (table.legal_cells || []).some(([from]) => from !== null && from !== undefined); }

  function board(table, opts = {}) {
    const clickable = opts.clickable && !table.over && !table.menace_to_move;
    if (M.named(table.shape)) return namedBoard(table, opts, clickable);
    if (moves(table)) return pieceBoard(table, opts, clickable);
    const svg = M.board(table.shape, table.cells, [], { size: opts.size || 300, clickable, highlight: table.last_move, win: table.win_cells, label: "the game's board" });
    if (clickable && opts.onMove) {
      svg.querySelectorAll(".cell.clickable").forEach((g) => {
        const go = () => opts.onMove(Number(g.dataset.cell));
        g.addEventListener("click", go);
        g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") go(); });
      });
    }
    return svg;
  }

  // A game whose moves are named (Nim): the position, then a button per legal move ("take 2").
  function namedBoard(table, opts, clickable) {
    const svg = M.board(table.shape, table.cells, [], { size: opts.size || 300, caption: table.caption, label: "the game's position" });
    if (!opts.onMove) return svg;
    const buttons = M.el("div", { class: "move-buttons" });
    (table.legal || []).forEach((move, i) => {
      const b = M.el("button", { type: "button", class: "move", "data-move": move, text: (table.legal_names || [])[i] || String(move + 1) });
      b.disabled = !clickable;
      b.addEventListener("click", () => opts.onMove(move));
      buttons.append(b);
    });
    return M.el("div", { class: "named-board" }, svg, buttons);
  }

  function pieceBoard(table, opts, clickable) {
    const svg = M.board(table.shape, table.cells, [], { size: opts.size || 300, highlight: table.last_move, win: table.win_cells, label: "the game's board" });
    if (!clickable || !opts.onMove) return svg;
    const legal = table.legal.map((move, i) => ({ move, from: table.legal_cells[i][0], to: table.legal_cells[i][1] }));
    const froms = new Set(legal.map((m) => m.from));
    let picked = null;
    const cells = [...svg.querySelectorAll(".cell")];
    const mark = () => {
      for (const g of cells) {
        const i = Number(g.dataset.cell);
        const on = picked === null ? froms.has(i) : i === picked || froms.has(i) || legal.some((m) => m.from === picked && m.to === i);
        g.classList.toggle("clickable", on); g.classList.toggle("picked", i === picked);
        if (on) g.setAttribute("tabindex", "0"); else g.removeAttribute("tabindex");
      }
    };
    const choose = (i) => {
      const m = picked === null ? null : legal.find((x) => x.from === picked && x.to === i);
      if (m) { opts.onMove(m.move); return; }
      picked = picked === i || !froms.has(i) ? null : i;
      mark();
    };
    for (const g of cells) {
      const i = Number(g.dataset.cell);
      g.addEventListener("click", () => { if (g.classList.contains("clickable")) choose(i); });
      g.addEventListener("keydown", (e) => { if ((e.key === "Enter" || e.key === " ") && g.classList.contains("clickable")) choose(i); });
    }
    mark();
    return svg;
  }

  // What MENACE did on one turn: the box, how to turn the board, its beads, the bead drawn, the square.
  function turnCard(t, opts = {}) {
    const out = [];
    if (t.box_number === null || t.box_number === undefined) {
      out.push(M.el("h3", { text: `MENACE's move is forced: ${t.move_name}` }));
      out.push(M.el("p", { text: "There is only one move, so there is no box for it." }));
      return out;
    }
    out.push(M.el("h3", { text: `MENACE opens box ${t.box_number}` }));
    const drawing = M.board(opts.shape || info.shape, t.cells, t.beads, { size: opts.size || 200, drawn: t.bead, caption: t.caption, label: `box ${t.box_number}` });
    const steps = M.el("ol", { class: "steps" });
    steps.append(M.el("li", { text: t.symmetry === "as it is" ? "The board matches the box's drawing as it is." : `To match the box's drawing, ${t.symmetry}.` }));
    steps.append(M.el("li", { text: t.beads.some((b) => b.percent)
      ? "Chances in the box: " + t.beads.map((b) => `${b.letter} ${b.colour_name} ${b.count}%`).join(", ") + "."
      : "Beads in the box: " + t.beads.map((b) => `${b.letter} ${b.colour_name} ×${b.count}`).join(", ") + "." }));
    if (t.restocked) steps.append(M.el("li", { text: "The box was empty, so it was refilled with its first beads." }));
    if (t.resigned) steps.append(M.el("li", { class: "minus", text: "The box is empty: MENACE resigns." }));
    else {
      const b = t.beads.find((x) => x.bead === t.bead) || {};
      steps.append(M.el("li", {}, "It draws ", M.el("span", { class: "swatch", style: `background:${b.hex};color:${M.textOn(b)}`, text: b.letter }),
        ` ${b.colour_name}: ${b.name} on the drawing, so `, M.el("b", { text: t.move_name }), " on the board."));
    }
    out.push(M.el("div", { class: "box-row" }, drawing, steps));
    return out;
  }

  // Every MENACE turn of the game so far, small, in order: the box, its beads, the bead drawn.
  function turnStrip(table, opts = {}) {
    return table.turns.map((t, i) => {
      const card = M.el("figure", { class: "mini-turn" + (i === table.turns.length - 1 ? " latest" : "") });
      if (t.box_number === null || t.box_number === undefined) {
        card.append(M.el("figcaption", { text: `Move ${i + 1}: forced, ${t.move_name}` }));
        return card;
      }
      const b = t.beads.find((x) => x.bead === t.bead);
      card.append(M.board(opts.shape || table.shape, t.cells, t.beads, { size: opts.size || 150, drawn: t.bead, label: `box ${t.box_number}` }),
        M.el("figcaption", {}, M.el("b", { text: `Box ${t.box_number}` }), t.resigned ? ": empty, MENACE resigns" : b ? ` drew ${b.letter} ${b.colour_name}: ${t.move_name}` : ""));
      return card;
    });
  }

  function ledger(end, opts = {}) {
    const words = opts.operated ? { win: "MENACE wins.", draw: "A draw.", loss: "MENACE loses." } : { win: "MENACE wins.", draw: "A draw.", loss: "You win!" };
    const out = [M.el("h3", { class: "result", text: words[end.result] || end.result })];
    if (!end.ledger.length) { out.push(M.el("p", { text: "MENACE drew no bead this game, so nothing changes." })); return out; }
    out.push(M.el("p", { text: opts.operated ? "The bead ledger: put the beads back like this (the twin now holds the same)." :
      `Reinforcement, box by box (stored as game ${M.fmt(end.game_number)}):` }));
    const rows = end.ledger.map((l) => M.el("tr", {},
      M.el("td", { text: `box ${l.box}` }),
      M.el("td", {}, M.el("span", { class: "swatch", style: `background:${l.hex};color:${M.textOn(l)}`, text: l.letter }), ` ${l.colour_name}`),
      M.el("td", { text: l.percent ? `chance ${l.before}% → ${l.after}%` : `${l.before} → ${l.after}` }),
      M.el("td", { class: l.change > 0 ? "plus" : l.change < 0 ? "minus" : "", text: (l.change > 0 ? "+" : "") + l.change + (l.percent ? " points" : "") }),
      opts.operated ? M.el("td", { text: l.instruction }) : null));
    out.push(M.el("table", { class: "ledger" }, M.el("tbody", {}, ...rows)));
    return out;
  }

  function status(table, who = "You") {
    if (table.end) return { win: "MENACE wins.", draw: "A draw.", loss: who === "You" ? "You win!" : "MENACE loses." }[table.end.result];
    if (table.menace_to_move) return "MENACE's turn…";
    return `${who === "You" ? "Your" : "The other side's"} move (${table.person_side}).`;
  }

  return { shape, board, moves, turnCard, turnStrip, ledger, status };
})();
