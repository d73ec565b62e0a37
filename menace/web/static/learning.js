// The learning page: the learning curve (zoom by dragging, asks the server for detail) and one box's beads.
"use strict";

(() => {
  const summary = document.getElementById("learning-summary");
  let range = null;
  const chart = new Chart(document.getElementById("learning-chart"), {
    onZoom: (a, b) => { range = [a, b]; load(); },
    onReset: () => { range = null; load(); },
  });
  const growth = new Chart(document.getElementById("growth-chart"));

  async function load() {
    const q = range ? `&first=${range[0]}&last=${range[1]}` : "";
    const s = await M.api(`/machines/${encodeURIComponent(M.machine)}/learning?points=800${q}`);
    chart.set(learningChartData(s));
    const n = s.games_played;
    summary.textContent = n
      ? `'${s.machine}' has played ${M.fmt(n)} games` +
        (range ? `; games ${M.fmt(s.first)} to ${M.fmt(s.last)}: ` : ": ") +
        `${M.fmt(s.wins)} won, ${M.fmt(s.draws)} drawn, ${M.fmt(s.losses)} lost. Rule ${s.rule}.` +
        (s.opponents.length > 1 ? ` Opponents: ${s.opponents.map((o) => o.opponent + " from game " + M.fmt(o.game)).join(", ")}.` : s.opponents.length ? ` Opponent: ${s.opponents[0].opponent}.` : "")
      : `'${s.machine}' has played no games yet.`;
    document.getElementById("learning-chart").dataset.games = String(n);
  }

  async function loadBox() {
    const n = Number(document.getElementById("growth-box").value) || 1;
    const cap = document.getElementById("growth-caption");
    cap.textContent = "Replaying the history…";
    try {
      const d = await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes/${n}/series?points=500`);
      growth.set(beadChartData(d));
      cap.textContent = `Box ${n} (MENACE's move ${d.box.move}): its beads of each colour after each game; now ` +
        d.series.map((s) => `${s.letter} ${s.colour_name} ${M.fmt(s.count)}`).join(", ") + ".";
    } catch (err) { cap.textContent = err.message; }
  }

  document.getElementById("zoom-out").addEventListener("click", () => { range = null; load(); });
  document.getElementById("growth-show").addEventListener("click", loadBox);
  let pending = null;
  M.events({
    train: (s) => { if (s.machine === M.machine && !range && !pending) pending = setTimeout(() => { pending = null; load(); }, 1000); },
    end: (e) => { if (e.machine === M.machine && !range) load(); },
    machine: (m) => { M.setMachine(m.machine); range = null; load(); loadBox(); },
  });
  load().catch((err) => { summary.textContent = err.message; });
  loadBox();
})();
