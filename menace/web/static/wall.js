// The matchbox wall: every box drawn with its beads on canvases of a few rows; live by events.
"use strict";

(() => {
  const TILE_W = 124, TILE_H = 146, BOARD = 108, PAD_X = 8, PAD_Y = 28, CHUNK_ROWS = 6;
  // Colours: tiles a pale card, empty ones hatched in orange-red with EMPTY written (seen without
  // colour vision too); the bead colours are the Okabe-Ito set, each dot carrying its letter.
  const BG = "#f4f1ea", TILE_FILL = "#fbf3e1", TILE_LINE = "#b8a27a", EMPTY_FILL = "#fde0d2", EMPTY_HATCH = "#f2b39b", EMPTY_LINE = "#b33a00";
  let DPR = 1, S = 1;           // pixel density; the scale of a tile (a small wall is drawn larger)
  const wallEl = document.getElementById("wall");
  const summary = document.getElementById("wall-summary");
  let data = null;              // the wall from the API
  let groups = [];              // [{title, boxes, section, chunks: [{canvas, first, rows}], cols}]
  const where = new Map();      // box number -> {group, index}
  let highlight = null;         // the box opened now
  let refetchTimer = null, lastFetch = 0;
  // Whole loads and refetches both ask for the boxes: only the newest request's answer is drawn,
  // and a refetch waits while a load is under way.
  let fetches = 0, loading = 0, refetchAfterLoad = false;
  const detailChart = new Chart(document.getElementById("detail-chart"));

  async function load() {
    const started = performance.now();
    wallEl.dataset.loadAt = String(Math.round(started));
    const mine = ++fetches;
    loading++;
    let fresh;
    try { fresh = expand(await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes`)); }
    finally {
      loading--;
      if (!loading && refetchAfterLoad) { refetchAfterLoad = false; scheduleRefetch(); }  // runs after this load draws
    }
    if (mine !== fetches) return;  // a newer load (another machine chosen meanwhile) draws
    data = fresh;
    wallEl.dataset.fetchMs = String(Math.round(performance.now() - started));
    layout();
    lastFetch = performance.now();
    wallEl.dataset.drawnMs = String(Math.round(lastFetch - started));
    wallEl.dataset.readyAt = String(Math.round(lastFetch));
    wallEl.dataset.games = String(data.games_played);
    wallEl.dataset.ready = "1";
    // The frame with the boxes on screen: the next animation frame, once its painting is done.
    requestAnimationFrame(() => setTimeout(() => { wallEl.dataset.paintedAt = String(Math.round(performance.now())); }, 0));
  }

  // Boxes and beads arrive as rows (see box_fields and bead_fields); give each bead its colour's
  // letter, name and shade and its cells, each box its total.
  function expand(w) {
    const beadOf = ([bead, count, colour, initial]) => {
      const c = w.colours[colour], [from, to] = w.move_cells[bead];
      return { bead, count, colour, to, from, initial, letter: c.letter, hex: c.hex, ink: c.ink, colour_name: c.name, name: w.move_names[bead] };
    };
    w.boxes = w.boxes.map(([number, move, side, cells, rows, caption]) => {
      const beads = rows.map(beadOf);
      let total = 0;
      for (const b of beads) total += b.count;
      return { number, move, side, cells, beads, total, empty: total === 0, caption: caption || "" };
    });
    return w;
  }

  function say() {
    if (data.odds) {  // the Pegasus rule: odds, not beads (each count is a move's chance in %)
      summary.textContent = `${M.count(data.boxes.length, "box")} of '${data.machine}' after ${M.count(data.games_played, "game")} · each move's chance in % (the Pegasus rule keeps odds, not beads)`;
      return;
    }
    const empty = data.boxes.filter((b) => b.empty).length;
    const beads = data.boxes.reduce((s, b) => s + b.total, 0);
    summary.textContent = `${M.count(data.boxes.length, "box")} of '${data.machine}' after ${M.count(data.games_played, "game")} · ${M.count(beads, "bead")} · ${empty ? M.fmt(empty) + " empty" : "none empty"}`;
  }

  // Each move group is cut into canvases of a few rows: small canvases are quick to allocate and
  // paint, and a redrawn box repaints one of them only.
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
      const section = M.el("section", { class: "wall-group", "aria-label": `${sec.title}: ${n} boxes` },
        M.el("h2", { text: `${sec.title} · ${M.fmt(n)} ${n === 1 ? "box" : "boxes"}` }));
      const g = { title: sec.title, boxes: sec.boxes, section, chunks: [], cols: 1 };
      sec.boxes.forEach((b, i) => where.set(b.number, { group: g, index: i }));
      wallEl.append(section);
      groups.push(g);
    }
    drawAll();
  }

  function drawAll() {
    // Sharp on a high-density screen, but 2,201 boxes at twice the pixels would take ~600 MB.
    DPR = data.boxes.length > 600 ? 1 : Math.min(window.devicePixelRatio || 1, 2);
    const room = wallEl.clientWidth;
    // a small wall larger; on a phone three boxes a row, a little smaller
    S = data.boxes.length <= 60 && room >= 6 * TILE_W * 1.5 ? 1.5 : room < 3 * TILE_W && room >= 2.4 * TILE_W ? room / (3 * TILE_W) : 1;
    const cols = Math.max(1, Math.floor(Math.max(TILE_W * S, room) / (TILE_W * S) + 1e-6));
    for (const g of groups) {
      g.cols = cols;
      const rows = Math.ceil(g.boxes.length / cols);
      const need = Math.ceil(rows / CHUNK_ROWS);
      while (g.chunks.length > need) { const gone = g.chunks.pop(); seen.unobserve(gone.canvas); gone.canvas.remove(); }
      while (g.chunks.length < need) {
        const canvas = M.el("canvas", { class: "wall-canvas", role: "img" });
        const chunk = { canvas, first: 0, rows: 0, drawn: false, group: g };
        canvas.__chunk = chunk;
        canvas.addEventListener("click", (e) => pick(g, chunk, e));
        canvas.addEventListener("mousemove", (e) => { canvas.style.cursor = boxAt(g, chunk, e) ? "pointer" : "default"; });
        g.section.append(canvas);
        g.chunks.push(chunk);
      }
      g.chunks.forEach((chunk, k) => {
        chunk.first = k * CHUNK_ROWS * cols;
        chunk.rows = Math.min(CHUNK_ROWS, rows - k * CHUNK_ROWS);
        const c = chunk.canvas;
        c.style.width = cols * TILE_W * S + "px"; c.style.height = chunk.rows * TILE_H * S + "px";
        const last = Math.min(g.boxes.length, chunk.first + chunk.rows * cols);
        c.setAttribute("aria-label", `boxes ${g.boxes[chunk.first].number} to ${g.boxes[last - 1].number}`);
        chunk.drawn = false;
        chunk.group = g;
        seen.unobserve(c); seen.observe(c);  // observing anew reports where it is now
      });
    }
    // The chunks on screen (and a screen either side) now; the others as they scroll near, as
    // content-visibility would: painting all 2,201 boxes at once costs about a second of raster.
    const near = window.innerHeight;
    for (const g of groups) for (const chunk of g.chunks) {
      const r = chunk.canvas.getBoundingClientRect();
      if (r.bottom > -near && r.top < window.innerHeight + near) paintChunk(chunk);
    }
  }

  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) paintChunk(e.target.__chunk);
  }, { rootMargin: "100% 0px" });

  function paintChunk(chunk) {
    if (!chunk || chunk.drawn) return;
    chunk.drawn = true;
    const g = chunk.group, c = chunk.canvas, w = g.cols * TILE_W, h = chunk.rows * TILE_H;
    c.width = Math.round(w * DPR * S); c.height = Math.round(h * DPR * S);
    const ctx = c.getContext("2d", { alpha: false });
    ctx.setTransform(DPR * S, 0, 0, DPR * S, 0, 0);
    ctx.fillStyle = BG; ctx.fillRect(0, 0, w, h);
    const items = [];
    const last = Math.min(g.boxes.length, chunk.first + chunk.rows * g.cols);
    for (let i = chunk.first; i < last; i++) items.push(tile(g, chunk, i));
    drawTiles(ctx, items);
    wallEl.dataset.chunksDrawn = String(Number(wallEl.dataset.chunksDrawn || 0) + 1);
  }

  // For the benchmark and tests: draw every box now, on screen or not.
  window.menaceWallDrawAll = () => { for (const g of groups) for (const chunk of g.chunks) paintChunk(chunk); };

  function tile(g, chunk, i) {
    const j = i - chunk.first;
    return { x: (j % g.cols) * TILE_W, y: Math.floor(j / g.cols) * TILE_H, box: g.boxes[i] };
  }

  // Draw boxes in passes (backgrounds, texts, grids, marks, dots by colour, letters, counts): one
  // path and one font per pass instead of one per bead is what makes 2,201 boxes quick.
  function drawTiles(ctx, items) {
    const shape = data.shape, rows = shape.rows, cols = shape.cols, cell = BOARD / Math.max(rows, cols);
    const full = cell * 0.33, dy = cell * 0.12;
    // tiles
    for (const kind of ["full", "empty"]) {
      const some = items.filter((t) => (kind === "empty") === t.box.empty);
      if (!some.length) continue;
      ctx.beginPath();
      for (const t of some) ctx.roundRect(t.x + 3, t.y + 3, TILE_W - 6, TILE_H - 6, 6);
      ctx.fillStyle = kind === "empty" ? EMPTY_FILL : TILE_FILL; ctx.fill();
      if (kind === "empty") {
        ctx.save(); ctx.clip();
        ctx.beginPath();
        for (const t of some) for (let k = -TILE_H; k < TILE_W; k += 14) { ctx.moveTo(t.x + k, t.y + TILE_H); ctx.lineTo(t.x + k + TILE_H, t.y); }
        ctx.strokeStyle = EMPTY_HATCH; ctx.lineWidth = 4; ctx.stroke();
        ctx.restore();
        ctx.beginPath();
        for (const t of some) ctx.roundRect(t.x + 3, t.y + 3, TILE_W - 6, TILE_H - 6, 6);
      }
      ctx.strokeStyle = kind === "empty" ? EMPTY_LINE : TILE_LINE; ctx.lineWidth = kind === "empty" ? 3 : 1; ctx.stroke();
    }
    const hl = items.filter((t) => t.box.number === highlight);
    if (hl.length) {
      ctx.beginPath(); for (const t of hl) ctx.roundRect(t.x + 3, t.y + 3, TILE_W - 6, TILE_H - 6, 6);
      ctx.strokeStyle = "#e69f00"; ctx.lineWidth = 6; ctx.stroke();
    }
    // the box's number and its beads
    ctx.textBaseline = "alphabetic"; ctx.textAlign = "left"; ctx.fillStyle = "#111"; ctx.font = "bold 14px system-ui, sans-serif";
    const numberW = new Map();
    for (const t of items) { const n = String(t.box.number); numberW.set(t, ctx.measureText(n).width); ctx.fillText(n, t.x + PAD_X, t.y + 20); }
    ctx.textAlign = "right"; ctx.font = "13px system-ui, sans-serif"; ctx.fillStyle = "#4a3d25";
    for (const t of items) {
      if (t.box.empty || data.odds) continue;  // a machine that keeps odds: its chances are under the dots
      // the total beside the box's number, never over it: 2,925,021 beads, else 2.93M beads, else 2.93M
      const room = TILE_W - 2 * PAD_X - numberW.get(t) - 8, word = t.box.total === 1 ? "bead" : "beads";
      let text = `${M.fmt(t.box.total)} ${word}`;
      if (ctx.measureText(text).width > room) text = `${M.short(t.box.total)} ${word}`;
      if (ctx.measureText(text).width > room) text = M.short(t.box.total);
      ctx.fillText(text, t.x + TILE_W - PAD_X, t.y + 20);
    }
    ctx.font = "bold 13px system-ui, sans-serif"; ctx.fillStyle = "#7a1600";
    for (const t of items) if (t.box.empty) ctx.fillText("EMPTY", t.x + TILE_W - PAD_X, t.y + 20);
    // the board: grid and pieces
    ctx.beginPath();
    if (shape.grid !== false) for (const t of items) {
      const x = t.x + PAD_X, y = t.y + PAD_Y;
      for (let c = 1; c < cols; c++) { ctx.moveTo(x + c * cell, y); ctx.lineTo(x + c * cell, y + rows * cell); }
      for (let r = 1; r < rows; r++) { ctx.moveTo(x, y + r * cell); ctx.lineTo(x + cols * cell, y + r * cell); }
    }
    ctx.strokeStyle = "#333"; ctx.lineWidth = 1.2; ctx.stroke();
    // A game whose moves are named (Nim): under the sticks, the caption in big digits, then a bead
    // per move in a row (see M.board).
    const named = M.named(shape), slot = BOARD / Math.max(3, shape.move_count || 3);
    const capTop = rows * cell, capH = BOARD - rows * cell - slot;
    if (named) {
      ctx.fillStyle = "#222"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      ctx.font = `bold ${Math.round(Math.min(capH * 0.62, 34))}px system-ui, sans-serif`;
      for (const t of items) ctx.fillText(t.box.caption.split(" ")[0], t.x + PAD_X + BOARD / 2, t.y + PAD_Y + capTop + capH / 2);
    }
    // the pieces, as the labels and plots draw them (M.drawPieces); a piece a capture's bead sits on
    // is drawn small in its cell's corner, so that the bead shows
    const placed = [], small = [];
    for (const t of items) {
      const cells = t.box.cells;
      const targets = new Set(t.box.beads.map((b) => b.to));
      for (let i = 0; i < cells.length; i++) {
        const v = cells[i]; if (!v) continue;
        const cx = t.x + PAD_X + (i % cols + 0.5) * cell, cy = t.y + PAD_Y + (Math.floor(i / cols) + 0.5) * cell;
        if (targets.has(i) && !named) small.push([v, cx - cell * 0.32, cy - cell * 0.32]);
        else placed.push([v, cx, cy]);
      }
    }
    M.drawPieces(ctx, shape, placed, cell);
    M.drawPieces(ctx, shape, small, cell * 0.4);
    // beads: arrows (pieces that move), then dots grouped by colour, then letters and counts
    const dots = new Map(), arrows = new Map(), outline = new Path2D(), none = new Path2D(), letters = [];
    for (const t of items) {
      const x = t.x + PAD_X, y = t.y + PAD_Y;
      let most = 1;
      for (const b of t.box.beads) if (b.count > most) most = b.count;
      const sharing = new Map();  // pieces that move: several moves may end on one cell
      for (const b of t.box.beads) sharing.set(b.to, (sharing.get(b.to) || 0) + 1);
      const placed = new Map();
      for (const b of t.box.beads) {
        let cx = x + (b.to % cols + 0.5) * cell;
        let cy = y + (Math.floor(b.to / cols) + 0.5) * cell;
        const k = named ? 1 : sharing.get(b.to), at = placed.get(b.to) || 0;
        placed.set(b.to, at + 1);
        let biggest = full, bottom = y + (Math.floor(b.to / cols) + 1) * cell - 1;
        if (named) { cx = x + (b.bead + 0.5) * slot; cy = y + BOARD - slot * 0.62 + dy; biggest = slot * 0.3; bottom = y + BOARD - 1; }
        if (k > 1) { cx += (at - (k - 1) / 2) * (cell / k); biggest = Math.min(full, cell / k / 2 - 1); }
        if (b.from !== null && b.from !== undefined && !named) {
          if (!arrows.has(b.hex)) arrows.set(b.hex, new Path2D());
          arrows.get(b.hex).moveTo(x + (b.from % cols + 0.5) * cell, y + (Math.floor(b.from / cols) + 0.5) * cell);
          arrows.get(b.hex).lineTo(cx, cy);
        }
        const least = Math.min(full * 0.62, biggest);
        if (b.count > 0) {
          const rad = Math.max(biggest * Math.sqrt(b.count / most), least);
          if (!dots.has(b.hex)) dots.set(b.hex, new Path2D());
          dots.get(b.hex).moveTo(cx + rad, cy - dy); dots.get(b.hex).arc(cx, cy - dy, rad, 0, Math.PI * 2);
          outline.moveTo(cx + rad, cy - dy); outline.arc(cx, cy - dy, rad, 0, Math.PI * 2);
        } else {
          none.moveTo(cx + least, cy - dy); none.arc(cx, cy - dy, least, 0, Math.PI * 2);
        }
        letters.push([b, cx, cy - dy, bottom, (named ? slot : cell / k) - 3]);
      }
    }
    ctx.lineWidth = 3;
    for (const [hex, path] of arrows) { ctx.strokeStyle = hex; ctx.stroke(path); }
    for (const [hex, path] of dots) { ctx.fillStyle = hex; ctx.fill(path); }
    ctx.lineWidth = 1; ctx.strokeStyle = "#222"; ctx.stroke(outline);
    ctx.fillStyle = "#fff"; ctx.fill(none); ctx.setLineDash([3, 2]); ctx.strokeStyle = "#666"; ctx.stroke(none); ctx.setLineDash([]);
    const letterCell = named ? slot : cell;  // the letters and counts as big as the dots they sit on
    ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.font = `bold ${Math.round(letterCell * 0.3)}px system-ui, sans-serif`;
    for (const [b, cx, dot] of letters) { ctx.fillStyle = b.count > 0 ? M.textOn(b) : "#555"; ctx.fillText(b.letter, cx, dot + 0.5); }
    // each count under its dot, within its own share of the cell: shortened (925k, 2.93M) when the
    // digits would run into the next count, and smaller still if need be
    const countFont = Math.round(letterCell * 0.27);
    ctx.textBaseline = "alphabetic"; ctx.font = `bold ${countFont}px system-ui, sans-serif`; ctx.fillStyle = "#111";
    const measure = (text) => ctx.measureText(text).width;
    for (const [b, cx, , bottom, room] of letters) {
      const text = data.odds ? `${b.count}%` : M.fitCount(b.count, room, measure), w = measure(text);
      if (w > room) {
        ctx.font = `bold ${Math.max(6, Math.floor(countFont * room / w))}px system-ui, sans-serif`;
        ctx.fillText(text, cx, bottom);
        ctx.font = `bold ${countFont}px system-ui, sans-serif`;
      } else ctx.fillText(text, cx, bottom);
    }
  }

  function redrawBox(number) {
    const w = where.get(number); if (!w) return;
    const g = w.group, chunk = g.chunks[Math.floor(w.index / (g.cols * CHUNK_ROWS))];
    if (!chunk || !chunk.drawn) return;  // drawn with the new beads when it scrolls near
    const t = tile(g, chunk, w.index);
    const ctx = chunk.canvas.getContext("2d");
    ctx.setTransform(DPR * S, 0, 0, DPR * S, 0, 0);
    ctx.fillStyle = BG; ctx.fillRect(t.x, t.y, TILE_W, TILE_H);
    drawTiles(ctx, [t]);
  }

  function boxAt(g, chunk, e) {
    const r = chunk.canvas.getBoundingClientRect();
    const c = Math.floor((e.clientX - r.left) / (TILE_W * S)), row = Math.floor((e.clientY - r.top) / (TILE_H * S));
    if (c >= g.cols || row >= chunk.rows) return null;
    return g.boxes[chunk.first + row * g.cols + c] || null;
  }

  async function pick(g, chunk, e) {
    const b = boxAt(g, chunk, e); if (!b) return;
    await openBox(b);
  }

  // By keyboard (or for a box far down the wall): open a box by its number.
  document.getElementById("open-box").addEventListener("submit", (e) => {
    e.preventDefault();
    const n = Number(document.getElementById("open-box-number").value);
    const b = data && data.boxes[n - 1];
    if (!b) { M.flash(data ? `No box ${n}: the boxes are numbered 1 to ${data.boxes.length}.` : "The wall is still loading."); return; }
    M.flash(""); openBox(b);
  });

  async function openBox(b) {
    const dlg = document.getElementById("box-detail");
    document.getElementById("detail-title").textContent = `Box ${b.number} · MENACE's move ${b.move} (${b.side} to play)`;
    const drawing = document.getElementById("detail-drawing");
    drawing.replaceChildren(M.board(data.shape, b.cells, b.beads, { size: 220, caption: b.caption, label: `box ${b.number}` }),
      M.el("ul", { class: "bead-list" }, ...b.beads.map((x) => M.el("li", {}, M.el("span", { class: "swatch", style: `background:${x.hex};color:${M.textOn(x)}`, text: x.letter }),
        data.odds ? ` ${x.colour_name} → ${x.name}: chance ${x.count}% (started at ${x.initial}%)`
          : ` ${x.colour_name} → ${x.name}: ${M.fmt(x.count)} (started with ${x.initial})`))));
    document.getElementById("recount-form").hidden = !!data.odds;  // a machine that keeps odds has no beads
    if (!data.odds) showRecount(b);
    document.getElementById("detail-caption").textContent = "Loading its history…";
    if (!dlg.open) dlg.showModal();
    try {
      const s = await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes/${b.number}/series?points=400`);
      detailChart.set(beadChartData(s));
      document.getElementById("detail-caption").textContent = `Its ${s.odds ? "chances" : "beads"} over ${M.count(s.games_played, "game")}, replayed from the history.`;
    } catch (err) { document.getElementById("detail-caption").textContent = err.message; }
  }

  // The festival console's recount: the operator counts a real box and corrects the twin.
  function showRecount(b) {
    const form = document.getElementById("recount-form"), out = document.getElementById("recount-result");
    out.textContent = ""; out.className = "muted";
    document.getElementById("recount-box").textContent = String(b.number);
    const fields = document.getElementById("recount-fields");
    fields.replaceChildren(...b.beads.map((x) => M.el("label", { class: "recount-bead" },
      M.el("span", { class: "swatch", style: `background:${x.hex};color:${M.textOn(x)}`, text: x.letter }),
      ` ${x.colour_name} (${x.name})`,
      // as wide as the count it holds (a twin trained overnight holds millions), at least a real box's
      M.el("input", { type: "number", min: "0", max: "1000000", step: "1", required: true, inputmode: "numeric",
        style: `--digits:${Math.max(7, String(x.count).length)}`, name: `bead-${x.bead}`, "data-bead": x.bead, value: String(x.count), "aria-label": `${x.colour_name} beads counted` }))));
    form.onsubmit = async (e) => {
      e.preventDefault();
      const counts = [...fields.querySelectorAll("input")].map((i) => ({ bead: Number(i.dataset.bead), count: Number(i.value) }));
      try {
        const r = await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes/${b.number}/reconcile`, { json: { counts } });
        applyBeads(r);
        out.className = "flash ok";
        out.textContent = r.changes.length
          ? `Box ${b.number} corrected: ` + r.changes.map((c) => `${b.beads.find((x) => x.bead === c.bead).letter} ${c.before} → ${c.after}`).join(", ") + ". Recorded in the history."
          : `Box ${b.number} already matched the count: nothing changed.`;
      } catch (err) { out.className = "flash error"; out.textContent = err.message; }
    };
  }

  // A box recounted (by this page or another): its beads as the server now holds them.
  function applyBeads(ev) {
    if (!data || (ev.machine && ev.machine !== M.machine)) return;
    const b = data.boxes[ev.box - 1]; if (!b) return;
    for (const [bead, count] of ev.beads) { const x = b.beads.find((y) => y.bead === bead); if (x) x.count = count; }
    b.total = b.beads.reduce((t, x) => t + x.count, 0); b.empty = b.total === 0;
    redrawBox(b.number); say();
  }

  // At most one refetch in flight: events that come meanwhile (a tournament sends several a second)
  // ask for one more after it, never a new request that would make the one in flight stale. On a
  // busy machine an answer can take longer than the events' interval; it is drawn all the same.
  const REFETCH_MS = 800;
  let refetching = false, refetchAgain = false;
  function scheduleRefetch() {
    if (refetching) { refetchAgain = true; return; }
    if (refetchTimer) return;
    const wait = Math.max(0, REFETCH_MS - (performance.now() - lastFetch));
    refetchTimer = setTimeout(refetch, wait);
  }

  async function refetch() {
    refetchTimer = null;
    if (loading) { refetchAfterLoad = true; return; }
    if (!data) return;
    refetching = true;
    lastFetch = performance.now();
    try {
      const mine = ++fetches;
      const fresh = expand(await M.api(`/machines/${encodeURIComponent(M.machine)}/boxes`));
      if (mine !== fetches) return;  // a whole load (another machine) started meanwhile draws
      if (fresh.boxes.length !== data.boxes.length) { data = fresh; layout(); return; }
      const changed = [];
      fresh.boxes.forEach((b, i) => { if (JSON.stringify(b.beads) !== JSON.stringify(data.boxes[i].beads)) changed.push(b.number); });
      data = fresh;
      for (const g of groups) g.boxes = g.boxes.map((b) => data.boxes[b.number - 1]);
      changed.forEach(redrawBox); say();
      wallEl.dataset.games = String(data.games_played);
    } catch (err) { M.flash(err.message); }
    finally {
      refetching = false;
      if (refetchAgain) { refetchAgain = false; scheduleRefetch(); }
    }
  }

  // A finished game: change the boxes of its ledger at once, no round trip.
  function applyLedger(end) {
    if (!data || end.machine !== M.machine) return;
    if (data.odds) { scheduleRefetch(); return; }  // a ledger holds weights: the server gives the chances
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
      const chunk = w && w.group.chunks[Math.floor(w.index / (w.group.cols * CHUNK_ROWS))];
      if (chunk) chunk.canvas.scrollIntoView({ block: "nearest", behavior: "smooth" });
    }
  }

  // For tests and the benchmark: a box as the wall holds it now.
  window.menaceWallBox = (n) => (data ? data.boxes[n - 1] : null);
  let width = 0, trainGames = 0;
  new ResizeObserver(() => { if (data && wallEl.clientWidth !== width) { width = wallEl.clientWidth; drawAll(); } }).observe(wallEl);
  const source = M.events({
    // a tournament's state: refetch once games have been stored since the last one (its first
    // state, before any game, has nothing new), and at its end
    train: (s) => {
      if (s.machine !== M.machine || (s.running && s.games === trainGames)) return;
      trainGames = s.games; scheduleRefetch();
    },
    wall: (w) => { if (w.machine === M.machine) scheduleRefetch(); },  // beads changed (a game undone)
    turn: onTurn,
    end: applyLedger,
    beads: applyBeads,
    machine: (m) => { if (m.machine !== M.machine) { M.setMachine(m.machine); load().catch((e) => M.flash(e.message)); } },
  });
  source.addEventListener("open", () => { wallEl.dataset.live = "1"; });
  load().catch((err) => { summary.textContent = err.message; M.flash(err.message); });
})();
