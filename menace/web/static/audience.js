// The audience view: follows the operator's (or any) game live; the learning curve below.
"use strict";

(async () => {
  await G.shape();
  const boardEl = document.getElementById("board"), statusEl = document.getElementById("status");
  const resultEl = document.getElementById("last-result");
  const chart = new Chart(document.getElementById("learning-chart"), { fontSize: () => Math.max(16, Math.round(window.innerWidth / 80)) });

  // One request at a time, each answer drawn: the curve keeps growing through a training run on a busy machine.
  const curve = M.oneAtATime(() => M.api(`/machines/${encodeURIComponent(M.machine)}/learning?points=500`), (s) => {
    if (s.machine !== M.machine) return;
    chart.set(learningChartData(s));
    document.getElementById("learning-chart").dataset.games = String(s.games_played);
    document.getElementById("learning-caption").textContent = s.games_played
      ? `'${s.machine}' after ${M.count(s.games_played, "game")}: ${M.fmt(s.wins)} won, ${M.fmt(s.draws)} drawn, ${M.fmt(s.losses)} lost.` : "No games yet.";
  });
  const redrawCurve = () => curve().catch((err) => M.flash(err.message));

  const turnsEl = document.getElementById("turns");
  let shown = null;

  // The board as large as its column and the screen allow (a projector at the back of a hall).
  function boardSize() {
    const col = boardEl.parentElement.getBoundingClientRect();
    return Math.max(160, Math.min(col.width - 24, window.innerHeight * 0.56));
  }

  function show(table) {
    if (table.machine !== M.machine) return;
    if (table.abandoned) {
      if (shown && shown.id !== table.id) return;
      statusEl.textContent = table.why ? `The game was stopped (${table.why}): nothing changes.` : "The game was abandoned: nothing changes.";
      return;
    }
    shown = table;
    boardEl.replaceChildren(G.board(table, { size: boardSize() }));
    statusEl.textContent = table.end ? "Game over." : table.menace_to_move ? (table.box_to_open ? `MENACE opens box ${table.box_to_open.box_number}…` : "MENACE's turn…") : "The other side thinks…";
    // every MENACE turn of the game stays on screen, the latest last
    const strip = G.turnStrip(table, { size: stripSize(table.turns.length) });
    if (strip.length) turnsEl.replaceChildren(...strip);
    else turnsEl.replaceChildren(M.el("p", { class: "muted", text: "MENACE has not moved yet." }));
    if (table.end) {
      resultEl.textContent = { win: "MENACE wins!", draw: "A draw.", loss: "MENACE loses." }[table.end.result];
      redrawCurve();
    } else resultEl.textContent = "";
    document.body.dataset.moves = String(table.moves.length);
    document.body.dataset.turns = String(table.turns.length);
    document.body.dataset.over = table.over ? "1" : "0";
  }

  // Five turns at most in noughts and crosses: each card's drawing shares the row.
  function stripSize(n) {
    const w = turnsEl.getBoundingClientRect().width, room = window.innerHeight * 0.24;
    return Math.max(90, Math.min(room, (w - 16 * 4) / Math.max(5, n) - 16));
  }
  window.addEventListener("resize", () => { if (shown) show(shown); });

  document.getElementById("fullscreen").addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen(); else document.documentElement.requestFullscreen().catch(() => {});
  });
  // A tournament's progress: said on the status line (the audience sees a training run, not only games
  // played by hand), and the curve grows as it runs (at most once a second), and once more at its end.
  let pending = null, training = false;
  const train = (s) => {
    if (s.machine !== M.machine) return;
    const against = s.opponent ? ` against ${s.opponent}` : "";
    // short, in the projector's large type: the score is under the chart, in its caption
    if (s.running) {
      training = true;
      const done = s.target ? `${M.fmt(s.games)} of ${M.count(s.target, "game")}` : M.count(s.games, "game");
      statusEl.textContent = `Training${against}: ${done} so far.`;
      resultEl.textContent = "";
    } else if (training) {
      training = false;
      statusEl.textContent = s.error ? `Training stopped${against}: ${s.error}.`
        : `Training finished${against}: ${M.count(s.games, "game")}.`;
    }
    document.body.dataset.training = training ? "1" : "0";
    if (!s.running) { clearTimeout(pending); pending = null; redrawCurve(); return; }
    if (!pending) pending = setTimeout(() => { pending = null; redrawCurve(); }, 1000);
  };
  M.events({ table: show, train, machine: (m) => { M.setMachine(m.machine); redrawCurve(); } });
  await redrawCurve();
  document.body.dataset.ready = "1";
})();
