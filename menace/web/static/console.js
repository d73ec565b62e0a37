// The festival console: the operator runs the real machine, the database follows as its twin.
"use strict";

(async () => {
  await G.shape();
  let table = null, seat = null, busy = false;
  const boardEl = document.getElementById("board"), statusEl = document.getElementById("status");
  const card = document.getElementById("operate-card"), endEl = document.getElementById("end");
  const abandonBtn = document.getElementById("abandon");

  const machines = await M.api("/machines");
  const me = machines.machines.find((m) => m.name === M.machine);
  if (me && me.side === "both") document.getElementById("first-label").hidden = false;

  function render() {
    boardEl.replaceChildren(G.board(table, { clickable: !busy, onMove: other, size: 320 }));
    statusEl.textContent = table.end ? G.status(table, "other") : table.menace_to_move ? "MENACE's turn: open the box." : `The other side's move (${table.person_side}): ${M.named(table.shape) ? "click the move it makes" : G.moves(table) ? "click the pawn it moves, then where it goes" : "click its square"}.`;
    abandonBtn.hidden = table.over;
    const open = table.box_to_open;
    card.hidden = false;
    if (open && !table.over) {
      const drawing = M.board(table.shape, open.cells, open.beads, { size: 220, caption: open.caption, label: `box ${open.box_number}` });
      const buttons = M.el("div", { class: "colour-buttons" }, ...open.beads.map((b) => M.el("button", {
        type: "button", "data-bead": b.bead, style: `background:${b.hex};color:${M.textOn(b)}`,
        text: `${b.letter} ${b.colour_name}`, title: `${b.colour_name}: ${b.name} on the drawing (twin: ${b.count})`, onclick: () => bead(b.bead) })));
      const steps = M.el("ol", { class: "steps" },
        M.el("li", { class: "shelf", text: `Open box ${open.box_number}: ${open.shelf}.` }),
        M.el("li", { class: "turn-hint", text: open.symmetry === "as it is" ? "The board matches its drawing as it is." : `Turn the real board to match its drawing: ${open.symmetry}.` }),
        M.el("li", { text: "Shake out one bead and press its colour:" }));
      const resign = open.empty && table.resigns_on_empty
        ? M.el("p", {}, M.el("button", { type: "button", id: "resign", text: "The real box is empty too: MENACE resigns", onclick: () => call(`/operate/${seat}/bead`, { resign: true }) }))
        : null;
      card.replaceChildren(...[M.el("h3", { text: `Box ${open.box_number}` }), M.el("div", { class: "box-row" }, drawing, steps), buttons,
        M.el("p", { class: "muted", text: "The twin holds: " + open.beads.map((b) => `${b.letter} ${b.count}`).join(", ") }), resign]
        .filter((node) => node !== null));  // replaceChildren would write "null"
    } else {
      const last = table.turns[table.turns.length - 1];
      card.hidden = !last;
      if (last) card.replaceChildren(...G.turnCard(last, { shape: table.shape }));
    }
    endEl.hidden = !table.end;
    if (table.end) endEl.replaceChildren(...G.ledger(table.end, { operated: true }), M.el("p", {}, M.el("button", { class: "primary", type: "button", text: "Next game", onclick: start })));
    document.body.dataset.over = table.over ? "1" : "0";
  }

  async function call(path, body) {
    busy = true;
    try { table = await M.api(path, { json: body }); M.flash(""); }
    catch (err) {
      // The twin says the box has none of that colour left, but one came out of the real box.
      if (err.status === 409 && body.bead !== undefined && !body.confirm_empty &&
          window.confirm(`${err.message}. Did that colour really come out of the real box? (It is recorded as a correction.)`)) {
        busy = false; return call(path, Object.assign({}, body, { confirm_empty: true }));
      }
      M.flash(err.message);
    }
    busy = false; render();
  }

  async function start() {
    M.flash("");
    const body = { machine: M.machine };
    if (!document.getElementById("first-label").hidden) body.first = document.getElementById("first").value;
    try { table = await M.api("/operate", { json: body }); seat = table.seat; render(); } catch (err) { M.flash(err.message); }
  }
  const bead = (b) => call(`/operate/${seat}/bead`, { bead: b });
  const other = (cell) => { if (table && !table.over && !table.menace_to_move && !busy) call(`/operate/${seat}/other`, { move: cell }); };

  // The console says it is still there: a game whose page stops answering is released.
  setInterval(() => {
    if (table && !table.over) M.api(`/operate/${seat}/alive`, { method: "POST" }).catch(() => {});
  }, 10000);
  M.events({ table: (t) => {
    if (table && t.id === table.id && t.abandoned && t.why) {
      table = null; card.hidden = true; endEl.hidden = true; abandonBtn.hidden = true; boardEl.replaceChildren();
      statusEl.textContent = `The game was stopped (${t.why}): the twin is unchanged. Put the drawn beads back in their boxes.`;
    }
  } });
  document.getElementById("new-game").addEventListener("click", start);
  document.getElementById("new-game").disabled = false;
  document.body.dataset.ready = "1";
  abandonBtn.addEventListener("click", async () => {
    if (!table) return;
    try { await M.api(`/operate/${seat}/abandon`, { method: "POST" }); } catch (err) { M.flash(err.message); }
    table = null; card.hidden = true; endEl.hidden = true; abandonBtn.hidden = true; boardEl.replaceChildren();
    statusEl.textContent = "Game abandoned: the twin is unchanged. Put the drawn beads back in their boxes.";
  });
})();
