// The matchbox wall: one canvas per move group, every box drawn with its beads; live by events.
"use strict";

(() => {
  const TILE_W = 124, TILE_H = 146, BOARD = 108, PAD_X = 8, PAD_Y = 28;
  const wallEl = document.getElementById("wall");
  const summary = document.getElementById("wall-summary");
  let data = null;              // the wall from the API
  let groups = [];              // [{move, side, boxes, canvas, cols}]
  const where = new Map();      // box number -> {group, index}
  let highlight = null;         // the box opened now
  let refetchTimer = null, lastFetch = 0;
  const detailChart = new Chart(document.getElementById("detail-chart"));

  async function load() {
    const started = performance.now();
    data = expand(await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes`));
    wallEl.dataset.fetchMs = String(Math.round(performance.now() - started));
    layout();
    lastFetch = performance.now();
    wallEl.dataset.drawnMs = String(Math.round(lastFetch - started));
    wallEl.dataset.readyAt = String(Math.round(lastFetch));
    wallEl.dataset.games = String(data.games_played);
    wallEl.dataset.ready = "1";
  }

  // Beads arrive as rows (see bead_fields); give each its colour's letter, name and shade.
  function expand(w) {
    for (const b of w.boxes) {
      b.beads = b.beads.map(([bead, count, colour, to, from, initial]) => {
        const c = w.colours[colour];
        return { bead, count, colour, to, from, initial, letter: c.letter, hex: c.hex, colour_name: c.name, name: w.move_names[bead] };
      });
    }
    return w;
  }

  function say() {
    const empty = data.boxes.filter((b) => b.empty).length;
    const beads = data.boxes.reduce((s, b) => s + b.total, 0);
    summary.textContent = `${M.fmt(data.boxes.length)} boxes of '${data.machine}' after ${M.fmt(data.games_played)} games · ${M.fmt(beads)} beads · ${empty ? M.fmt(empty) + " empty" : "none empty"}`;
  }

  function layout() {
    say();
    const bySection = new Map();
    const twoSided = new Set(data.boxes.map((b) => b.side)).size > 1;
    for (const b of data.boxes) {
      const key = (twoSided ? b.side + " " : "") + b.move;
      if (!bySection.has(key)) bySection.set(key, { title: `${twoSided ? b.side + "'s" : "MENACE's"} move ${b.move}`, boxes: [] });
      bySection.get(key).boxes.push(b);
    }
    wallEl.replaceChildren();
    groups = []; where.clear();
    for (const sec of bySection.values()) {
      const n = sec.boxes.length;
      const canvas = M.el("canvas", { class: "wall-canvas", role: "img", "aria-label": `${sec.title}: ${n} boxes` });
      const section = M.el("section", { class: "wall-group" }, M.el("h2", { text: `${sec.title} · ${M.fmt(n)} ${n === 1 ? "box" : "boxes"}` }), canvas);
      wallEl.append(section);
      const g = { title: sec.title, boxes: sec.boxes, canvas, cols: 1 };
      sec.boxes.forEach((b, i) => where.set(b.number, { group: g, index: i }));
      canvas.addEventListener("click", (e) => pick(g, e));
      canvas.addEventListener("mousemove", (e) => { canvas.style.cursor = boxAt(g, e) ? "pointer" : "default"; });
      groups.push(g);
    }
    drawAll();
  }

  function drawAll() { for (const g of groups) drawGroup(g); }

  function drawGroup(g) {
    const width = Math.max(TILE_W, wallEl.clientWidth);
    g.cols = Math.max(1, Math.floor(width / TILE_W));
    const rows = Math.ceil(g.boxes.length / g.cols);
    const h = rows * TILE_H;
    // Big groups (2,201 boxes) at full pixel density would make canvases of hundreds of MB.
    const dpr = h * width > 4e6 ? 1 : Math.min(window.devicePixelRatio || 1, 2);
    g.dpr = dpr;
    g.canvas.width = Math.round(g.cols * TILE_W * dpr); g.canvas.height = Math.round(h * dpr);
    g.canvas.style.width = g.cols * TILE_W + "px"; g.canvas.style.height = h + "px";
    const ctx = g.canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.boxes.forEach((b, i) => drawTile(g, ctx, i, b));
  }

  function drawTile(g, ctx, i, b) {
    const x = (i % g.cols) * TILE_W, y = Math.floor(i / g.cols) * TILE_H;
    ctx.clearRect(x, y, TILE_W, TILE_H);
    const hl = highlight === b.number;
    ctx.fillStyle = b.empty ? "#f6c3b5" : "#f3e7cf";
    ctx.strokeStyle = hl ? "#e69f00" : b.empty ? "#c0392b" : "#b8a27a";
    ctx.lineWidth = hl ? 5 : b.empty ? 2 : 1;
    roundRect(ctx, x + 3, y + 3, TILE_W - 6, TILE_H - 6, 6); ctx.fill(); ctx.stroke();
    ctx.fillStyle = "#222"; ctx.textBaseline = "alphabetic"; ctx.textAlign = "left";
    ctx.font = "bold 13px system-ui, sans-serif"; ctx.__font = ctx.font; ctx.fillText(String(b.number), x + PAD_X, y + 19);
    ctx.textAlign = "right"; ctx.font = "12px system-ui, sans-serif"; ctx.__font = ctx.font; ctx.fillStyle = b.empty ? "#a52a1a" : "#6b5a3a";
    ctx.fillText(b.empty ? "EMPTY" : `${M.fmt(b.total)} beads`, x + TILE_W - PAD_X, y + 19);
    M.drawBox(ctx, x + PAD_X, y + PAD_Y, BOARD, b, data.shape);
  }

  function roundRect(ctx, x, y, w, h, r) {
    ctx.beginPath(); ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
    ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
  }

  function redrawBox(number) {
    const w = where.get(number); if (!w) return;
    const ctx = w.group.canvas.getContext("2d");
    ctx.setTransform(w.group.dpr, 0, 0, w.group.dpr, 0, 0);
    drawTile(w.group, ctx, w.index, w.group.boxes[w.index]);
  }

  function boxAt(g, e) {
    const r = g.canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - r.left) / TILE_W), row = Math.floor((e.clientY - r.top) / TILE_H);
    if (c >= g.cols) return null;
    return g.boxes[row * g.cols + c] || null;
  }

  async function pick(g, e) {
    const b = boxAt(g, e); if (!b) return;
    const dlg = document.getElementById("box-detail");
    document.getElementById("detail-title").textContent = `Box ${b.number} · MENACE's move ${b.move} (${b.side} to play)`;
    const drawing = document.getElementById("detail-drawing");
    drawing.replaceChildren(M.board(data.shape, b.cells, b.beads, { size: 220, label: `box ${b.number}` }),
      M.el("ul", { class: "bead-list" }, ...b.beads.map((x) => M.el("li", {}, M.el("span", { class: "swatch", style: `background:${x.hex};color:${M.textOn(x.hex)}`, text: x.letter }),
        ` ${x.colour_name} → ${x.name}: ${M.fmt(x.count)} (started with ${x.initial})`))));
    document.getElementById("detail-caption").textContent = "Loading its history…";
    if (!dlg.open) dlg.showModal();
    try {
      const s = await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes/${b.number}/series?points=400`);
      detailChart.set(beadChartData(s));
      document.getElementById("detail-caption").textContent = `Its beads over ${M.fmt(s.games_played)} games, replayed from the history.`;
    } catch (err) { document.getElementById("detail-caption").textContent = err.message; }
  }

  function scheduleRefetch() {
    if (refetchTimer) return;
    const wait = Math.max(0, 1000 - (performance.now() - lastFetch));
    refetchTimer = setTimeout(async () => {
      refetchTimer = null;
      try {
        const fresh = expand(await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes`));
        lastFetch = performance.now();
        if (fresh.boxes.length !== data.boxes.length) { data = fresh; layout(); return; }
        const changed = [];
        fresh.boxes.forEach((b, i) => { if (JSON.stringify(b.beads) !== JSON.stringify(data.boxes[i].beads)) changed.push(b.number); });
        data = fresh;
        for (const g of groups) g.boxes = g.boxes.map((b) => data.boxes[b.number - 1]);
        changed.forEach(redrawBox); say();
        wallEl.dataset.games = String(data.games_played);
      } catch (err) { M.flash(err.message); }
    }, wait);
  }

  // A finished game: change the boxes of its ledger at once, no round trip.
  function applyLedger(end) {
    if (!data || end.machine !== M.machine) return;
    const t0 = performance.now();
    for (const line of end.ledger) {
      const b = data.boxes[line.box - 1]; if (!b) continue;
      const bead = b.beads.find((x) => x.bead === line.bead); if (!bead) continue;
      bead.count = line.after;
      b.total = b.beads.reduce((s, x) => s + x.count, 0); b.empty = b.total === 0;
      redrawBox(b.number);
    }
    data.games_played = end.games_played ?? data.games_played + 1;
    const prev = highlight; highlight = null; if (prev) redrawBox(prev);
    say();
    wallEl.dataset.games = String(data.games_played);
    wallEl.dataset.ledgerMs = String(Math.round(performance.now() - t0));
    wallEl.dataset.lastGame = String(end.game_number ?? "");
  }

  function onTurn(t) {
    if (!data || t.machine !== M.machine) return;
    const prev = highlight; highlight = t.box_number || null;
    if (prev) redrawBox(prev);
    if (highlight) {
      redrawBox(highlight);
      const w = where.get(highlight);
      if (w) w.group.canvas.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  // For tests and the benchmark: a box as the wall holds it now.
  window.menaceWallBox = (n) => (data ? data.boxes[n - 1] : null);
  let width = 0;
  new ResizeObserver(() => { if (data && wallEl.clientWidth !== width) { width = wallEl.clientWidth; drawAll(); } }).observe(wallEl);
  M.events({
    train: (s) => { if (s.machine === M.machine) scheduleRefetch(); },
    turn: onTurn,
    end: applyLedger,
    machine: (m) => { if (m.machine !== M.machine) { M.setMachine(m.machine); load().catch((e) => M.flash(e.message)); } },
  });
  load().catch((err) => { summary.textContent = err.message; M.flash(err.message); });
})();
