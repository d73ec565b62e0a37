// The pages' charts, drawn by uPlot (vendored beside this file, see VENDORED.md): panels stacked on a
// shared x axis (games), each panel one uPlot with its legend, which reads out the hovered game's
// values (the latest ones otherwise). Drag across a chart to zoom in, double-click to zoom out. This
// file only says what to draw: sizes that fit the text, the page's colours, the data.
"use strict";

class Chart {
  // el: a block whose CSS gives its size; opts: {onZoom(first, last), onReset(), fontSize: px or fn}.
  // A chart is set() a spec: {xs, xmin, xmax, xlabel, empty, marks: [{x}],
  //   panels: [{label, short, percent, zero, weight, xs, series: [{name, colour, ys, dash, dots}]}]}.
  constructor(el, opts = {}) {
    this.el = el;
    this.opts = opts;
    this.spec = null;
    this.plots = [];
    this.shape = null;
    this.sync = `menace-chart-${Chart.made = (Chart.made || 0) + 1}`;
    el.menaceChart = this;  // what the browser tests read back
    el.classList.add("chart");
    this.observer = new ResizeObserver(() => this.fit());
    this.observer.observe(el);
  }

  set(spec) { this.spec = spec; this.render(); }

  // Gone from the page for good (a group's card removed): its plots and their listeners with it.
  destroy() { this.observer.disconnect(); this.clear(); delete this.el.menaceChart; }

  clear() { for (const u of this.plots) u.destroy(); this.plots = []; this.shape = null; this.el.replaceChildren(); }

  fontSize() { const f = this.opts.fontSize; return Math.round(typeof f === "function" ? f() : f || 13); }

  // The same panels and series as drawn: new data only (uPlot's setData), else built anew.
  render() {
    const d = this.spec, el = this.el;
    if (!el.clientWidth || !el.getClientRects().length) return;  // not shown (a closed dialog): drawn when it is
    if (!d || !d.xs.length) {
      this.clear();
      el.append(M.el("p", { class: "chart-empty", text: d && d.empty ? d.empty : "No games yet." }));
      return;
    }
    if (this.shapeOf() !== this.shape) this.build();
    d.panels.forEach((p, i) => {
      const u = this.plots[i];
      u.setData(panelData(d, p));
      u.setScale("x", this.extent());
    });
  }

  // What, changed, needs the plots built anew: the type's size, a phone's width, the panels and their
  // series (a title that changes, the rates' window growing with the games, is only drawn anew).
  shapeOf() {
    const d = this.spec;
    return JSON.stringify([this.fontSize(), this.el.clientWidth < 500,
      d.panels.map((p) => [Boolean(p.label), p.percent, p.zero, p.series.map((s) => [s.name, s.colour, s.dash, s.dots])])]);
  }

  extent() { const d = this.spec; return { min: d.xmin ?? d.xs[0], max: Math.max(d.xmax ?? d.xs[d.xs.length - 1], (d.xmin ?? d.xs[0]) + 1) }; }

