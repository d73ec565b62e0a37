// The games page: the last games (menace history), one replayed move by move (menace replay), and
// undoing the last game (menace undo), with a confirmation that says what is taken back.
"use strict";

(() => {
  const body = document.querySelector("#games-list tbody"), summary = document.getElementById("games-summary");
  const WORDS = { win: "won", draw: "drawn", loss: "lost" };
  let replay = null, step = 0, latest = null;

  const load = M.newest(() => M.api(`/machines/${encodeURIComponent(M.machine)}/games?last=30`), (d) => {
    latest = d.games[0] || null;
    summary.textContent = d.played ? `'${d.machine}' has played ${M.count(d.played, "game")}; the last ${d.games.length} are listed, newest first.` : `'${d.machine}' has played no games yet.`;
    document.getElementById("undo").disabled = !latest;
    body.replaceChildren(...d.games.map((g) => M.el("tr", { "data-game": g.number },
      M.el("td", { text: M.fmt(g.number) }), M.el("td", { text: g.frozen ? `${g.opponent} (frozen: played without learning)` : g.opponent }),
      M.el("td", { class: g.result === "win" ? "plus" : g.result === "loss" ? "minus" : "", text: WORDS[g.result] || g.result }),
      M.el("td", { text: g.moves.join(" ") }),
      M.el("td", {}, M.el("button", { type: "button", text: "Replay", "aria-label": `replay game ${g.number}`, onclick: () => show(g.number) })))));
    document.body.dataset.ready = "1";
  });
  const reload = () => load().catch((err) => { summary.textContent = err.message; });

  async function show(n) {
    try { replay = await M.api(`/machines/${encodeURIComponent(M.machine)}/games/${n}`); }
    catch (err) { M.flash(err.message); return; }
    step = replay.plies.length;
    document.getElementById("replay").hidden = false;
    document.getElementById("replay-title").textContent = `Game ${M.fmt(replay.number)} against ${replay.opponent}: MENACE ${WORDS[replay.result] || replay.result}`;
    draw();
    document.getElementById("replay").scrollIntoView({ block: "nearest" });
  }

  function draw() {
    const plies = replay.plies, p = plies[step - 1];
    const empty = new Array(replay.shape.rows * replay.shape.cols).fill(0);
    const table = { shape: replay.shape, cells: p ? p.cells : (plies.length ? initial() : empty), last_move: p ? p.to : null, legal_cells: [], win_cells: [] };
    document.getElementById("replay-board").replaceChildren(M.board(replay.shape, table.cells, [], { size: 260, highlight: table.last_move, label: `the board after move ${step}` }));
    document.getElementById("replay-step").textContent = p ? `Move ${p.number} of ${plies.length}: ${p.side} plays ${p.move}${p.by_menace ? " (MENACE)" : ""}` : `The start (${plies.length} moves)`;
    const box = document.getElementById("replay-box");
    if (p && p.box_number !== null && p.box_number !== undefined && p.beads) {
      const b = p.beads.find((x) => x.bead === p.bead) || {};
      box.replaceChildren(M.el("h3", { text: `MENACE opened box ${p.box_number}` }),
        M.board(replay.shape, p.box_cells, p.beads, { size: 200, drawn: p.bead, label: `box ${p.box_number}` }),
        M.el("p", {}, p.symmetry && p.symmetry !== "as it is" ? `Turned to match its drawing: ${p.symmetry}. ` : "",
          "It drew ", M.el("span", { class: "swatch", style: `background:${b.hex};color:${M.textOn(b.hex || "#fff")}`, text: b.letter }), ` ${b.colour_name}.`));
    } else box.replaceChildren(p && p.by_menace ? M.el("p", { text: "A forced move: no box." }) : M.el("p", { class: "muted", text: p ? "The other side's move." : "" }));
    document.getElementById("replay-prev").disabled = step === 0;
    document.getElementById("replay-next").disabled = step === plies.length;
    const led = document.getElementById("replay-ledger");
    led.replaceChildren(...(step === plies.length && replay.frozen ? [M.el("p", { text: "Played without learning (frozen): no bead changed." })]
      : step === plies.length && replay.reinforcement.length ? [M.el("p", { text: `Reinforcement (${replay.rule}): ` +
      replay.reinforcement.map((l) => l.percent ? `box ${l.box} chance ${l.before}% → ${l.after}%` : `box ${l.box} ${l.before} → ${l.after}`).join(", ") + "." })] : []));
    document.getElementById("replay").dataset.step = String(step);
  }

  function initial() { return new Array(replay.shape.rows * replay.shape.cols).fill(0); }

  document.getElementById("replay-prev").addEventListener("click", () => { if (step > 0) { step--; draw(); } });
  document.getElementById("replay-next").addEventListener("click", () => { if (replay && step < replay.plies.length) { step++; draw(); } });
  document.addEventListener("keydown", (e) => {
    if (!replay || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (e.key === "ArrowLeft" && step > 0) { step--; draw(); }
    if (e.key === "ArrowRight" && step < replay.plies.length) { step++; draw(); }
  });

  document.getElementById("undo").addEventListener("click", async () => {
    if (!latest) return;
    const out = document.getElementById("undo-result");
    if (!window.confirm(`Undo game ${M.fmt(latest.number)} against ${latest.opponent}? The game is removed from the history and the beads it moved go back to what they were before it.`)) return;
    try {
      const r = await M.api(`/machines/${encodeURIComponent(M.machine)}/undo`, { json: { games: 1 } });
      out.className = "flash ok";
      out.textContent = `Game ${r.removed.join(", ")} undone: ${r.changes.length} bead count${r.changes.length === 1 ? "" : "s"} put back; ${M.count(r.played, "game")} left.`;
      document.getElementById("replay").hidden = true; replay = null;
      reload();
    } catch (err) { out.className = "flash error"; out.textContent = err.message; }
  });

  M.events({ end: (e) => { if (e.machine === M.machine) reload(); }, machine: (m) => { M.setMachine(m.machine); reload(); },
    train: (s) => { if (!s.running && s.machine === M.machine) reload(); } });
  reload();
})();
