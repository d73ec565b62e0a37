// The class scoreboard: every group's machine side by side, its games and how it has learnt.
"use strict";

(() => {
  const board = document.getElementById("scoreboard"), summary = document.getElementById("score-summary");
  const prefix = new URLSearchParams(location.search).get("prefix") || "group";
  const charts = new Map();

  const load = M.newest(() => M.api(`/scoreboard?prefix=${encodeURIComponent(prefix)}`), (d) => {
    if (!d.groups.length) {
      summary.textContent = `No group machines yet: build them on the Machines page (${prefix}-1, ${prefix}-2, …).`;
      for (const c of charts.values()) c.destroy();
      charts.clear(); board.replaceChildren(); document.body.dataset.ready = "1"; return;
    }
    const lead = Math.max(...d.groups.map((g) => g.machine.games));
    summary.textContent = `${d.groups.length} groups. Each card: the games its group has played, won / drawn / lost, and its learning curve.`;
    const cards = d.groups.map((g) => {
      const m = g.machine, id = `chart-${m.name}`;
      // a group's chart is kept from one load to the next (new data only), never built again
      const chartEl = charts.has(m.name) ? charts.get(m.name).el
        : M.el("div", { id, class: "chart score-chart", role: "group", "aria-label": `learning curve of ${m.name}` });
      const card = M.el("section", { class: "score-card", "data-name": m.name, "aria-label": m.name },
        M.el("h2", {}, M.el("a", { href: `/play?machine=${encodeURIComponent(m.name)}`, text: m.name })),
        M.el("p", { class: "score-line" }, M.el("span", { class: "big", text: M.fmt(m.games) }), ` ${m.games === 1 ? "game" : "games"}${m.games && m.games === lead ? " (most)" : ""}`),
        M.el("p", { text: `won ${M.fmt(m.wins)} · drawn ${M.fmt(m.draws)} · lost ${M.fmt(m.losses)}` }),
        chartEl);
      return [card, chartEl, g];
    });
    board.replaceChildren(...cards.map(([card]) => card));
    const shown = new Set(d.groups.map((g) => g.machine.name));
    for (const [name, c] of charts) if (!shown.has(name)) { c.destroy(); charts.delete(name); }
    for (const [, chartEl, g] of cards) {
      if (!charts.has(g.machine.name)) charts.set(g.machine.name, new Chart(chartEl));
      charts.get(g.machine.name).set(learningChartData(g.learning));
    }
    document.body.dataset.ready = "1";
  });
  const reload = () => load().catch((err) => { summary.textContent = err.message; M.flash(err.message); });
  let pending = null;
  const soon = () => { if (!pending) pending = setTimeout(() => { pending = null; reload(); }, 1500); };
  M.events({ end: soon, machines: soon, train: (s) => { if (!s.running) soon(); } });
  reload();
})();