  build() {
    this.clear();
    this.shape = this.shapeOf();
    const d = this.spec, el = this.el, fs = this.fontSize(), narrow = el.clientWidth < 500;
    const theme = chartTheme(fs);
    el.style.setProperty("--chart-font-size", `${fs}px`);
    const last = d.panels.length - 1;
    let zooming = false;
    // Every panel's y axis as wide as the widest one needs, so that their x axes line up.
    const needY = d.panels.map(() => 0), gotY = d.panels.map(() => 0);
    this.plots = d.panels.map((panel, pi) => {
      const bottom = pi === last;
      const holder = M.el("div", { class: "chart-panel" });
      el.append(holder);
      const xAxis = {
        stroke: theme.ink, font: theme.font, labelFont: theme.font, grid: theme.grid, ticks: theme.ticks,
        gap: Math.ceil(fs * 0.55),
        // room for the widest label between two ticks; labels only under the bottom panel
        space: (u, i, min, max) => measure(theme.font, compact(max)) + fs * (narrow ? 2.5 : 3),
        values: (u, splits) => (bottom ? tickLabels(splits) : splits.map(() => "")),
        size: bottom ? Math.ceil(4 + fs * 0.55 + fs * 1.3) : 4,
      };
      if (bottom) { xAxis.label = d.xlabel || "games played"; xAxis.labelSize = Math.ceil(fs * 1.5); }
      const format = (v) => (v == null ? "–" : panel.percent ? `${(v * 100).toFixed(1)}%` : M.fmt(v));
      const yAxis = {
        stroke: theme.ink, font: theme.font, labelFont: theme.font, grid: theme.grid, ticks: theme.ticks,
        gap: 4, space: Math.ceil(fs * 2.2), labelGap: 0, labelSize: panel.label ? Math.ceil(fs * 1.5) : 0,
        values: (u, splits) => (panel.percent ? splits.map((v) => `${Math.round(v * 100)}%`) : tickLabels(splits)),
        // as wide as its widest tick label, so the title beside it never runs into them
        size: (u, values) => {
          needY[pi] = Math.ceil(4 + 4 + Math.max(measure(theme.font, "0"), ...(values || []).map((t) => measure(theme.font, t))) + 2);
          return (gotY[pi] = Math.max(...needY));
        },
      };
      if (panel.label) {
        // the long title where the panel is tall enough for it, else the short one, else none (the
        // legend still names the series): a title never runs past its panel
        yAxis.label = (u) => {
          const p = this.spec.panels[pi], room = u.bbox.height / (window.devicePixelRatio || 1) - 4;
          return (narrow ? [p.short] : [p.label, p.short]).find((t) => t && measure(theme.font, t) <= room) || "";
        };
      }
      const series = [{
        label: "game",
        value: (u, v, si, idx) => M.fmt(idx == null ? lastOf(u.data[0]) : v),
      }, ...panel.series.map((s, si) => ({
        label: s.name, stroke: s.colour, width: s.width || 2.5, dash: s.dash || undefined, spanGaps: true,
        // dots where the points are few and far enough apart to be seen (uPlot decides, zoom included)
        points: s.dots ? { size: 6, space: 10, fill: s.colour, stroke: s.colour } : { show: false },
        value: (u, v, i, idx) => format(idx == null ? lastOf(u.data[si + 1]) : v),
      }))];
      const opts = {
        width: el.clientWidth, height: 100,
        // inside the canvas: the top tick label (half above the top line), the last x label (half past the end)
        padding: [Math.ceil(fs * 0.7), (u) => Math.ceil(measure(theme.font, compact(this.extent().max)) / 2) + 4,
          bottom ? 0 : Math.ceil(fs * 0.7), 0],
        // each series' key: a filled square for a solid line, the dashes of a dashed one
        legend: { live: true, markers: { width: 2, fill: (u, i) => (panel.series[i - 1].dash ? "transparent" : panel.series[i - 1].colour) } },
        cursor: {
          sync: { key: this.sync },
          drag: { x: true, y: false, setScale: !this.opts.onZoom },
          points: { size: 9 },
          y: false,  // the games line only: a level line at the mouse would read as a value
          bind: { dblclick: () => () => { this.zoomOut(); return null; } },
        },
        scales: {
          x: { time: false },
          y: { range: (u, lo, hi) => yRange(this.spec.panels[pi], lo, hi) },
        },
        axes: [xAxis, yAxis],
        series,
        hooks: {
          draw: [(u) => {
            this.drawMarks(u);
            // a panel's axis turned out wider (or narrower) than another's: that one measured again
            const want = Math.max(...needY);
            this.plots.forEach((p, j) => { if (gotY[j] !== want) queueMicrotask(() => p.redraw(false, true)); });
          }],
          setSelect: [(u) => {
            if (!this.opts.onZoom || u.select.width < 8) return;
            const a = u.posToVal(u.select.left, "x"), b = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            // the panels share one drag: one zoom asked for
            if (zooming) return;
            zooming = true; queueMicrotask(() => { zooming = false; });
            this.opts.onZoom(Math.max(1, Math.floor(a)), Math.ceil(b));
          }],
        },
      };
      const u = new uPlot(opts, panelData(d, panel), holder);
      u.root.querySelector(".u-legend").setAttribute("aria-label", `${panel.short || panel.label || "chart"}: the values at the game shown`);
      u.root.querySelector(".u-over").title = "drag across to zoom in, double-click to zoom out";
      return u;
    });
    this.fit();
  }

  zoomOut() {
    if (this.opts.onReset) this.opts.onReset();
    else if (this.spec && this.spec.xs.length) for (const u of this.plots) u.setScale("x", this.extent());
  }

  // Each panel as wide as the chart, the height left by the legends shared by the panels' weights.
  fit() {
    const el = this.el, d = this.spec;
    if (!d || !el.clientWidth || !el.getClientRects().length) return;
    if (!this.plots.length || this.shapeOf() !== this.shape) { this.render(); return; }
    const w = el.clientWidth;
    let room = el.clientHeight || 300;
    for (const u of this.plots) {
      const legend = u.root.querySelector(".u-legend");
      legend.style.width = `${w}px`;
      room -= legend.offsetHeight;
    }
    const weights = d.panels.map((p) => p.weight || 1), total = weights.reduce((a, b) => a + b, 0);
    this.plots.forEach((u, i) => {
      const h = Math.max(60, Math.floor(room * weights[i] / total));
      if (u.width !== w || u.height !== h) u.setSize({ width: w, height: h });
    });
  }

