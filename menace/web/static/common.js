// Shared by every page: the API with the access token, events, and board drawings.
"use strict";

const M = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const DARK = new Set(["#000000", "#0072b2", "#009e73", "#d55e00"]);
  const body = document.body;
  let machine = body.dataset.machine;

  function token() { return sessionStorage.getItem("menace-token") || ""; }

  async function api(path, opts = {}) {
    const headers = Object.assign({}, opts.headers || {});
    if (token()) headers["X-Menace-Token"] = token();
    let bodyData = opts.body;
    if (opts.json !== undefined) {
      headers["Content-Type"] = "application/json";
      bodyData = JSON.stringify(opts.json);
    }
    const res = await fetch("/api" + path, { method: opts.method || (bodyData !== undefined ? "POST" : "GET"), headers, body: bodyData });
    const type = res.headers.get("content-type") || "";
    const data = type.includes("json") ? await res.json() : await res.text();
    if (!res.ok) {
      const err = new Error((data && data.error) || ("HTTP " + res.status));
      err.status = res.status;
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

  function textOn(hex) { return DARK.has(hex.toLowerCase()) ? "#ffffff" : "#111111"; }
  const NUMBER = new Intl.NumberFormat("en-GB");
  function fmt(n) { return n < 1000 && n > -1000 && Number.isInteger(n) ? String(n) : NUMBER.format(n); }

  // One board as SVG, from game-generic data: shape {rows, cols, glyphs}, cells (one value per
  // cell), beads [{to, from, letter, hex, count}] and options {size, clickable, highlight, drawn}.
  function board(shape, cells, beads = [], opts = {}) {
    const size = opts.size || 240;
    const rows = shape.rows, cols = shape.cols;
    const cell = size / Math.max(rows, cols);
    const w = cols * cell, h = rows * cell;
    const svg = el("svg:svg", { viewBox: `-4 -4 ${w + 8} ${h + 8}`, width: w + 8, height: h + 8, class: "board", role: "img",
      "aria-label": opts.label || "board" });
    svg.append(el("svg:rect", { x: 0, y: 0, width: w, height: h, class: "board-bg", rx: 6 }));
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const g = el("svg:g", { class: "cell", "data-cell": i });
      g.append(el("svg:rect", { x: c * cell, y: r * cell, width: cell, height: cell, class: "cell-bg" + (opts.highlight === i ? " hl" : "") }));
      const v = cells[i];
      if (v) {
        const glyph = shape.glyphs[v] || "?";
        if (glyph === "X") {
          const p = cell * 0.24, x0 = c * cell + p, y0 = r * cell + p, x1 = (c + 1) * cell - p, y1 = (r + 1) * cell - p;
          g.append(el("svg:path", { d: `M${x0} ${y0}L${x1} ${y1}M${x1} ${y0}L${x0} ${y1}`, class: "mark-x", "stroke-width": cell * 0.1 }));
        } else if (glyph === "O") {
          g.append(el("svg:circle", { cx: (c + 0.5) * cell, cy: (r + 0.5) * cell, r: cell * 0.28, class: "mark-o", "stroke-width": cell * 0.1 }));
        } else {
          g.append(el("svg:text", { x: (c + 0.5) * cell, y: (r + 0.5) * cell, class: "glyph", "font-size": cell * 0.55, text: glyph }));
        }
      }
      if (opts.clickable && !v) { g.classList.add("clickable"); g.setAttribute("tabindex", "0"); }
      svg.append(g);
    }
    const grid = el("svg:path", { class: "grid", d: gridPath(rows, cols, cell) });
    svg.append(grid);
    for (const b of beads) {
      const r = Math.floor(b.to / cols), c = b.to % cols;
      const cx = (c + 0.5) * cell, cy = (r + 0.5) * cell;
      const gb = el("svg:g", { class: "bead" + (b.count === 0 ? " none" : "") + (opts.drawn === b.bead ? " drawn" : ""), "data-bead": b.bead });
      if (b.from !== null && b.from !== undefined) {
        const fr = Math.floor(b.from / cols), fc = b.from % cols;
        gb.append(el("svg:line", { x1: (fc + 0.5) * cell, y1: (fr + 0.5) * cell, x2: cx, y2: cy, stroke: b.hex, "stroke-width": cell * 0.08, class: "arrow" }));
      }
      const rad = cell * 0.3;
      gb.append(el("svg:circle", { cx, cy, r: rad, fill: b.count === 0 ? "none" : b.hex, stroke: b.count === 0 ? "#8a8a8a" : "#222", "stroke-width": 2, "stroke-dasharray": b.count === 0 ? "4 3" : null }));
      gb.append(el("svg:text", { x: cx, y: cy - (opts.counts === false ? 0 : rad * 0.18), class: "bead-letter", "font-size": rad * 0.9, fill: b.count === 0 ? "#777" : textOn(b.hex), text: b.letter }));
      if (opts.counts !== false) gb.append(el("svg:text", { x: cx, y: cy + rad * 0.62, class: "bead-count", "font-size": rad * (String(b.count).length > 3 ? 0.45 : 0.6), fill: b.count === 0 ? "#777" : textOn(b.hex), text: fmt(b.count) + (opts.unit || "") }));
      gb.append(el("svg:title", { text: opts.unit ? `${b.name}: ${fmt(b.count)}${opts.unit} chance` : `${b.colour_name} (${b.letter}) → ${b.name}: ${fmt(b.count)} bead${b.count === 1 ? "" : "s"}` }));
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
    for (let i = 0; i < box.cells.length; i++) {
      const v = box.cells[i]; if (!v) continue;
      const r = Math.floor(i / cols), c = i % cols, cx = x + (c + 0.5) * cell, cy = y + (r + 0.5) * cell, p = cell * 0.27;
      const glyph = shape.glyphs[v];
      ctx.lineWidth = 2; ctx.strokeStyle = "#333";
      if (glyph === "X") { ctx.beginPath(); ctx.moveTo(cx - p, cy - p); ctx.lineTo(cx + p, cy + p); ctx.moveTo(cx + p, cy - p); ctx.lineTo(cx - p, cy + p); ctx.stroke(); }
      else if (glyph === "O") { ctx.beginPath(); ctx.arc(cx, cy, p, 0, Math.PI * 2); ctx.stroke(); }
      else { ctx.fillStyle = "#333"; setFont(ctx, `bold ${cell * 0.5}px system-ui, sans-serif`); ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.fillText(glyph, cx, cy); }
    }
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
        ctx.fillStyle = textOn(b.hex);
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
      ctx.fillText(fmt(b.count), cx, y + (r + 1) * cell - 1);
    }
  }

  function initToken() {
    const form = document.getElementById("token-form");
    if (!form) return;
    const input = document.getElementById("token-input");
    const state = document.getElementById("token-state");
    input.value = token();
    const show = () => { state.textContent = token() ? "✓" : "(watching only)"; };
    input.addEventListener("change", () => { sessionStorage.setItem("menace-token", input.value.trim()); show(); });
    form.addEventListener("submit", (e) => { e.preventDefault(); sessionStorage.setItem("menace-token", input.value.trim()); show(); });
    show();
  }

  function setMachine(name) {
    machine = name;
    const badge = document.getElementById("machine-name");
    if (badge) badge.textContent = name;
  }

  initToken();
  return {
    api, newest, flash, events, el, board, drawBox, fmt, textOn, token, setMachine,
    get machine() { return machine; },
  };
})();
