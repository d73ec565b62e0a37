// The train page: start and stop a tournament, live counts and a growing learning curve.
"use strict";

(() => {
  const form = document.getElementById("train-form");
  const startBtn = document.getElementById("train-start"), stopBtn = document.getElementById("train-stop");
  const stateEl = document.getElementById("train-state");
  const chart = new Chart(document.getElementById("learning-chart"));
  const descriptions = {};
  let curveTimer = null, lastCurve = 0;
  let shown = { server: null, update: 0 };

  // Only the opponents that can play this machine's game, and the server's first choice for it.
  async function loadOpponents() {
    const o = await M.api(`/opponents?machine=${encodeURIComponent(M.machine)}`);
    const sel = document.getElementById("opponent");
    sel.replaceChildren(...o.players.map((p) => M.el("option", { value: p.name, text: p.name })));
    for (const p of o.players) descriptions[p.name] = p.description;
    sel.value = o.default;
    const help = () => { document.getElementById("opponent-help").textContent = descriptions[sel.value] || ""; };
    sel.onchange = help; help();
  }

  const curve = M.newest(() => {
    lastCurve = performance.now();
    return M.api(`/machines/${encodeURIComponent(M.machine)}/learning?points=600`);
  }, (s) => {
    chart.set(learningChartData(s));
    document.getElementById("learning-chart").dataset.games = String(s.games_played);
  });

  function scheduleCurve() {
    if (curveTimer) return;
    curveTimer = setTimeout(() => { curveTimer = null; curve().catch(() => {}); }, Math.max(0, 1000 - (performance.now() - lastCurve)));
  }

  function show(s) {
    // The stop's answer can come before the last progress events: a state older than the one shown is dropped.
    if (s.server === shown.server && s.update < shown.update) return;
    shown = { server: s.server, update: s.update };
    if (s.machine && s.machine !== M.machine) return;
    document.getElementById("count-games").textContent = M.fmt(s.games);
    document.getElementById("count-wins").textContent = M.fmt(s.wins);
    document.getElementById("count-draws").textContent = M.fmt(s.draws);
    document.getElementById("count-losses").textContent = M.fmt(s.losses);
    document.getElementById("count-rate").textContent = M.fmt(Math.round(s.rate));
    startBtn.disabled = s.running; stopBtn.disabled = !s.running;
    let text;
    const frozen = s.frozen ? " without learning" : "";
    if (s.running) text = `Playing ${s.opponent}${frozen}${s.target ? ` (${M.fmt(s.games)} of ${M.count(s.target, "game")})` : s.limit_seconds ? ` for ${M.fmt(s.limit_seconds)} s` : ""}…`;
    else if (s.error) text = `Stopped: ${s.error}`;
    else if (s.opponent) text = `Finished: ${M.count(s.games, "game")} against ${s.opponent}${frozen}` + (s.stopped ? ` (stopped: ${s.stopped})` : "") + (s.total_games ? `; the machine has played ${M.count(s.total_games, "game")} in all.` : ".");
    else text = "No tournament running.";
    stateEl.textContent = text;
    stateEl.dataset.running = s.running ? "1" : "0";
    if (s.error) M.flash(s.error);
    scheduleCurve();
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    M.flash("");
    const body = { machine: M.machine, opponent: document.getElementById("opponent").value };
    const secs = document.getElementById("seconds").value, games = document.getElementById("games").value, seed = document.getElementById("seed").value;
    if (secs) body.seconds = Number(secs); else body.games = Number(games || 1000);
    if (seed) body.seed = Number(seed);
    if (document.getElementById("frozen").checked) body.frozen = true;
    try { show(await M.api("/train", { json: body })); } catch (err) { M.flash(err.message); }
  });
  stopBtn.addEventListener("click", async () => {
    stopBtn.disabled = true;
    try { show(await M.api("/train/stop", { method: "POST" })); } catch (err) { M.flash(err.message); stopBtn.disabled = false; }
  });
  M.events({ train: show, machine: (m) => { M.setMachine(m.machine); loadOpponents().catch((err) => M.flash(err.message)); curve().catch((err) => M.flash(err.message)); } });
  loadOpponents().catch((err) => M.flash(err.message));
  M.api("/train").then(show).catch(() => {});
  curve().catch((err) => M.flash(err.message));
})();
