// The play page: a game against the machine, turn by turn, with each MENACE move explained.
"use strict";

(async () => {
  await G.shape();
  let table = null, seat = null, busy = false;
  const boardEl = document.getElementById("board"), statusEl = document.getElementById("status");
  const turnEl = document.getElementById("turn"), endEl = document.getElementById("end");

  const machines = await M.api("/machines");
  const me = machines.machines.find((m) => m.name === M.machine);
  if (me && me.side === "both") document.getElementById("first-label").hidden = false;

  // Projector mode (a festival screen): large type and board, every MENACE turn of the game kept;
  // and, for a queue of visitors, the next game may start by itself a few seconds after the end.
  const params = new URLSearchParams(location.search);
  const projector = document.getElementById("projector"), autoNext = document.getElementById("auto-next");
  projector.checked = params.get("projector") === "1" || localStorage.getItem("menace-projector") === "1";
  autoNext.checked = params.has("next") || localStorage.getItem("menace-auto-next") === "1";
  const NEXT_SECONDS = Math.max(1, Number(params.get("next")) || 8);
  const applyMode = () => { document.body.classList.toggle("projector", projector.checked); if (table) render(); };
  projector.addEventListener("change", () => { localStorage.setItem("menace-projector", projector.checked ? "1" : "0"); applyMode(); });
  autoNext.addEventListener("change", () => { localStorage.setItem("menace-auto-next", autoNext.checked ? "1" : "0"); });
  let nextTimer = null;
  function scheduleNext() {
    clearInterval(nextTimer); nextTimer = null;
    if (!autoNext.checked || !table || !table.end) return;
    let left = NEXT_SECONDS;
    const say = () => {
      let e = document.getElementById("next-in");
      if (!e) { e = M.el("p", { id: "next-in", class: "muted", "aria-live": "polite" }); endEl.append(e); }
      e.textContent = `Next game in ${left} s…`;
    };
    say();
    nextTimer = setInterval(() => { left -= 1; if (left > 0) say(); else { clearInterval(nextTimer); nextTimer = null; start(); } }, 1000);
  }

  function render() {
    if (G.moves(table)) document.getElementById("how-to-move").textContent = "Click one of your pieces, then the square it moves to.";
    if (M.named(table.shape)) document.getElementById("how-to-move").textContent = "Click a move below the drawing, or type its number.";
    const big = projector.checked;
    boardEl.replaceChildren(G.board(table, { clickable: !busy, onMove: move, size: big ? Math.max(320, Math.min(window.innerHeight * 0.62, window.innerWidth * 0.42)) : 320 }));
    statusEl.textContent = G.status(table);
    const last = table.turns[table.turns.length - 1];
    turnEl.hidden = !last;
    if (last && big) turnEl.replaceChildren(M.el("h3", { text: "MENACE's turns this game" }), M.el("div", { class: "turn-strip" }, ...G.turnStrip(table, { size: Math.min(200, window.innerWidth / 9) })));
    else if (last) turnEl.replaceChildren(...G.turnCard(last, { shape: table.shape }));
    endEl.hidden = !table.end;
    if (table.end) endEl.replaceChildren(...G.ledger(table.end), M.el("p", {}, M.el("button", { class: "primary", type: "button", text: "Play again", onclick: start })));
    document.body.dataset.over = table.over ? "1" : "0";
    document.body.dataset.game = table.id;
    if (table.end && !nextTimer) scheduleNext();
  }

  // A machine plays one game at a time: when it is in a game, this page waits in its queue
  // (asking where it stands every 2 s, which keeps the place) and starts when its turn comes.
  let ticket = null, queueTimer = null;
  const queueEl = document.getElementById("queue");

  async function start() {
    clearInterval(nextTimer); nextTimer = null;
    M.flash("");
    if (table && !table.over) await abandon();
    const body = { machine: M.machine };
    if (!document.getElementById("first-label").hidden) body.first = document.getElementById("first").value;
    if (ticket) body.ticket = ticket;
    try {
      table = await M.api("/play", { json: body });
      seat = table.seat;  // this page's alone: the game's moves go to it, never to its public id
      leaveQueue(false);
      render();
    } catch (err) {
      if (err.status === 409 && /queue/.test(err.message)) { await joinQueue(); return; }
      M.flash(err.message);
    }
  }

  async function joinQueue() {
    if (!ticket) {
      try { ticket = (await M.api("/queue", { json: { machine: M.machine } })).ticket; }
      catch (err) { M.flash(err.message); return; }
    }
    if (!queueTimer) queueTimer = setInterval(askQueue, 2000);
    await askQueue();
  }

  async function askQueue() {
    if (!ticket) return;
    try {
      const p = await M.api(`/queue/${ticket}`);
      queueEl.hidden = false;
      queueEl.textContent = p.turn ? "Your turn: the game starts." : `In the queue for '${p.machine}': ${p.message}.`;
      // the line under the board says it too, plainly: no game of this page's is being played yet
      statusEl.textContent = p.turn ? "Your turn: the game starts." : `Waiting: ${p.message}. Your game starts by itself.`;
      document.body.dataset.queue = String(p.position);
      if (p.turn) await start();
    } catch (err) {
      leaveQueue(false);
      if (err.status === 404) await joinQueue(); else M.flash(err.message);
    }
  }

  function leaveQueue(tell) {
    if (tell && ticket) M.api(`/queue/${ticket}/leave`, { json: {}, keepalive: true }).catch(() => {});
    ticket = null; clearInterval(queueTimer); queueTimer = null;
    queueEl.hidden = true; delete document.body.dataset.queue;
  }

  // The page says it is still there: a game whose page stops answering is released for the next.
  let lastBeat = performance.now();
  setInterval(async () => {
    if (!table || table.over || performance.now() - lastBeat < (table.heartbeat_seconds || 10) * 1000) return;
    lastBeat = performance.now();
    try { await M.api(`/play/${seat}/alive`, { method: "POST" }); }
    catch (err) { if (err.status === 404) ended("it was released"); }
  }, 500);

  function ended(why) {
    if (!table || table.over) return;
    table = Object.assign({}, table, { over: true, menace_to_move: false });
    render();
    statusEl.textContent = `The game was stopped (${why}): nothing is learnt.`;
    document.body.dataset.stopped = why;
  }

  async function move(cell) {
    if (!table || table.over || table.menace_to_move || busy) return;
    busy = true;
    try { table = await M.api(`/play/${seat}/move`, { json: { move: cell } }); M.flash(""); }
    catch (err) { M.flash(err.message); }
    busy = false; render();
  }

  async function abandon() {
    if (!table || table.over) return;
    try { await M.api(`/play/${seat}/abandon`, { method: "POST" }); } catch (err) { /* gone already */ }
  }

  applyMode();
  document.getElementById("new-game").addEventListener("click", start);
  document.getElementById("new-game").disabled = false;
  document.body.dataset.ready = "1";
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (/^[1-9]$/.test(e.key) && table && !G.moves(table)) move(Number(e.key) - 1);
  });
  // Closing the tab abandons the game: nothing reinforced, the lease released.
  M.events({
    table: (t) => { if (table && t.id === table.id && t.abandoned) ended(t.why || "abandoned"); },
    queue: (q) => { if (ticket && (!q.machine || q.machine === M.machine)) askQueue(); },
  });
  window.addEventListener("pagehide", () => {
    leaveQueue(true);
    if (!table || table.over) return;
    M.api(`/play/${seat}/abandon`, { json: {}, keepalive: true }).catch(() => {});
  });
})();
