// The learning page: the learning curve (zoom by dragging, asks the server for detail) and one box's beads.
"use strict";

(() => {
  const summary = document.getElementById("learning-summary");
  let range = null;
  const chart = new Chart(document.getElementById("learning-chart"), {
    onZoom: (a, b) => { range = [a, b]; reload(); },
    onReset: () => { range = null; reload(); },
  });
  const growth = new Chart(document.getElementById("growth-chart"));

  // One request at a time: during a training run on a busy machine each answer is drawn (a newer
  // request never makes the one under way stale); only a zoom changed meanwhile drops an answer.
  const load = M.oneAtATime(async () => {
    const asked = range, q = asked ? `&first=${asked[0]}&last=${asked[1]}` : "";
    return { s: await M.api(`/machines/${encodeURIComponent(M.machine)}/learning?points=800${q}`), asked };
  }, ({ s, asked }) => {
    chart.set(learningChartData(s));
    const n = s.games_played;
    summary.textContent = n
      ? `'${s.machine}' has played ${M.count(n, "game")}` +
        (asked ? `; games ${M.fmt(s.first)} to ${M.fmt(s.last)}: ` : ": ") +
        `${M.fmt(s.wins)} won, ${M.fmt(s.draws)} drawn, ${M.fmt(s.losses)} lost. Rule ${s.rule}.` +
        (s.opponents.length > 1 ? ` Opponents: ${s.opponents.map((o) => o.opponent + " from game " + M.fmt(o.game)).join(", ")}.` : s.opponents.length ? ` Opponent: ${s.opponents[0].opponent}.` : "")
      : `'${s.machine}' has played no games yet.`;
    document.getElementById("learning-chart").dataset.games = String(n);
  }, ({ asked }) => asked !== range);
  const reload = () => load().catch((err) => { summary.textContent = err.message; });

  const cap = document.getElementById("growth-caption");
  const loadBox = M.newest(async () => {
    const n = Number(document.getElementById("growth-box").value) || 1;
    cap.textContent = "Replaying the history…";
    return { n, d: await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes/${n}/series?points=500`) };
  }, ({ n, d }) => {
    growth.set(beadChartData(d));
    cap.textContent = `Box ${n} (MENACE's move ${d.box.move}): ${d.odds ? "each move's chance" : "its beads of each colour"} after each game; now ` +
      d.series.map((s) => `${s.letter} ${s.colour_name} ${d.odds ? s.count + "%" : M.fmt(s.count)}`).join(", ") + ".";
  });
  const showBox = () => loadBox().catch((err) => { cap.textContent = err.message; });

  document.getElementById("zoom-out").addEventListener("click", () => { range = null; reload(); });
  document.getElementById("growth-show").addEventListener("click", showBox);
  let pending = null;
  M.events({
    train: (s) => { if (s.machine === M.machine && !range && !pending) pending = setTimeout(() => { pending = null; reload(); }, 1000); },
    end: (e) => { if (e.machine === M.machine && !range) reload(); },
    machine: (m) => { M.setMachine(m.machine); range = null; reload(); showBox(); },
  });
  reload();
  showBox();
})();