  // Where the opponent changed: a dashed line across the panel.
  drawMarks(u) {
    const marks = (this.spec && this.spec.marks) || [];
    if (!marks.length) return;
    const ctx = u.ctx, { left, top, width, height } = u.bbox, dpr = window.devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = chartTheme(13).mark; ctx.lineWidth = dpr; ctx.setLineDash([5 * dpr, 4 * dpr]);
    for (const m of marks) {
      const x = u.valToPos(m.x, "x", true);
      if (x <= left || x > left + width) continue;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
    }
    ctx.restore();
  }
}

// The panel's columns as uPlot takes them: its game numbers, then each series' values.
function panelData(d, panel) { return [panel.xs || d.xs, ...panel.series.map((s) => s.ys)]; }

function lastOf(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] != null) return values[i];
  return null;
}

// A share is 0 to 100%; a count has a little room above its largest value, and 0 on the axis if asked.
function yRange(panel, lo, hi) {
  if (panel.percent) return [0, 1];
  if (lo == null || !Number.isFinite(lo)) { lo = 0; hi = 1; }
  if (panel.zero) { lo = Math.min(lo, 0); hi = Math.max(hi, 0); }
  if (hi === lo) { hi += 1; lo -= panel.zero ? 0 : 1; }
  const pad = (hi - lo) * 0.05;
  return [lo === 0 ? 0 : lo - pad, hi + pad];
}

// The page's colours and type (style.css's custom properties), read when a chart is built.
function chartTheme(fs) {
  const css = getComputedStyle(document.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  const family = getComputedStyle(document.body).fontFamily || "system-ui, sans-serif";
  const line = v("--line", "#d8d2c4");
  return {
    ink: v("--ink", "#1d1d1d"), muted: v("--muted", "#5c5c5c"), mark: v("--mark", "#7f3c8d"),
    font: `${fs}px ${family}`,
    grid: { stroke: line, width: 1 },
    ticks: { stroke: line, width: 1, size: 4 },
  };
}

const measureCtx = document.createElement("canvas").getContext("2d");
function measure(font, text) { measureCtx.font = font; return measureCtx.measureText(text).width; }

// An axis's tick labels, short and alike: 5k, 10k, 15k (not 5,000 beside 10k); 500k, 1.0M; 1.5bn.
function tickLabels(splits) {
  const top = Math.max(0, ...splits.map(Math.abs));
  return splits.map((v) => (top >= 1e4 && Math.abs(v) < 1e4 && v !== 0 ? `${+(v / 1e3).toFixed(2)}k` : compact(v)));
}

function compact(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(a >= 1e10 ? 0 : 1) + "bn";
  if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + "M";
  if (a >= 1e4) return (v / 1e3).toFixed(0) + "k";
  return M.fmt(v);
}

function resultColours() {
  const css = getComputedStyle(document.documentElement);
  const v = (name, fallback) => css.getPropertyValue(name).trim() || fallback;
  return { win: v("--win", "#009e73"), draw: v("--draw", "#0072b2"), loss: v("--loss", "#d55e00"), ink: v("--ink", "#222") };
}

// The learning chart: cumulative reinforcement above, rolling W/D/L shares below.
function learningChartData(s) {
  const c = resultColours();
  return {
    xs: s.games, xmin: s.first, xmax: s.last,
    empty: "No games yet: train or play the machine.",
    marks: s.opponents.slice(1).map((o) => ({ x: o.game })),
    panels: [
      { label: s.curve, short: "reinforcement", zero: true, weight: 1.1,
        series: [{ name: "total", colour: c.ink, ys: s.cumulative }] },
      { label: `share of the last ${M.count(s.window, "game")}`, short: `last ${M.count(s.window, "game")}`, percent: true,
        xs: s.rate_games,
        series: [{ name: "wins", colour: c.win, ys: s.win },
          { name: "draws", colour: c.draw, ys: s.draw, dash: [8, 4] },
          { name: "losses", colour: c.loss, ys: s.loss, dash: [2, 3] }] },
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
    panels: [{ label: d.odds ? "each move's chance (%)" : "beads of each colour", short: d.odds ? "%" : "beads", zero: true,
      series: d.series.map((s) => ({ name: `${s.letter} ${s.name}`, colour: s.hex === "#ffffff" ? "#9a9a9a" : s.hex, ys: s.counts,
        dots: few, dash: s.hex === "#ffffff" ? [6, 3] : null })) }],
  };
}
