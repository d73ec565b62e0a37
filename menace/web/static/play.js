// The play page: a game against the machine, turn by turn, with each MENACE move explained.
"use strict";

(async () => {
  await G.shape();
  let table = null, busy = false;
  const boardEl = document.getElementById("board"), statusEl = document.getElementById("status");
  const turnEl = document.getElementById("turn"), endEl = document.getElementById("end");

  const machines = await M.api("/machines");
  const me = machines.machines.find((m) => m.name === M.machine);
  if (me && me.side === "both") document.getElementById("first-label").hidden = false;

  function render() {
    if (G.moves(table)) document.getElementById("how-to-move").textContent = "Click one of your pieces, then the square it moves to.";
    if (M.named(table.shape)) document.getElementById("how-to-move").textContent = "Click a move below the drawing, or type its number.";
    boardEl.replaceChildren(G.board(table, { clickable: !busy, onMove: move, size: 320 }));
    statusEl.textContent = G.status(table);
    const last = table.turns[table.turns.length - 1];
    turnEl.hidden = !last;
    if (last) turnEl.replaceChildren(...G.turnCard(last, { shape: table.shape }));
    endEl.hidden = !table.end;
    if (table.end) endEl.replaceChildren(...G.ledger(table.end), M.el("p", {}, M.el("button", { class: "primary", type: "button", text: "Play again", onclick: start })));
    document.body.dataset.over = table.over ? "1" : "0";
  }

  async function start() {
    M.flash("");
    if (table && !table.over) await abandon();
    const body = { machine: M.machine };
    if (!document.getElementById("first-label").hidden) body.first = document.getElementById("first").value;
    try { table = await M.api("/play", { json: body }); render(); } catch (err) { M.flash(err.message); }
  }

  async function move(cell) {
    if (!table || table.over || table.menace_to_move || busy) return;
    busy = true;
    try { table = await M.api(`/play/${table.id}/move`, { json: { move: cell } }); M.flash(""); }
    catch (err) { M.flash(err.message); }
    busy = false; render();
  }

  async function abandon() {
    if (!table || table.over) return;
    try { await M.api(`/play/${table.id}/abandon`, { method: "POST" }); } catch (err) { /* gone already */ }
  }

  document.getElementById("new-game").addEventListener("click", start);
  document.getElementById("new-game").disabled = false;
  document.body.dataset.ready = "1";
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (/^[1-9]$/.test(e.key) && table && !G.moves(table)) move(Number(e.key) - 1);
  });
  // Closing the tab abandons the game: nothing reinforced, the lease released.
  window.addEventListener("pagehide", () => {
    if (!table || table.over) return;
    M.api(`/play/${table.id}/abandon`, { json: {}, keepalive: true }).catch(() => {});
  });
})();
