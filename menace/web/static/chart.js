// A small line chart on a canvas: stacked panels sharing the x axis, hover read-out, drag to zoom.
"use strict";

class Chart {
  // panels: [{label, series: [{name, colour, ys, dash}], percent, zero}], xs shared by all series.
  constructor(canvas, opts = {}) {
    this.canvas = canvas;
    this.opts = opts;
    this.data = null;
    this.hover = null;
    this.drag = null;
    canvas.addEventListener("mousemove", (e) => this.onMove(e));
    canvas.addEventListener("mouseleave", () => { this.hover = null; this.draw(); });
    canvas.addEventListener("mousedown", (e) => { const p = this.pos(e); if (this.inPlot(p)) this.drag = { x0: p.x, x1: p.x }; });
    window.addEventListener("mouseup", () => this.endDrag());
    canvas.addEventListener("dblclick", () => { if (this.opts.onReset) this.opts.onReset(); });
    new ResizeObserver(() => this.draw()).observe(canvas);
  }

  set(data) { this.data = data; this.draw(); }

  pos(e) { const r = this.canvas.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; }
  inPlot(p) { return p.x >= this.left && p.x <= this.left + this.plotW; }

  onMove(e) {
    const p = this.pos(e);
    if (this.drag) this.drag.x1 = p.x;
    this.hover = this.inPlot(p) ? p.x : null;
    this.draw();
  }

  endDrag() {
    if (!this.drag) return;
    const d = this.drag; this.drag = null;
    if (Math.abs(d.x1 - d.x0) > 8 && this.opts.onZoom && this.data) {
      const a = this.xAt(Math.min(d.x0, d.x1)), b = this.xAt(Math.max(d.x0, d.x1));
      this.opts.onZoom(Math.max(1, Math.floor(a)), Math.ceil(b));
    }
    this.draw();
  }

  xAt(px) { const [x0, x1] = this.xRange; return x0 + (px - this.left) / this.plotW * (x1 - x0); }

