// Shared by every page: the API with the access token, events, and board drawings.
"use strict";

const M = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const body = document.body;
  // A page may be opened for one machine (a group's: /play?machine=group-2); else the one shown.
  // A name is checked by the server's rule, handed to every page (data-name-pattern).
  const NAME = new RegExp("^(?:" + body.dataset.namePattern + ")$");
  const asked = new URLSearchParams(location.search).get("machine");
  let machine = asked && NAME.test(asked) ? asked : body.dataset.machine;
  if (machine !== body.dataset.machine) { const b = document.getElementById("machine-name"); if (b) b.textContent = machine; }

  // A token is URL-safe (letters, digits, - and _): anything else could never be sent in a header.
  const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;
  function token() { return sessionStorage.getItem("menace-token") || ""; }

  // A write is always JSON (the server refuses anything else, so that no other site's form can
  // pass for one of these pages); with keepalive it still goes out as the page closes.
  async function api(path, opts = {}) {
    const headers = Object.assign({}, opts.headers || {});
    if (token() && TOKEN.test(token())) headers["X-Menace-Token"] = token();
    let bodyData = opts.body;
    const method = opts.method || (bodyData !== undefined || opts.json !== undefined ? "POST" : "GET");
    if (opts.json !== undefined || (method !== "GET" && bodyData === undefined)) {
      headers["Content-Type"] = "application/json";
      bodyData = JSON.stringify(opts.json === undefined ? {} : opts.json);
    }
    const res = await fetch("/api" + path, { method, headers, body: bodyData, keepalive: !!opts.keepalive });
    const type = res.headers.get("content-type") || "";
    const data = type.includes("json") ? await res.json() : await res.text();
    if (!res.ok) {
      const err = new Error((data && data.error) || ("HTTP " + res.status));
      err.status = res.status;
      err.data = data;
      throw err;
    }
    return data;
  }

  // A loader whose answers can come back out of order (a slow request started first): once a newer
  // call has started, an older call's answer is dropped and its failure ignored. Each call resolves
  // to whether it drew.
  function newest(request, draw) {
    let calls = 0;
    return async (...args) => {
      const mine = ++calls;
      let answer;
      try { answer = await request(...args); } catch (err) { if (mine === calls) throw err; return false; }
      if (mine !== calls) return false;
      draw(answer, ...args);
      return true;
    };
  }

  // A loader that keeps one request in flight at a time (a chart followed live on a busy machine):
  // a call made while one is under way asks for one more round once it is back, and every answer
  // is drawn, so a slow server still shows each step instead of each newer request making the
  // older answer stale. `stale(answer)` may still drop an answer the page no longer wants (a
  // zoom changed meanwhile). Each call resolves once an answer newer than the call is drawn.
  function oneAtATime(request, draw, stale = () => false) {
    let running = null, again = false;
    const round = async () => {
      try {
        do {
          again = false;
          const answer = await request();
          if (!stale(answer)) draw(answer);
        } while (again);
      } finally { running = null; }
    };
    return () => {
      if (running) { again = true; return running; }
      running = round();
      return running;
    };
  }

  function flash(message, kind = "error") {
    const el = document.getElementById("flash");
    if (!el) return;
    el.textContent = message;
    el.className = "flash " + kind;
    el.hidden = !message;
  }

  function events(handlers) {
    const source = new EventSource("/api/events");
    for (const [name, fn] of Object.entries(handlers)) {
      source.addEventListener(name, (e) => fn(JSON.parse(e.data)));
    }
    return source;
  }

  function el(tag, attrs = {}, ...children) {
    const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  // The ink (black or white) for text on a bead: the server sends it with every colour (one rule, in
  // menace.core.colours), so that custom colours read as well as the standard ones.
  function textOn(bead) { return (bead && bead.ink) || "#111111"; }
  const NUMBER = new Intl.NumberFormat("en-GB");
  function fmt(n) { return n < 1000 && n > -1000 && Number.isInteger(n) ? String(n) : NUMBER.format(n); }
  // A count and its noun, as the terminal writes them: "1 game", "2,001 games", "1 box", "3 boxes".
  function count(n, word, many) { return `${fmt(n)} ${n === 1 ? word : many || (word.endsWith("x") ? word + "es" : word + "s")}`; }
  // A count in at most five characters where room is short: 9,999, 92.5k, 925k, 2.93M, 1.00bn.
  function short(n) {
    const a = Math.abs(n);
    if (a < 10000) return fmt(n);
    for (const [unit, size] of [["k", 1e3], ["M", 1e6], ["bn", 1e9]]) {
      const v = n / size;
      if (Math.abs(v) < 999.5 || unit === "bn") return (Math.abs(v) < 9.995 ? v.toFixed(2) : Math.abs(v) < 99.95 ? v.toFixed(1) : v.toFixed(0)) + unit;
    }
    return fmt(n);
  }
  // The longest of fmt(n), short(n) that fits `width` pixels as measure(text) says.
  function fitCount(n, width, measure) {
    const full = fmt(n);
    return measure(full) <= width ? full : short(n);
  }

  // One board as SVG, from game-generic data: shape {rows, cols, glyphs, pieces}, cells (one value per
  // cell), beads [{to, from, letter, hex, count}] and options {size, clickable, highlight, drawn}.
  // A game whose moves are named, not drawn on the cells (Nim's "take 2"): the cells (sticks) on top,
  // the caption ("13 sticks") under them, then a row with a bead per move.
  function named(shape) { return shape.moves_on_board === false; }

  // The game's pieces as the server describes them (shape.pieces, from menace/render/pieces.py):
  // each a list of strokes in a cell's units, centred, y down. The labels, the plots and these pages
  // draw the same strokes, so a pawn is one pawn everywhere; nothing here knows a game's letters.
  function strokePoints(s, cx, cy, cell) { return s.points.map(([u, v]) => [cx + u * cell, cy + v * cell]); }
  function pieceSvg(shape, v, cx, cy, cell) {
    const piece = (shape.pieces || {})[v];
    const g = el("svg:g", { class: "piece", "data-piece": piece ? piece.name : "unknown" });
    for (const s of piece ? piece.strokes : []) {
      const style = { fill: s.face || "none", stroke: s.edge, "stroke-width": s.width * cell, "stroke-linecap": s.kind === "line" ? "round" : "butt" };
      const pts = strokePoints(s, cx, cy, cell);
      if (s.kind === "circle") g.append(el("svg:circle", { cx: pts[0][0], cy: pts[0][1], r: s.radius * cell, ...style }));
      else g.append(el("svg:path", { d: "M" + pts.map((p) => p.join(" ")).join("L") + (s.kind === "polygon" ? "Z" : ""), ...style }));
    }
    return g;
  }
  // Many pieces on a canvas, [value, cx, cy] each, `cell` pixels a cell: one path per part of each
  // kind of piece (every pawn's body, then every head), so a wall of 2,201 boxes stays quick.
  function drawPieces(ctx, shape, placed, cell) {
    const parts = new Map();
    for (const [v, cx, cy] of placed) {
      const piece = (shape.pieces || {})[v]; if (!piece) continue;
      piece.strokes.forEach((s, k) => {
        const key = `${v}:${k}`;
        if (!parts.has(key)) parts.set(key, [s, new Path2D()]);
        const path = parts.get(key)[1], pts = strokePoints(s, cx, cy, cell);
        if (s.kind === "circle") { path.moveTo(pts[0][0] + s.radius * cell, pts[0][1]); path.arc(pts[0][0], pts[0][1], s.radius * cell, 0, Math.PI * 2); }
        else { path.moveTo(...pts[0]); for (const p of pts.slice(1)) path.lineTo(...p); if (s.kind === "polygon") path.closePath(); }
      });
    }
    for (const [s, path] of parts.values()) {
      if (s.face) { ctx.fillStyle = s.face; ctx.fill(path); }
      ctx.lineWidth = Math.max(1, s.width * cell); ctx.strokeStyle = s.edge; ctx.lineCap = s.kind === "line" ? "round" : "butt";
      ctx.stroke(path);
    }
    ctx.lineCap = "butt";
  }

  function board(shape, cells, beads = [], opts = {}) {
    const size = opts.size || 240;
    const rows = shape.rows, cols = shape.cols;
    const cell = size / Math.max(rows, cols);
    const w = cols * cell, sticksH = rows * cell;
    const caption = opts.caption || "";
    const capH = caption ? size * 0.2 : 0, slot = named(shape) ? w / Math.max(3, shape.move_count) : 0;
    const beadH = named(shape) && beads.length ? slot : 0;
    const h = sticksH + capH + beadH;
    const svg = el("svg:svg", { viewBox: `-4 -4 ${w + 8} ${h + 8}`, width: w + 8, height: h + 8, class: "board", role: "img",
      "aria-label": opts.label || "board" });
    svg.append(el("svg:rect", { x: 0, y: 0, width: w, height: h, class: "board-bg", rx: 6 }));
    if (caption) svg.append(el("svg:text", { x: w / 2, y: sticksH + capH * 0.55, class: "caption", "font-size": capH * 0.62, text: caption }));
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const g = el("svg:g", { class: "cell", "data-cell": i });
      g.append(el("svg:rect", { x: c * cell, y: r * cell, width: cell, height: cell, class: "cell-bg" + (opts.highlight === i ? " hl" : "") }));
      const v = cells[i];
      if (v) {
        g.append(pieceSvg(shape, v, (c + 0.5) * cell, (r + 0.5) * cell, cell));
      }
      if (opts.clickable && !v && !named(shape)) { g.classList.add("clickable"); g.setAttribute("tabindex", "0"); }
      svg.append(g);
    }
    if (shape.grid !== false) svg.append(el("svg:path", { class: "grid", d: gridPath(rows, cols, cell) }));
    // The winning line: its squares shaded and a stroke drawn through them (seen without colour too).
    const win = opts.win || [];
    for (const i of win) { const bg = svg.querySelector(`.cell[data-cell="${i}"] .cell-bg`); if (bg) bg.classList.add("win"); }
    if (win.length && !named(shape)) {
      const at = (i) => [(i % cols + 0.5) * cell, (Math.floor(i / cols) + 0.5) * cell];
      const [x1, y1] = at(win[0]), [x2, y2] = at(win[win.length - 1]);
      if (win.length > 1) svg.append(el("svg:line", { x1, y1, x2, y2, class: "win-line", "stroke-width": cell * 0.12 }));
      else svg.append(el("svg:circle", { cx: x1, cy: y1, r: cell * 0.44, class: "win-ring", "stroke-width": cell * 0.08 }));
      svg.dataset.win = win.join(",");
    }
    // Several beads may aim at one square (Hexapawn: a pawn's move and a capture): side by side,
    // smaller, never on top of each other.
    const sharing = new Map(), placed = new Map();
    for (const b of beads) sharing.set(b.to, (sharing.get(b.to) || 0) + 1);
    for (const b of beads) {
      let cx, cy, rad;
      if (named(shape)) { cx = (b.bead + 0.5) * slot; cy = sticksH + capH + slot / 2; rad = slot * 0.3; }
      else {
        const r = Math.floor(b.to / cols), c = b.to % cols, k = sharing.get(b.to), at = placed.get(b.to) || 0;
        placed.set(b.to, at + 1);
        cx = (c + 0.5) * cell + (k > 1 ? (at - (k - 1) / 2) * (cell / k) : 0); cy = (r + 0.5) * cell;
        // room for the drawn bead's ring (6 wide) as it pulses (12% larger) inside its own cell
        rad = k > 1 ? Math.min(cell * 0.3, (cell / k) / 2 / 1.12 - 4) : cell * 0.3;
      }
      const gb = el("svg:g", { class: "bead" + (b.count === 0 ? " none" : "") + (opts.drawn === b.bead ? " drawn" : ""), "data-bead": b.bead });
      if (b.from !== null && b.from !== undefined && !named(shape)) {
        const fr = Math.floor(b.from / cols), fc = b.from % cols;
        gb.append(el("svg:line", { x1: (fc + 0.5) * cell, y1: (fr + 0.5) * cell, x2: cx, y2: cy, stroke: b.hex, "stroke-width": cell * 0.08, class: "arrow" }));
      }
      gb.append(el("svg:circle", { cx, cy, r: rad, fill: b.count === 0 ? "none" : b.hex, stroke: b.count === 0 ? "#8a8a8a" : "#222", "stroke-width": 2, "stroke-dasharray": b.count === 0 ? "4 3" : null }));
      gb.append(el("svg:text", { x: cx, y: cy - (opts.counts === false ? 0 : rad * 0.3), class: "bead-letter", "font-size": rad * (opts.counts === false ? 0.9 : 0.78), fill: b.count === 0 ? "#777" : textOn(b), text: b.letter }));
      if (opts.counts !== false) {
        // the count inside the dot, whole: shortened (925k, 2.93M) when the digits would not fit
        const room = rad * 1.6, text = b.percent ? `${b.count}%` : fitCount(b.count, room, (t) => t.length * rad * 0.45 * 0.62);
        const size = Math.min(rad * 0.5, room / (text.length * 0.62));
        gb.append(el("svg:text", { x: cx, y: cy + rad * 0.5, class: "bead-count", "font-size": size, fill: b.count === 0 ? "#777" : textOn(b), text }));
      }
      gb.append(el("svg:title", { text: b.percent ? `${b.colour_name} (${b.letter}) → ${b.name}: chance ${b.count}%`
        : `${b.colour_name} (${b.letter}) → ${b.name}: ${fmt(b.count)} bead${b.count === 1 ? "" : "s"}` }));
      svg.append(gb);
    }
    return svg;
  }

  function gridPath(rows, cols, cell) {
    let d = "";
    for (let c = 1; c < cols; c++) d += `M${c * cell} 0V${rows * cell}`;
    for (let r = 1; r < rows; r++) d += `M0 ${r * cell}H${cols * cell}`;
    return d;
  }

  // A box drawn on a canvas (the wall): grid, marks, a dot per bead with its letter and count.
  // Fonts are set only when they change: setting one costs more than drawing the text.
  function setFont(ctx, font) { if (ctx.__font !== font) { ctx.font = font; ctx.__font = font; } }
  function drawBox(ctx, x, y, size, box, shape, opts = {}) {
    const rows = shape.rows, cols = shape.cols, cell = size / Math.max(rows, cols);
    ctx.strokeStyle = "#333"; ctx.lineWidth = 1.2;
    ctx.beginPath();
    for (let c = 1; c < cols; c++) { ctx.moveTo(x + c * cell, y); ctx.lineTo(x + c * cell, y + rows * cell); }
    for (let r = 1; r < rows; r++) { ctx.moveTo(x, y + r * cell); ctx.lineTo(x + cols * cell, y + r * cell); }
    ctx.stroke();
    const placed = [];
    for (let i = 0; i < box.cells.length; i++) if (box.cells[i]) placed.push([box.cells[i], x + (i % cols + 0.5) * cell, y + (Math.floor(i / cols) + 0.5) * cell]);
    drawPieces(ctx, shape, placed, cell);
    const most = Math.max(1, ...box.beads.map((b) => b.count));
    for (const b of box.beads) {
      const r = Math.floor(b.to / cols), c = b.to % cols, cx = x + (c + 0.5) * cell, cy = y + (r + 0.5) * cell;
      if (b.from !== null && b.from !== undefined) {
        const fr = Math.floor(b.from / cols), fc = b.from % cols;
        ctx.strokeStyle = b.hex; ctx.lineWidth = 2; ctx.beginPath(); ctx.moveTo(x + (fc + 0.5) * cell, y + (fr + 0.5) * cell); ctx.lineTo(cx, cy); ctx.stroke();
      }
      const full = cell * 0.33, dy = cell * 0.12;
      if (b.count > 0) {
        const rad = Math.max(full * Math.sqrt(b.count / most), full * 0.62);
        ctx.beginPath(); ctx.arc(cx, cy - dy, rad, 0, Math.PI * 2);
        ctx.fillStyle = b.hex; ctx.fill(); ctx.lineWidth = 1; ctx.strokeStyle = "#222"; ctx.stroke();
        ctx.fillStyle = textOn(b);
      } else {
        ctx.beginPath(); ctx.setLineDash([3, 2]); ctx.arc(cx, cy - dy, full * 0.62, 0, Math.PI * 2);
        ctx.strokeStyle = "#999"; ctx.lineWidth = 1; ctx.stroke(); ctx.setLineDash([]);
        ctx.fillStyle = "#888";
      }
      ctx.textAlign = "center"; ctx.textBaseline = "middle";
      setFont(ctx, `bold ${Math.round(cell * 0.3)}px system-ui, sans-serif`);
      ctx.fillText(b.letter, cx, cy - dy + 0.5);
      ctx.fillStyle = "#222";
      setFont(ctx, `${Math.round(cell * 0.27)}px system-ui, sans-serif`);
      ctx.textBaseline = "alphabetic";
      ctx.fillText(b.percent ? `${b.count}%` : fmt(b.count), cx, y + (r + 1) * cell - 1);
    }
  }

  // The token field says what the token entered lets this visitor do, as the server sees it: a
  // wrong token is named wrong (not a tick and a refusal later). A link may carry the token in its
  // fragment (#token=...), which no browser sends to a server; it is kept for this tab and wiped
  // from the address bar.
  const ROLE_TEXT = {
    // the admin's powers are the server's list (every one, "stop a game" included)
    admin: (powers) => `✓ admin token: everything (${powers.join(", ")})`,
    play: "✓ play token: play and watch",
    watch: "watching only: enter a token to play",
    loopback: (powers) => `✓ this computer: everything (${powers.join(", ")}), no token needed`,
    open: "",
  };
  function takeTokenFromLink() {
    const m = /^#token=([^&]*)/.exec(location.hash);
    if (!m) return;
    let given = m[1];
    try { given = decodeURIComponent(given); } catch (err) { /* kept as written: checkToken names it */ }
    sessionStorage.setItem("menace-token", given);
    history.replaceState(null, "", location.pathname + location.search);
  }
  // Enter checks a token twice (the form's submit, the field's change) and a person may type faster
  // than the server answers: only the newest check may say what the field holds.
  let tokenChecks = 0;
  async function checkToken() {
    const state = document.getElementById("token-state");
    if (!state) return;
    const given = token();
    const mine = ++tokenChecks;
    const show = (role, text) => { if (mine !== tokenChecks) return; state.dataset.role = role; state.textContent = text; state.className = role === "wrong" || role === "invalid" ? "bad" : ""; };
    if (given && !TOKEN.test(given)) { show("invalid", "✗ not a token: a token is letters, digits, - and _"); return; }
    const answered = () => { state.dataset.answered = String(Number(state.dataset.answered || 0) + 1); };
    state.dataset.asked = String(Number(state.dataset.asked || 0) + 1);
    try {
      const a = await api("/access");
      answered();
      const text = (key) => (typeof ROLE_TEXT[key] === "function" ? ROLE_TEXT[key](a.powers || []) : ROLE_TEXT[key]);
      if (a.token === "loopback") show("admin", text("loopback"));
      else show(a.role, text(a.role));
    } catch (err) {
      answered();
      if (err.status === 429) show("wrong", "✗ " + err.message);
      else if (err.status === 403) show("wrong", "✗ wrong token: check it against the one the teacher gave out");
      else show("unknown", "");
    }
  }
  function initToken() {
    takeTokenFromLink();
    const form = document.getElementById("token-form");
    if (!form) return;
    const input = document.getElementById("token-input");
    input.value = token();
    const save = () => { sessionStorage.setItem("menace-token", input.value.trim()); checkToken(); };
    input.addEventListener("change", save);
    form.addEventListener("submit", (e) => { e.preventDefault(); save(); });
    window.addEventListener("hashchange", () => {
      if (!location.hash.startsWith("#token=")) return;
      takeTokenFromLink(); input.value = token(); checkToken();
    });
    checkToken();
  }

  function setMachine(name) {
    machine = name;
    const badge = document.getElementById("machine-name");
    if (badge) badge.textContent = name;
  }

  // A destructive request the server refused until confirmed (409 with what it would lose): ask
  // the person, saying what will be lost, and send it again confirmed, or resolve to null.
  async function confirmed(send, describe) {
    try { return await send(false); } catch (err) {
      if (!(err.status === 409 && err.data && err.data.loses)) throw err;
      if (!window.confirm(describe(err.data.loses))) return null;
      return await send(true);
    }
  }

  initToken();
  return {
    api, newest, oneAtATime, flash, events, el, board, named, drawBox, pieceSvg, drawPieces, fmt, count, short, fitCount, textOn, token, setMachine, confirmed,
    get machine() { return machine; },
  };
})();
