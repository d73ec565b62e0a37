// The audience view: follows the operator's (or any) game live; the learning curve below.
"use strict";

(async () => {
  await G.shape();
  const boardEl = document.getElementById("board"), statusEl = document.getElementById("status");
  const turnEl = document.getElementById("turn"), resultEl = document.getElementById("last-result");
  const chart = new Chart(document.getElementById("learning-chart"), { fontSize: () => Math.max(13, Math.round(window.innerWidth / 95)) });

  const curve = M.newest(() => M.api(`/machines/${encodeURIComponent(M.machine)}/learning?points=500`), (s) => {
    chart.set(learningChartData(s));
    document.getElementById("learning-caption").textContent = s.games_played
      ? `'${s.machine}' after ${M.fmt(s.games_played)} games: ${M.fmt(s.wins)} won, ${M.fmt(s.draws)} drawn, ${M.fmt(s.losses)} lost.` : "No games yet.";
  });
  const redrawCurve = () => curve().catch((err) => M.flash(err.message));

  function show(table) {
    if (table.machine !== M.machine) return;
    if (table.abandoned) { statusEl.textContent = "The game was abandoned: nothing changes."; turnEl.hidden = true; return; }
    boardEl.replaceChildren(G.board(table, { size: Math.min(520, window.innerHeight * 0.5) }));
    statusEl.textContent = table.end ? "Game over." : table.menace_to_move ? (table.box_to_open ? `MENACE opens box ${table.box_to_open.box_number}…` : "MENACE's turn…") : "The other side thinks…";
    const last = table.turns[table.turns.length - 1];
    turnEl.hidden = !last;
    if (last) turnEl.replaceChildren(...G.turnCard(last, { size: 240, shape: table.shape }));
    if (table.end) {
      resultEl.textContent = { win: "MENACE wins!", draw: "A draw.", loss: "MENACE loses." }[table.end.result];
      redrawCurve();
    } else resultEl.textContent = "";
    document.body.dataset.moves = String(table.moves.length);
    document.body.dataset.over = table.over ? "1" : "0";
  }

  document.getElementById("fullscreen").addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen().catch(() => {});
  });
  M.events({ table: show, machine: (m) => { M.setMachine(m.machine); redrawCurve(); } });
  await redrawCurve();
  document.body.dataset.ready = "1";
})();