  draw() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    if (!c.getClientRects().length) return;  // not shown (a closed dialog): drawn when it is
    const w = c.clientWidth || 600, h = c.clientHeight || Number(c.getAttribute("height")) || 300;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const d = this.data;
    // Text size: 13 px, or what the page asks for (the audience view, read from the back of a hall).
    const fs = typeof this.opts.fontSize === "function" ? this.opts.fontSize() : this.opts.fontSize || 13, k = fs / 13;
    const font = `${fs}px system-ui, sans-serif`, bold = `bold ${fs}px system-ui, sans-serif`;
    ctx.font = font;
    if (!d || !d.xs.length) {
      ctx.fillStyle = "#666"; ctx.textAlign = "center"; ctx.fillText(d && d.empty ? d.empty : "No games yet.", w / 2, h / 2); return;
    }
    const narrow = w < 500;
    // Each panel's value range and tick labels first: the left margin is as wide as the widest
    // tick label plus the axis title beside it, so neither runs into the other.
    const scales = d.panels.map((panel) => {
      let lo = panel.percent ? 0 : Infinity, hi = panel.percent ? 1 : -Infinity;
      if (!panel.percent) for (const s of panel.series) for (const v of s.ys) { if (v < lo) lo = v; if (v > hi) hi = v; }
      if (lo === Infinity) { lo = 0; hi = 1; }
      if (panel.zero) { lo = Math.min(lo, 0); hi = Math.max(hi, 0); }
      if (hi === lo) { hi += 1; lo -= panel.zero ? 0 : 1; }
      const pad = (hi - lo) * 0.05; if (!panel.percent) { hi += pad; if (lo !== 0) lo -= pad; }
      const tk = ticks(lo, hi, 4).map((t) => [t, panel.percent ? Math.round(t * 100) + "%" : compact(t)]);
      return { lo, hi, tk };
    });
    const tickW = Math.max(0, ...scales.flatMap((sc) => sc.tk.map(([, text]) => ctx.measureText(text).width)));
    const titleW = d.panels.some((p) => p.label) ? Math.round(fs * 1.5) : 0;
    this.left = Math.round(titleW + tickW + 12);
    // On a wide chart the series are named at their last values, on the right; on a narrow one
    // in a row above their panel.
    ctx.font = bold;
    const nameW = Math.max(0, ...d.panels.flatMap((p) => p.series.map((s) => ctx.measureText(s.name).width)));
    ctx.font = font;
    const right = narrow ? Math.round(fs * 0.8) : Math.round(nameW + 14);
    const legendH = narrow ? Math.round(fs * 1.5) : 0;
    this.plotW = Math.max(40, w - this.left - right);
    const xs = d.xs;
    this.xRange = [d.xmin ?? xs[0], d.xmax ?? xs[xs.length - 1]];
    if (this.xRange[1] <= this.xRange[0]) this.xRange[1] = this.xRange[0] + 1;
    const X = (x) => this.left + (x - this.xRange[0]) / (this.xRange[1] - this.xRange[0]) * this.plotW;
    const gap = 18 * k + legendH, bottom = 34 * k, top = 8 * k + legendH;
    const totalH = h - bottom - top - gap * (d.panels.length - 1);
    let y0 = top;
    let hoverIdx = null;
    if (this.hover !== null) {
      const gx = this.xAt(this.hover);
      let best = 0; for (let i = 0; i < xs.length; i++) if (Math.abs(xs[i] - gx) < Math.abs(xs[best] - gx)) best = i;
      hoverIdx = best;
    }
    d.panels.forEach((panel, pi) => {
      const ph = totalH * (panel.weight || 1) / d.panels.reduce((s, p) => s + (p.weight || 1), 0);
      const { lo, hi, tk } = scales[pi];
      const Y = (v) => y0 + ph - (v - lo) / (hi - lo) * ph;
      ctx.fillStyle = "#fafafa"; ctx.fillRect(this.left, y0, this.plotW, ph);
      ctx.strokeStyle = "#e2e2e2"; ctx.lineWidth = 1; ctx.fillStyle = "#444"; ctx.textAlign = "right"; ctx.textBaseline = "middle";
      // tick labels kept inside the panel's height (the top one may sit at its very edge)
      for (const [t, text] of tk) {
        const y = Y(t); ctx.beginPath(); ctx.moveTo(this.left, y); ctx.lineTo(this.left + this.plotW, y); ctx.stroke();
        ctx.fillText(text, this.left - 6, Math.min(Math.max(y, y0 + fs / 2), y0 + ph - fs / 2));
      }
      if (panel.label) {
        // A label longer than its panel is tall would run into the next one: the short one, else
        // the short one made smaller.
        let text = narrow || ctx.measureText(panel.label).width > ph - 8 ? panel.short || panel.label : panel.label;
        let size = fs;
        while (size > 9 && ctx.measureText(text).width * size / fs > ph - 4) size -= 1;
        ctx.save(); ctx.translate(titleW / 2 + 2, y0 + ph / 2); ctx.rotate(-Math.PI / 2); ctx.textAlign = "center";
        ctx.fillStyle = "#333"; ctx.font = `${size}px system-ui, sans-serif`; ctx.fillText(text, 0, 0); ctx.restore();
        ctx.font = font;
      }
      if (narrow) {
        // the series' names in a row above the panel, each after a sample of its line
        ctx.font = bold; ctx.textAlign = "left"; ctx.textBaseline = "middle";
        let x = this.left; const y = y0 - legendH / 2 - 2;
        for (const s of panel.series) {
          ctx.strokeStyle = s.colour; ctx.lineWidth = 2.5; ctx.setLineDash(s.dash || []);
          ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + fs * 1.3, y); ctx.stroke(); ctx.setLineDash([]);
          ctx.fillStyle = s.colour; ctx.fillText(s.name, x + fs * 1.6, y);
          x += fs * 2.4 + ctx.measureText(s.name).width;
        }
        ctx.font = font;
      }
      ctx.save(); ctx.beginPath(); ctx.rect(this.left, y0, this.plotW, ph); ctx.clip();
      for (const s of panel.series) {
        ctx.strokeStyle = s.colour; ctx.lineWidth = s.width || 2.5; ctx.setLineDash(s.dash || []);
        ctx.beginPath();
        const sx = s.xs || xs;
        for (let i = 0; i < sx.length; i++) {
          const px = X(sx[i]), py = Y(s.ys[i]);
          if (i === 0) ctx.moveTo(px, py); else if (s.step) { ctx.lineTo(px, Y(s.ys[i - 1])); ctx.lineTo(px, py); } else ctx.lineTo(px, py);
        }
        ctx.stroke(); ctx.setLineDash([]);
        if (s.dots) {
          ctx.fillStyle = s.colour;
          for (let i = 0; i < sx.length; i++) { ctx.beginPath(); ctx.arc(X(sx[i]), Y(s.ys[i]), 3, 0, Math.PI * 2); ctx.fill(); }
        }
      }
      ctx.restore();
      if (!narrow) {
        ctx.textAlign = "left"; ctx.textBaseline = "middle";
        // Each series' name at its last value, apart from the others and inside its panel.
        const labels = panel.series.filter((s) => s.ys.length).map((s) => ({ s, y: Y(s.ys[s.ys.length - 1]) }))
          .sort((a, b) => a.y - b.y);
        const step = fs + 1;
        const top = y0 + fs / 2, bottom = y0 + ph - fs / 2;
        labels.forEach((l, i) => { l.y = Math.max(l.y, top, i ? labels[i - 1].y + step : top); });
        for (let i = labels.length - 1; i >= 0; i--) labels[i].y = Math.min(labels[i].y, i === labels.length - 1 ? bottom : labels[i + 1].y - step);
        ctx.font = bold;
        for (const l of labels) { ctx.fillStyle = l.s.colour; ctx.fillText(l.s.name, this.left + this.plotW + 6, l.y); }
        ctx.font = font;
      }
      if (hoverIdx !== null) {
        const px = X(xs[hoverIdx]);
        ctx.strokeStyle = "#555"; ctx.setLineDash([3, 3]); ctx.beginPath(); ctx.moveTo(px, y0); ctx.lineTo(px, y0 + ph); ctx.stroke(); ctx.setLineDash([]);
        // A series with its own game numbers (rates start once a window of games is full).
        const at = (s) => { if (!s.xs) return hoverIdx; let b = 0; for (let i = 0; i < s.xs.length; i++) if (Math.abs(s.xs[i] - xs[hoverIdx]) < Math.abs(s.xs[b] - xs[hoverIdx])) b = i; return b; };
        const value = (s) => { const v = s.ys[at(s)]; return v === undefined ? "–" : panel.percent ? (v * 100).toFixed(1) + "%" : M.fmt(v); };
        const lines = panel.series.map((s) => `${s.name}: ${value(s)}`);
        const tw = Math.max(...lines.map((t) => ctx.measureText(t).width)) + 12;
        const bx = px + tw + 10 > this.left + this.plotW ? px - tw - 6 : px + 6;
        ctx.fillStyle = "rgba(255,255,255,0.92)"; ctx.fillRect(bx, y0 + 4, tw, lines.length * (fs + 3) + 6);
        ctx.strokeStyle = "#bbb"; ctx.strokeRect(bx, y0 + 4, tw, lines.length * (fs + 3) + 6);
        ctx.textAlign = "left";
        lines.forEach((t, i) => { ctx.fillStyle = panel.series[i].colour; ctx.fillText(t, bx + 6, y0 + 4 + (fs + 3) * (i + 0.5) + 3); });
      }
      y0 += ph + gap;
    });
    ctx.fillStyle = "#444"; ctx.textAlign = "center"; ctx.textBaseline = "top";
    const xt = ticks(this.xRange[0], this.xRange[1], narrow ? 3 : 6);
    // each x label whole and inside the canvas: one at an end is moved in, not cut
    let lastRight = -Infinity;
    for (const t of xt) {
      const text = compact(t), tw = ctx.measureText(text).width;
      const x = Math.min(Math.max(X(t), tw / 2 + 2), w - tw / 2 - 2);
      if (x - tw / 2 < lastRight + 6) continue;
      ctx.fillText(text, x, h - bottom + 4);
      lastRight = x + tw / 2;
    }
    ctx.fillText(hoverIdx !== null ? `game ${M.fmt(xs[hoverIdx])}` : (d.xlabel || "games played"), this.left + this.plotW / 2, h - 16 * k);
    for (const m of d.marks || []) {
      if (m.x <= this.xRange[0] || m.x > this.xRange[1]) continue;
      const px = X(m.x); ctx.strokeStyle = "#7f3c8d"; ctx.setLineDash([5, 4]); ctx.beginPath(); ctx.moveTo(px, top); ctx.lineTo(px, h - bottom); ctx.stroke(); ctx.setLineDash([]);
    }
    if (this.drag) { ctx.fillStyle = "rgba(0,114,178,0.15)"; ctx.fillRect(Math.min(this.drag.x0, this.drag.x1), top, Math.abs(this.drag.x1 - this.drag.x0), h - bottom - top); }
  }
}

