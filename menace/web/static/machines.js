// The machines page: list and switch, build with every init option, export, import, downloads.
"use strict";

(() => {
  const tbody = document.querySelector("#machine-table tbody");

  const load = M.newest(() => M.api("/machines"), (d) => {
    M.setMachine(d.current);
    tbody.replaceChildren(...d.machines.map((m) => {
      const btn = m.name === d.current ? M.el("span", { class: "muted", text: "shown now" })
        : M.el("button", { type: "button", text: "Show this one", onclick: () => switchTo(m.name) });
      return M.el("tr", { class: m.name === d.current ? "current" : null, "data-name": m.name },
        M.el("td", {}, M.el("b", { text: m.name }), M.el("div", { class: "muted", text: m.preset || "" })),
        M.el("td", { text: m.game_title }), M.el("td", { text: m.side_name }), M.el("td", { text: M.fmt(m.boxes) }), M.el("td", { text: m.odds ? "odds, not beads" : M.fmt(m.beads) }),
        M.el("td", { text: M.fmt(m.games) }), M.el("td", { text: `${M.fmt(m.wins)} / ${M.fmt(m.draws)} / ${M.fmt(m.losses)}` }), M.el("td", {}, btn));
    }));
    for (const n of document.querySelectorAll(".current-name")) n.textContent = d.current;
    const base = `/api/machines/${encodeURIComponent(d.current)}`;
    // A machine of odds (the 1963 program's rule) has no beads: no build kit to print, and its opening
    // box's plot draws each move's chance.
    const odds = d.machines.some((m) => m.name === d.current && m.odds);
    const links = [["Machine file (JSON)", `${base}/export`],
      ...(odds ? [] : [["Labels and build kit (PDF)", `${base}/labels.pdf`]]),
      ["Learning plot (PNG)", `${base}/plots/learning.png`], ["Learning plot (PDF)", `${base}/plots/learning.pdf`],
      [odds ? "Opening box's chances (PNG)" : "Opening box's beads (PNG)", `${base}/plots/beads.png`],
      ["Wall of boxes (SVG)", `${base}/plots/boxes.svg`]];
    document.getElementById("downloads").replaceChildren(...links.map(([t, h]) => M.el("a", { href: h, download: "", text: t })));
  });
  const reload = () => load().catch((err) => M.flash(err.message));

  async function switchTo(name) {
    try { await M.api("/machines/current", { json: { name } }); M.flash(`Now showing '${name}'.`, "ok"); await load(); }
    catch (err) { M.flash(err.message); }
  }

  const losing = (l) => `Replace machine '${l.machine}'? Everything it has learnt will be lost: its ${M.fmt(l.games)} ` +
    `games and the beads of its ${M.count(l.boxes, "box")}. Export it first (Downloads, machine file) to keep them.`;

  document.getElementById("create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get("name"), game: f.get("game"), replace: f.get("replace") === "on" };
    for (const k of ["preset", "side", "beads", "reinforce", "empty_box", "scope", "colours", "rule", "refined"]) if (f.get(k)) body[k] = f.get(k);
    for (const k of ["pegasus_a", "pegasus_b", "decay"]) if (f.get(k)) body[k] = Number(f.get(k));
    for (const k of ["all_squares", "symmetry"]) if (f.get(k)) body[k] = f.get(k) === "true";
    const out = document.getElementById("create-result");
    try {
      const s = await M.confirmed((confirm) => M.api("/machines", { json: { ...body, confirm } }), losing);
      if (!s) { out.textContent = `Nothing replaced: '${body.name}' is kept as it was.`; out.dataset.state = "kept"; return; }
      out.textContent = `Built '${s.name}' (${s.preset}): ${M.count(s.boxes, "box")}, ${s.odds ? "odds, not beads" : M.count(s.beads, "bead")}.`;
      out.dataset.state = "built";
      M.flash(""); await load();
    } catch (err) { out.textContent = ""; out.dataset.state = "refused"; M.flash(err.message); }
  });

  document.getElementById("import-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const out = document.getElementById("import-result");
    const file = document.getElementById("import-file").files[0];
    if (!file) { M.flash("Choose a machine file first."); return; }
    const q = new URLSearchParams({ filename: file.name });
    const as = document.getElementById("import-as").value.trim();
    if (as) q.set("as", as);
    if (document.getElementById("import-replace").checked) q.set("replace", "1");
    out.textContent = "Checking the file (every game is replayed)…"; out.className = "muted";
    try {
      const r = await M.confirmed((confirm) => {
        if (confirm) q.set("confirm", "1");
        return M.api(`/import?${q}`, { method: "POST", body: file, headers: { "Content-Type": "application/json" } });
      }, losing);
      if (!r) { out.textContent = "Nothing imported: the machine is kept as it was."; out.className = "muted"; return; }
      out.textContent = `Imported '${r.name}': ${M.count(r.boxes, "box")}, ${M.count(r.games, "game")}, ${r.odds ? "odds" : "beads"} checked against the history.`;
      out.className = "flash ok"; M.flash(""); await load();
    } catch (err) { out.textContent = `Refused: ${err.message}`; out.className = "flash error"; }
  });

  // The games in progress, each with a Stop button for the teacher.
  const gamesBody = document.querySelector("#games-table tbody");
  const loadGames = M.newest(() => M.api("/tables"), (d) => {
    document.getElementById("games-none").hidden = d.games.length > 0;
    document.getElementById("games-table").hidden = d.games.length === 0;
    gamesBody.replaceChildren(...d.games.map((g) => M.el("tr", { "data-table": g.id },
      M.el("td", {}, M.el("b", { text: g.machine })), M.el("td", { text: g.operated ? "operated (console)" : "played on a page" }),
      M.el("td", { text: String(g.moves) }), M.el("td", { text: `${M.fmt(Math.round(g.seconds / 60))} min ago` }),
      M.el("td", { text: String(d.waiting[g.machine] || 0) }),
      M.el("td", {}, M.el("button", { type: "button", class: "stop-game", text: "Stop this game", "aria-label": `Stop the game on ${g.machine}`,
        onclick: () => stopGame(g) })))));
  });
  const reloadGames = () => loadGames().catch((err) => M.flash(err.message));
  async function stopGame(g) {
    try { await M.api(`/tables/${g.id}/stop`, { method: "POST" }); M.flash(`Stopped the game on '${g.machine}': nothing is learnt from it.`, "ok"); }
    catch (err) { M.flash(err.message); }
    reloadGames();
  }

  // The build form: every game the server has, the presets of the chosen one (michie-1961 among
  // them), its sides by their own names (White and Black in Hexapawn).
  const PRESET_HELP = {
    michie: "Michie's machine, its opening box refilled when empty",
    "michie-1961": "exactly as Michie ran it in 1961: an empty box resigns, even the opening one",
    rubyquiz: "the rules of the Ruby Quiz MENACE", gardner: "Gardner's Hexapawn rules (HER)",
  };
  async function fillBuildForm() {
    const info = await M.api("/info");
    const gameSel = document.getElementById("create-game"), presetSel = document.getElementById("create-preset");
    const sideSel = document.getElementById("create-side");
    gameSel.replaceChildren(...info.games.map((g) => M.el("option", { value: g, text: info.game_titles[g] || g })));
    const fit = () => {
      const g = gameSel.value;
      presetSel.replaceChildren(M.el("option", { value: "", text: `the game's own (${info.default_presets[g] || "default"})` }),
        ...info.presets.filter((p) => !p.game || p.game === g).map((p) => M.el("option", { value: p.name, text: PRESET_HELP[p.name] ? `${p.name}: ${PRESET_HELP[p.name]}` : p.name })));
      const sides = info.game_sides[g] || { X: "X", O: "O" };
      sideSel.replaceChildren(M.el("option", { value: "", text: "preset's" }),
        M.el("option", { value: "X", text: `${sides.X} (moves first)` }), M.el("option", { value: "O", text: `${sides.O} (moves second)` }),
        M.el("option", { value: "both", text: "both" }));
    };
    gameSel.onchange = fit; fit();
    // the groups' form: the same games and presets
    const gGame = document.getElementById("groups-game"), gPreset = document.getElementById("groups-preset");
    gGame.replaceChildren(...info.games.map((g) => M.el("option", { value: g, text: info.game_titles[g] || g })));
    const fitGroups = () => gPreset.replaceChildren(M.el("option", { value: "", text: `the game's own (${info.default_presets[gGame.value] || "default"})` }),
      ...info.presets.filter((p) => !p.game || p.game === gGame.value).map((p) => M.el("option", { value: p.name, text: p.name })));
    gGame.onchange = fitGroups; fitGroups();
  }

  document.getElementById("groups-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target), out = document.getElementById("groups-result");
    const body = { count: Number(f.get("count")), game: f.get("game"), replace: f.get("replace") === "on" };
    if (f.get("preset")) body.preset = f.get("preset");
    try {
      const r = await M.api("/groups", { json: body });
      out.className = "flash ok";
      out.replaceChildren(`Built ${r.machines.length} machines: `, ...r.machines.flatMap((m, i) => [i ? ", " : "",
        M.el("a", { href: `/play?machine=${encodeURIComponent(m.name)}`, text: m.name })]), ". ", M.el("a", { href: "/scoreboard", text: "Open the scoreboard" }), ".");
      M.flash(""); await load();
    } catch (err) { out.className = "flash error"; out.textContent = err.message; }
  });

  M.events({ machine: reload, machines: reload, table: reloadGames, queue: reloadGames, end: reload });
  reload();
  reloadGames();
  fillBuildForm().catch((err) => M.flash(err.message));
})();
