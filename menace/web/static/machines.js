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
        M.el("td", { text: m.side }), M.el("td", { text: M.fmt(m.boxes) }), M.el("td", { text: M.fmt(m.beads) }),
        M.el("td", { text: M.fmt(m.games) }), M.el("td", { text: `${M.fmt(m.wins)} / ${M.fmt(m.draws)} / ${M.fmt(m.losses)}` }), M.el("td", {}, btn));
    }));
    for (const n of document.querySelectorAll(".current-name")) n.textContent = d.current;
    const base = `/api/machines/${encodeURIComponent(d.current)}`;
    const links = [["Machine file (JSON)", `${base}/export`], ["Labels and build kit (PDF)", `${base}/labels.pdf`],
      ["Learning plot (PNG)", `${base}/plots/learning.png`], ["Learning plot (PDF)", `${base}/plots/learning.pdf`],
      ["Opening box's beads (PNG)", `${base}/plots/beads.png`], ["Wall of boxes (SVG)", `${base}/plots/boxes.svg`]];
    document.getElementById("downloads").replaceChildren(...links.map(([t, h]) => M.el("a", { href: h, download: "", text: t })));
  });
  const reload = () => load().catch((err) => M.flash(err.message));

  async function switchTo(name) {
    try { await M.api("/machines/current", { json: { name } }); M.flash(`Now showing '${name}'.`, "ok"); await load(); }
    catch (err) { M.flash(err.message); }
  }

  const losing = (l) => `Replace machine '${l.machine}'? Everything it has learnt will be lost: its ${M.fmt(l.games)} ` +
    `games and the beads of its ${M.fmt(l.boxes)} boxes. Export it first (Downloads, machine file) to keep them.`;

  document.getElementById("create-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get("name"), game: f.get("game"), replace: f.get("replace") === "on" };
    for (const k of ["preset", "side", "beads", "reinforce", "empty_box", "scope", "colours"]) if (f.get(k)) body[k] = f.get(k);
    for (const k of ["all_squares", "symmetry"]) if (f.get(k)) body[k] = f.get(k) === "true";
    const out = document.getElementById("create-result");
    try {
      const s = await M.confirmed((confirm) => M.api("/machines", { json: { ...body, confirm } }), losing);
      if (!s) { out.textContent = `Nothing replaced: '${body.name}' is kept as it was.`; out.dataset.state = "kept"; return; }
      out.textContent = `Built '${s.name}' (${s.preset}): ${M.fmt(s.boxes)} boxes, ${M.fmt(s.beads)} beads.`;
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
      out.textContent = `Imported '${r.name}': ${M.fmt(r.boxes)} boxes, ${M.fmt(r.games)} games, beads checked against the history.`;
      out.className = "flash ok"; M.flash(""); await load();
    } catch (err) { out.textContent = `Refused: ${err.message}`; out.className = "flash error"; }
  });

  M.events({ machine: reload, machines: reload });
  reload();
})();