function ticks(lo, hi, n) {
  const span = hi - lo; if (span <= 0) return [lo];
  const raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => span / s <= n) || 10 * mag;
  const out = []; for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) out.push(Math.round(t * 1e6) / 1e6);
  return out;
}

function compact(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(a >= 1e10 ? 0 : 1) + "bn";
  if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
  if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
  return M.fmt(v);
}

const RESULT_COLOURS = { win: "#009e73", draw: "#0072b2", loss: "#d55e00" };

// The learning chart: cumulative reinforcement above, rolling W/D/L shares below.
function learningChartData(s) {
  return {
    xs: s.games, xmin: s.first, xmax: s.last,
    empty: "No games yet: train or play the machine.",
    marks: s.opponents.slice(1).map((o) => ({ x: o.game })),
    panels: [
      { label: `cumulative reinforcement (${s.rule})`, short: "reinforcement", zero: true, weight: 1.1,
        series: [{ name: "total", colour: "#222", ys: s.cumulative }] },
      { label: `share of the last ${M.count(s.window, "game")}`, short: `last ${M.count(s.window, "game")}`, percent: true,
        series: [{ name: "wins", colour: RESULT_COLOURS.win, xs: s.rate_games, ys: s.win },
          { name: "draws", colour: RESULT_COLOURS.draw, xs: s.rate_games, ys: s.draw, dash: [8, 4] },
          { name: "losses", colour: RESULT_COLOURS.loss, xs: s.rate_games, ys: s.loss, dash: [2, 3] }] },
    ],
  };
}

// A box's beads over the games: the counts the history gives, each at the game it is known after,
// joined by straight lines (not held flat until the next point, which would show a box at its
// first beads long after it had grown); with few points each is marked.
function beadChartData(d) {
  const few = d.games.length <= 80;
  return {
    xs: d.games, xmin: 0, xmax: Math.max(1, d.games_played), empty: "No games yet.",
    panels: [{ label: "beads of each colour", short: "beads", zero: true,
      series: d.series.map((s) => ({ name: `${s.letter} ${s.name}`, colour: s.hex === "#ffffff" ? "#9a9a9a" : s.hex, ys: s.counts,
        dots: few, dash: s.hex === "#ffffff" ? [6, 3] : null })) }],
  };
}
