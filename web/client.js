// ChartWire thin client: draws the display lists the server sends and forwards
// gestures. It holds the last layers it was sent and nothing else: no chart logic.
"use strict";

(function () {
  // Bottom to top; codes 0, 1, 2, 3. "modifier" is this viewer's own (a rollover line).
  const LAYERS = ["background", "series", "overlay", "modifier"];
  const ALIGN = ["left", "center", "right"];
  const SHAPES = ["circle", "square", "triangle", "diamond", "cross"];
  const BASELINE = ["alphabetic", "top", "middle", "bottom"];
  // /s/{session}: one chart. /d/{dashboard}: a grid of charts (each a session of its
  // own) over the same one connection; every message then carries a "chart" index.
  // /e/{session}: one chart alone, for iframes (docs/embedding.md): no header; it tells
  // the page framing it how it is doing (postMessage, below).
  // Behind a reverse proxy the server may sit under a path (/charts/s/{session}):
  // `base` is what comes before s/, d/ or e/, and every URL the page builds starts there.
  const path = location.pathname.split("/");
  const base = path.slice(0, -2).join("/") + "/";
  const dashboardId = path[path.length - 2] === "d" ? decodeURIComponent(path[path.length - 1] || "") : null;
  const sessionId = dashboardId ? null : decodeURIComponent(path[path.length - 1] || "");
  const embedded = path[path.length - 2] === "e" && window.parent !== window;
  const main = document.getElementById("chart");
  const statusEl = document.getElementById("status");   // none on /e/
  const token = new URLSearchParams(location.search).get("token");

  let ws = null, backoff = 500, reconnectTimer = null, fontsReady = false;
  // The server sends a heartbeat after `heartbeat` seconds of silence (announced in
  // welcome); three missed in a row mean the connection is dead even if the socket
  // never said so (a network that vanished), and the client reconnects.
  let heartbeat = 0, lastMessage = 0;
  // The charts on the page: one, or a dashboard's (made when its grid arrives).
  let charts = [];
  // Connection figures, kept on every chart's state too (tests and tools read them).
  const conn = { connected: false, reconnects: 0, stale: 0, bytes: 0 };
  const board = { dashboard: dashboardId, charts: [], connected: false, reconnects: 0, stale: 0, bytes: 0, layout: null };
  function setConn(key, value) {
    conn[key] = value;
    board[key] = value;
    for (const c of charts) c.state[key] = value;
  }

  let statusText = "connecting";
  function setStatus(text, cls) {
    statusText = text;
    if (statusEl) { statusEl.textContent = text; statusEl.className = "status " + cls; }
    report(true);
  }

  // An embedded chart (/e/) tells the page framing it its state: the <chartwire-chart>
  // element (embed.js) shows it as events and properties. Only pages allowed to frame
  // this one (Content-Security-Policy: frame-ancestors) can be its parent. On status
  // changes, the welcome, the first draw, then at most twice a second while drawing.
  let reportedAt = 0, reportTimer = null;
  function report(now) {
    if (!embedded || !charts[0]) return;
    const wait = now ? 0 : reportedAt + 500 - performance.now();
    if (wait > 0) { if (!reportTimer) reportTimer = setTimeout(() => { reportTimer = null; report(true); }, wait); return; }
    reportedAt = performance.now();
    const st = charts[0].state;
    window.parent.postMessage({ chartwire: "status", session: sessionId, status: statusText, connected: st.connected, data: st.data,
                                title: st.welcome ? st.welcome.title : null, frames: st.frames, draws: st.draws,
                                reconnects: st.reconnects, errors: st.errors.map((e) => e.code),
                                size: st.size && { width: st.size.width, height: st.size.height, dpr: st.size.dpr } }, "*");
  }

  function sendRaw(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  // ---- one chart: its canvases, its layers, its drawing and its input -----------

  function createChart(root, index, titleEl) {
  const send = dashboardId === null ? sendRaw : (msg) => sendRaw(Object.assign({ chart: index }, msg));
  // One canvas per layer, so a frame redraws only the layers it carries.
  const canvases = {};
  for (const id of LAYERS) {
    const c = document.createElement("canvas");
    c.dataset.layer = id;
    root.appendChild(c);
    canvases[id] = c;
  }
  const input = canvases.modifier;
  // Every layer but the series is drawn whole into an offscreen canvas whose picture
  // is then handed to its shown canvas (a "bitmaprenderer"): the browser copies a 2D
  // canvas to its compositor on every frame, changed or not, and a handed-over picture
  // never. The series layer keeps a 2D canvas: scrollDraw shifts it and draws into it.
  const offscreen = {};
  if (typeof OffscreenCanvas === "function") for (const id of LAYERS) if (id !== "series") offscreen[id] = new OffscreenCanvas(1, 1);
  // But a layer that changes frame after frame (the background while a pan moves its
  // labels, the overlay following a pointer) costs more that way: the whole picture is
  // drawn at once and handed over at every change, where a 2D canvas is drawn when the
  // browser paints (a 1600x900 background: 4 ms a frame more in headless Chromium;
  // docs/bench.md). Such a layer is drawn into a 2D canvas beside its own ("direct",
  // made when first needed) from the first frame answering this viewer's gesture, or
  // its second change within 100 ms (a redraw for fonts or a new size is not a change),
  // and goes back to a handed-over picture (drawn once more) after a second without a
  // change. The direct canvas is hidden while its layer is not drawn on it.
  const directCanvas = {}, lastChange = {}, settling = {};
  function shownCanvas(id) {
    const d = directCanvas[id];
    return d && !d.hidden ? d : canvases[id];
  }
  function chooseCanvas(id) {
    const now = performance.now(), busy = pendingInput !== null || now - (lastChange[id] ?? -Infinity) < 100;
    lastChange[id] = now;
    if (!busy) return;
    clearTimeout(settling[id]);
    settling[id] = setTimeout(() => settle(id), 1000);
    const d = direct(id);
    if (!d.hidden) return;
    show(id, d);
    place(id, boxes[id]);
  }
  function settle(id) {
    const d = directCanvas[id];
    d.hidden = true;
    place(id, boxes[id]);
    if (state.layers[id]) paint(id, state.layers[id], boxes[id]);
    if (!pointerOver) release(id);
  }
  function direct(id) {
    let d = directCanvas[id];
    if (!d) {
      d = directCanvas[id] = document.createElement("canvas");
      d.dataset.direct = id;
      d.style.pointerEvents = "none";
      d.hidden = true;
      d.width = d.height = 1;
      root.insertBefore(d, canvases[id]);   // where its layer stands (the modifier stays last)
    }
    return d;
  }
  // A direct canvas's bitmap is made when the canvas is first drawn at its size: 3-7 ms
  // for a 1600x762 one here, which a gesture's first frame would wait for (docs/bench.md,
  // "The first gesture, ready"). So the direct canvases are made and sized as a pointer
  // comes over the chart (the moment before a gesture: a mouse is over the chart before
  // it wheels or drags it, a touch before it moves), kept while they may serve, and
  // given back (1x1) half a minute after the pointer left and their layer settled.
  // (Not for a layer that is empty now, most often the viewer's own: its first frame
  // makes its bitmap, rather than every page holding one for the whole chart.)
  const releasing = {};
  let pointerOver = false;
  function ready() {
    pointerOver = true;
    for (const id of Object.keys(offscreen)) {
      clearTimeout(releasing[id]);
      const box = boxes[id], layer = state.layers[id];
      if (!box || !layer || layer.commands.length === 0) continue;
      const d = direct(id);
      if (!d.hidden || (d.width === box.w && d.height === box.h)) continue;
      d.width = box.w;
      d.height = box.h;
      d.getContext("2d").clearRect(0, 0, 1, 1);   // (its bitmap, made now)
    }
  }
  function release(id) {
    clearTimeout(releasing[id]);
    releasing[id] = setTimeout(() => {
      const d = directCanvas[id];
      if (d && d.hidden && !pointerOver) d.width = d.height = 1;
    }, 30000);
  }
  // "Reconnecting to data…": the node serving the chart has lost its data (a cluster
  // node without Redis, docs/cluster.md); the chart shown is the last it had. Over the
  // chart, letting every gesture through, until the server says "live" or the viewer
  // starts afresh (a hello: a node whose data is away says so again at once).
  const dataBanner = document.createElement("div");
  dataBanner.className = "data-state";
  dataBanner.setAttribute("role", "status");
  dataBanner.textContent = "Reconnecting to data\u2026";
  dataBanner.hidden = true;
  root.prepend(dataBanner);   // (the modifier canvas stays the last child: the cursor rules)
  function setData(data) {
    state.data = data;
    dataBanner.hidden = data !== "reconnecting";
    report(true);
  }

  // State visible to tests and curious users (window.chartwire).
  const state = { session: sessionId, chart: index, connected: conn.connected, frames: 0, draws: 0, acks: 0, patches: 0, fontRedraws: 0, layers: {}, welcome: null,
                  events: [],
                  errors: [], reconnects: 0, stale: 0, bytes: 0, dataTime: 0, firstDrawAt: 0, lastDrawAt: 0,
                  fontsReady: false, data: "live", layerDraws: {}, scrollDraws: 0, scrollMoves: 0, tileDraws: 0, bars: 0, drawLog: [], inputLog: [], inputArrivalLog: [], inputDelayLog: [], inputCommitLog: [], drawMsLog: [], size: null };
  Object.assign(state, { reconnects: conn.reconnects, stale: conn.stale, bytes: conn.bytes, fontsReady });

  let size = measure();
  let consumes = new Set(["drag", "pinch", "wheel"]);

  function measure() {
    const r = root.getBoundingClientRect();
    return { width: Math.max(1, Math.floor(r.width)), height: Math.max(1, Math.floor(r.height)),
             dpr: window.devicePixelRatio || 1 };
  }

  function sizeCanvases() {
    for (const id of LAYERS) {
      place(id, fullBox());
      if (state.layers[id]) draw(id);
    }
  }

  // Each canvas covers only the part of the chart its layer draws on (its box: whole
  // device pixels of the chart, {x, y, w, h}): the series inside the plot's clip, a
  // legend its own rectangle. The browser copies every shown canvas to its compositor
  // on every frame, and composites it, at a cost that follows the canvas' area.
  const boxes = {};
  function fullBox() {
    return { x: 0, y: 0, w: Math.round(size.width * size.dpr), h: Math.round(size.height * size.dpr) };
  }
  function place(id, box) {
    const c = shownCanvas(id);
    boxes[id] = box;
    fit(c, box);
    if (offscreen[id] && c === canvases[id]) { offscreen[id].width = box.w; offscreen[id].height = box.h; }
  }
  // Places and sizes canvas `c` at `box`.
  function fit(c, box) {
    const full = box.x === 0 && box.y === 0 && box.w === Math.round(size.width * size.dpr)
      && box.h === Math.round(size.height * size.dpr);
    c.style.left = box.x / size.dpr + "px";
    c.style.top = box.y / size.dpr + "px";
    c.style.width = (full ? size.width : box.w / size.dpr) + "px";
    c.style.height = (full ? size.height : box.h / size.dpr) + "px";
    // (Set only when it changes: setting either, even to what it is, drops the bitmap,
    // which the next drawing makes again. Every drawing clears what it draws on.)
    if (c.width !== box.w) c.width = box.w;
    if (c.height !== box.h) c.height = box.h;
  }


  function sendInput(msg, ev) {
    if (pendingInput === null) {
      pendingInput = ev.timeStamp;
      keep(state.inputDelayLog, performance.now() - ev.timeStamp);
    }
    send(msg);
  }

  // A (re)start of the viewer: the server sends every layer whole again.
  function hello() {
    if (state.data !== "live") setData("live");
    state.layers = {};
    state.size = size;
    unacked = 0;
    // A session that needs a token gets it from the page's address: /s/ID?token=...
    send(Object.assign({ type: "hello", width: size.width, height: size.height, dpr: size.dpr }, token ? { token } : {}));
  }

  function onText(msg) {
    if (msg.type === "welcome") {
      state.welcome = msg;
      heartbeat = msg.heartbeat || 0;
      if (titleEl) titleEl.textContent = msg.title;
      if (dashboardId === null) document.title = msg.title + " · ChartWire";
      // The page keeps the gestures the chart's modifiers do not use: it scrolls over a
      // chart nothing drags, and the wheel scrolls it when nothing zooms.
      consumes = new Set(msg.consumes || ["drag", "pinch", "wheel"]);
      root.style.touchAction = consumes.has("drag") ? "none" : consumes.has("pinch") ? "pan-x pan-y" : "auto";
      root.classList.toggle("drags", consumes.has("drag"));
      report(true);
    } else if (msg.type === "event") {
      // What happened on the chart (docs/modifiers.md): kept for the page's own code.
      state.events.push(msg);
      if (state.events.length > 100) state.events.shift();
      window.dispatchEvent(new CustomEvent("chartwire:event", { detail: msg }));
    } else if (msg.type === "error") {
      state.errors.push(msg);
      console.warn("chartwire:", msg.code, msg.message);
      if (msg.code === "session_removed") setStatus("removed", "reconnecting");
      report(true);
    } else if (msg.type === "frame") {
      onFrame(jsonFrame(msg));
    } else if (msg.type === "status") {
      setData(msg.data);
    }   // "heartbeat": nothing to do; its arrival was noted
  }

  // Frames are applied to the layers and drawn at once (once the chart font is ready),
  // and acknowledged after that drawing, one ack per frame: the server sends no more
  // than its window ahead of what was drawn.
  const dirty = new Set();
  let unacked = 0;
  // The first gesture not yet answered by a painted frame, and when the last frame came.
  let pendingInput = null, lastFrameAt = 0;

  function onFrame(frame) {
    state.frames++;
    lastFrameAt = performance.now();
    if (frame.dataTime) state.dataTime = frame.dataTime;
    try {
      for (const layer of frame.layers) {
        if (layer.patch) state.patches++;
        state.layers[layer.id] = layer.patch ? applyPatch(state.layers[layer.id], layer) : layer;
        dirty.add(layer.id);
      }
    } catch (e) {
      // A patch that does not fit what this page holds: start the viewer afresh.
      state.errors.push({ code: "client_patch", message: String(e) });
      console.warn("chartwire:", e);
      hello();
      return;
    }
    unacked++;
    scheduleDraw();
  }

  // A frame is drawn as soon as it arrives (the browser shows the canvases at its next
  // paint); before the font is ready, frames wait and are drawn together.
  function scheduleDraw() {
    if (!fontsReady) return;
    const start = performance.now();
    for (const id of dirty) if (state.layers[id]) draw(id);
    dirty.clear();
    const now = performance.now();
    keep(state.drawMsLog, now - start);
    if (!state.firstDrawAt) state.firstDrawAt = now;
    state.lastDrawAt = now;
    state.draws++;
    report(state.draws === 1);
    // For anyone measuring from the page (bench/browser): how old the newest data drawn
    // is, and how long after a gesture the frame answering it arrived and was drawn.
    if (state.dataTime) keep(state.drawLog, performance.timeOrigin + now - state.dataTime);
    if (pendingInput !== null && lastFrameAt >= pendingInput) {
      keep(state.inputLog, now - pendingInput);
      keep(state.inputArrivalLog, lastFrameAt - pendingInput);
      // And when the browser's frame carrying this drawing has been painted and handed
      // to its compositor: a task queued from the next animation frame runs after it
      // (the canvases' rasterizing included, which a 2D canvas defers to then).
      const t = pendingInput;
      requestAnimationFrame(() => setTimeout(() => keep(state.inputCommitLog, performance.now() - t), 0));
      pendingInput = null;
    }
    for (; unacked > 0; unacked--) { send({ type: "ack" }); state.acks++; }
  }

  function keep(log, value) {
    log.push(value);
    if (log.length > 2000) log.shift();
  }

  // ---- patches (docs/protocol.md, "Patches") --------------------------------------

  function applyPatch(base, patch) {
    if (!base || base.version !== patch.base) {
      throw new Error("patch for version " + patch.base + " of " + patch.id + ", holding " + (base && base.version));
    }
    const old = base.commands, out = [];
    // What moved, for drawing the layer in proportion to what changed (scrollDraw):
    // each line patched by a columns op, as its place here and in the base; any other
    // change (a command skipped or inserted) leaves nothing to shift.
    let moved = [];
    let at = 0;
    for (const op of patch.patch) {
      if (op.keep !== undefined) {
        if (at + op.keep > old.length) throw new Error("patch keeps past the end");
        for (let i = 0; i < op.keep; i++) out.push(old[at++]);
      } else if (op.skip !== undefined) {
        at += op.skip;
        moved = null;
      } else if (op.insert) {
        for (const c of op.insert) out.push(c);
        moved = null;
      } else if (op.columns) {
        const line = old[at++], p = op.columns;
        if (!line || line.op !== "columns") throw new Error("columns patch on a " + (line && line.op));
        if (p.keepFrom + p.keepCount > line.entries.length) throw new Error("columns patch keeps too much");
        const entries = p.head.slice();
        // (Entries are never changed once made: unshifted, the same ones serve.)
        for (let i = p.keepFrom; i < p.keepFrom + p.keepCount; i++) {
          const e = line.entries[i];
          entries.push(p.shift === 0 ? e : { column: e.column - p.shift, lo: e.lo, hi: e.hi, first: e.first, last: e.last, joined: e.joined });
        }
        for (const e of p.tail) entries.push(e);
        if (moved) moved.push({ at: out.length, from: at - 1, shift: p.shift, keepFrom: p.keepFrom, keepCount: p.keepCount, head: p.head.length });
        out.push(Object.assign({}, line, { x0: p.x0, entries, pen: null }));
      }
    }
    return { id: patch.id, version: patch.version, commands: out, base: base.version, moved };
  }

  // JSON frames carry column entries as [column, lo, hi, first, last, joined] arrays.
  function jsonEntries(list) {
    return list.map((e) => ({ column: e[0], lo: e[1], hi: e[2], first: e[3], last: e[4], joined: e[5] === 1 }));
  }
  function jsonColumns(commands) {
    for (const c of commands) {
      if (c.op === "columns") c.entries = jsonEntries(c.entries);
      if (c.op === "band") { c.a.entries = jsonEntries(c.a.entries); c.b.entries = jsonEntries(c.b.entries); }
    }
    return commands;
  }
  function jsonFrame(msg) {
    for (const l of msg.layers) {
      if (l.commands) jsonColumns(l.commands);
      if (l.patch) {
        for (const op of l.patch) {
          if (op.insert) jsonColumns(op.insert);
          if (op.columns) { op.columns.head = jsonEntries(op.columns.head); op.columns.tail = jsonEntries(op.columns.tail); }
        }
      }
    }
    return msg;
  }

  // ---- binary frames (docs/protocol.md) -----------------------------------------

  function decodeFrame(v) {
    let o = 0;
    const u8 = () => v.getUint8(o++);
    const u16 = () => { const x = v.getUint16(o, true); o += 2; return x; };
    const u32 = () => { const x = v.getUint32(o, true); o += 4; return x; };
    const i32 = () => { const x = v.getInt32(o, true); o += 4; return x; };
    const f32 = () => { const x = v.getFloat32(o, true); o += 4; return x; };
    const f32s = (n) => { const a = new Float32Array(n); for (let i = 0; i < n; i++) a[i] = f32(); return a; };
    const utf8 = new TextDecoder();

    // A columns line after its opcode (also each line of a band); `str` reads a
    // string reference of the layer being decoded.
    function columns(str) {
      const stroke = str(), width = f32(), dash = Array.from(f32s(u8())), flags = u8();
      let area = null;
      if (flags & 2) {
        area = { fill: str(), base: u16(), top: u16() };
        if (flags & 4) area.gradient = str();
      }
      const x0 = f32(), dx = f32(), y0 = f32(), dy = f32();
      return { op: "columns", stroke, width, dash, step: !!(flags & 1), area, x0, dx, y0, dy, entries: runs() };
    }
    // Column entries, sent as runs of joined entries (docs/protocol.md, "Runs").
    function runs() {
      const entries = [];
      for (let n = u32(), r = 0; r < n; r++) {
        let column = i32();
        const count = u16(), joined = (u8() & 1) === 1;
        for (let j = 0; j < count; j++) {
          const tag = u8();
          if (j > 0) column += (tag & 0x1f) || u16();
          const lo = u16(), hi = tag & 0x20 ? lo : u16();
          const first = tag & 0x40 ? u16() : lo, last = tag & 0x80 ? u16() : hi;
          entries.push({ column, lo, hi, first, last, joined: j === 0 ? joined : true });
        }
      }
      return entries;
    }

    function commands(n, strings) {
      const str = () => strings[u16()];
      const out = [];
      for (let i = 0; i < n; i++) {
        const op = u8();
        if (op === 1 || op === 2) {
          const stroke = str(), width = f32(), dash = Array.from(f32s(u8()));
          const items = u32();
          const coords = f32s(items * (op === 1 ? 2 : 4));
          out.push(op === 1 ? { op: "polyline", points: coords, stroke, width, dash }
                            : { op: "segments", coords, stroke, width, dash });
        } else if (op === 3) {
          const flags = u8();
          const c = { op: "rect", x: f32(), y: f32(), w: f32(), h: f32() };
          if (flags & 1) c.fill = str();
          if (flags & 2) { c.stroke = str(); c.lineWidth = f32(); }
          out.push(c);
        } else if (op === 4) {
          const x = f32(), y = f32(), angle = f32();
          const text = str(), font = str(), fill = str();
          out.push({ op: "text", x, y, angle, text, font, fill, align: ALIGN[u8()], baseline: BASELINE[u8()] });
        } else if (op === 5) {
          out.push({ op: "clip", x: f32(), y: f32(), w: f32(), h: f32() });
        } else if (op === 6) {
          out.push({ op: "unclip" });
        } else if (op === 7) {
          out.push(columns(str));
        } else if (op === 12) {
          const c = { op: "band", fill: str(), fillY1: str(), top: f32(), bottom: f32() };
          c.a = columns(str); c.b = columns(str);
          out.push(c);
        } else if (op === 8) {
          const c = { op: "markers", shape: SHAPES[u8()] };
          const flags = u8();
          c.size = f32();
          if (flags & 1) c.fill = str();
          if (flags & 2) { c.stroke = str(); c.lineWidth = f32(); }
          c.x0 = f32(); c.y0 = f32(); c.unit = f32();
          const n = u32();
          c.cells = new Uint16Array(2 * n);
          for (let k = 0; k < 2 * n; k++) c.cells[k] = u16();
          out.push(c);
        } else if (op === 9) {
          const c = { op: "bars", fill: str() };
          if (u8() & 2) { c.stroke = str(); c.lineWidth = f32(); }
          c.x0 = f32(); c.y0 = f32(); c.unit = f32();
          const n = u32();
          c.bars = new Uint16Array(4 * n);
          for (let k = 0; k < 4 * n; k++) c.bars[k] = u16();
          out.push(c);
        } else if (op === 11) {
          const c = { op: "wedges", cx: f32(), cy: f32(), r0: f32(), r1: f32() };
          if (u8() & 2) { c.stroke = str(); c.lineWidth = f32(); }
          const n = u32();
          c.wedges = [];
          for (let k = 0; k < n; k++) c.wedges.push({ fill: str(), a0: f32(), a1: f32(), offset: f32() });
          out.push(c);
        } else if (op === 13) {
          out.push({ op: "opacity", alpha: f32() });
        } else if (op === 14) {
          out.push({ op: "image", x: f32(), y: f32(), w: f32(), h: f32(), src: str() });
        } else if (op === 10) {
          const c = { op: "polygon", fill: str() };
          if (u8() & 1) c.gradient = { color: str(), x0: f32(), y0: f32(), x1: f32(), y1: f32() };
          c.points = f32s(2 * u32());
          out.push(c);
        } else {
          throw new Error("unknown opcode " + op);
        }
      }
      return out;
    }

    if (u32() !== 0x32465743) throw new Error("not a ChartWire frame");   // "CWF2"
    const frame = { width: u16(), height: u16(), dpr: f32(), layers: [] };
    const count = u8(); o += 3;
    frame.dataTime = v.getFloat64(o, true); o += 8;
    for (let l = 0; l < count; l++) {
      const id = LAYERS[u8()], kind = u8(); o += 2;
      const version = u32();
      const end = u32() + o;
      const base = kind === 1 ? u32() : 0;
      const strings = [];
      for (let n = u16(), i = 0; i < n; i++) {
        const len = u16();
        strings.push(utf8.decode(new Uint8Array(v.buffer, v.byteOffset + o, len)));
        o += len;
      }
      if (kind === 0) {
        frame.layers.push({ id, version, commands: commands(u32(), strings) });
      } else if (kind === 1) {
        const patch = [];
        for (let n = u32(), i = 0; i < n; i++) {
          const op = u8();
          if (op === 1) patch.push({ keep: u32() });
          else if (op === 2) patch.push({ skip: u32() });
          else if (op === 3) patch.push({ insert: commands(u32(), strings) });
          else if (op === 4) {
            const shift = i32(), x0 = f32(), keepFrom = u32(), keepCount = u32();
            patch.push({ columns: { shift, x0, keepFrom, keepCount, head: runs(), tail: runs() } });
          } else throw new Error("unknown patch opcode " + op);
        }
        frame.layers.push({ id, version, base, patch });
      } else {
        throw new Error("unknown layer kind " + kind);
      }
      if (o !== end) throw new Error("layer length mismatch");
    }
    return frame;
  }

  // ---- drawing ----------------------------------------------------------------

  // Text in a script whose font subset has not loaded yet (the page preloads only the
  // Latin ones) would be drawn in a fallback font the server did not measure: load
  // that subset, then draw the layer again. Text in a chart's own family (a quoted
  // family before the chart font, `italic 13px "Liberation Serif", ChartWire Sans`)
  // is not drawn in a stand-in at all: its layer waits until the family's face has
  // loaded (false: wait).
  const fontLoads = new Set(), fontFailed = new Set();
  function fontsHave(cmd) {
    const own = ownFacesMissing(cmd);
    // (A character the family lacks is the chart font's: check() covers those faces.)
    return (!own || own.length === 0) && document.fonts.check(cmd.font, cmd.text);
  }
  // Chromium's document.fonts.check answers true for text in a bold or italic face of
  // a chart's own family that has not loaded once another face of the family has (the
  // layer was drawn in the chart font): for such text the faces themselves are asked,
  // those of the family, weight and style whose unicode-range holds a character of it.
  let familyFaces = null;
  function ownFacesMissing(cmd) {
    const m = /^(italic )?(bold )?[0-9.]+px "([^"]+)"/.exec(cmd.font);
    if (!m) return null;
    if (!familyFaces) {
      familyFaces = new Map();
      for (const face of document.fonts) {
        const ranges = face.unicodeRange.split(",").map(r => {
          const [a, b] = r.trim().replace(/^U\+/i, "").split("-");
          return [parseInt(a, 16), parseInt(b || a, 16)];
        });
        const family = face.family.replace(/^"|"$/g, "");
        if (!familyFaces.has(family)) familyFaces.set(family, []);
        familyFaces.get(family).push({ face, ranges, bold: Number(face.weight) >= 600 || face.weight === "bold",
                                       italic: face.style === "italic" });
      }
    }
    const bold = !!m[2], italic = !!m[1], missing = [];
    for (const f of familyFaces.get(m[3]) || []) {
      if (f.bold !== bold || f.italic !== italic || f.face.status === "loaded") continue;
      for (const ch of cmd.text) {
        const cp = ch.codePointAt(0);
        if (f.ranges.some(([a, b]) => cp >= a && cp <= b)) { missing.push(f.face); break; }
      }
    }
    return missing;
  }
  function ensureFonts(id) {
    let ready = true;
    for (const cmd of state.layers[id].commands) {
      if (cmd.op !== "text" || fontsHave(cmd)) continue;
      const key = cmd.font + "\u0000" + cmd.text;
      if (fontFailed.has(key)) continue;              // (did not load: drawn as it can be)
      if (cmd.font.includes('", ')) ready = false;
      if (fontLoads.has(key)) continue;
      fontLoads.add(key);
      document.fonts.load(cmd.font, cmd.text).catch(() => {}).then(() => {
        fontLoads.delete(key);
        if (!fontsHave(cmd)) fontFailed.add(key);
        // (Loads that end together, a layer's labels in one face, redraw it once.)
        if (fontRedrawing.has(id)) return;
        fontRedrawing.add(id);
        setTimeout(() => {
          fontRedrawing.delete(id);
          state.fontRedraws++;
          if (state.layers[id]) draw(id);
        }, 0);
      });
    }
    return ready;
  }
  const fontRedrawing = new Set();

  // Images (the `image` op) load from the server once; a layer that names one not yet
  // loaded is drawn again when it arrives.
  const images = new Map();
  function loadedImage(src, id) {
    let entry = images.get(src);
    if (!entry) {
      entry = { img: new Image(), waiting: new Set() };
      entry.img.onload = () => { for (const l of entry.waiting) if (state.layers[l]) draw(l); entry.waiting.clear(); };
      entry.img.onerror = () => { state.errors.push({ code: "client_image", message: "image " + src + " did not load" }); };
      // (Frames name images by their path from the server's root.)
      entry.img.src = src.startsWith("/") ? base + src.slice(1) : src;
      images.set(src, entry);
    }
    if (entry.img.complete && entry.img.naturalWidth > 0) return entry.img;
    entry.waiting.add(id);
    return null;
  }

  // The layer each canvas shows now, and the size it was drawn at.
  const drawn = {};

  // What a layer draws on, in device pixels: the union of its clips (what is drawn
  // inside one stays inside it) and of the reach of what it draws outside any clip;
  // the whole chart when something's reach is not known here (a rotated text, columns
  // or markers outside a clip). The viewer's own layer always covers the chart: its
  // canvas takes the pointer.
  let measurer = null;
  function layerBox(id, layer) {
    const full = fullBox();
    if (canvases[id] === input) return full;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, clipped = false;
    const add = (a, b, c, d, pad) => {
      x0 = Math.min(x0, a - pad); y0 = Math.min(y0, b - pad); x1 = Math.max(x1, c + pad); y1 = Math.max(y1, d + pad);
    };
    for (const c of layer.commands) {
      if (c.op === "clip") { clipped = true; add(c.x, c.y, c.x + c.w, c.y + c.h, 1); continue; }
      if (c.op === "unclip") { clipped = false; continue; }
      if (clipped || c.op === "opacity") continue;
      if (c.op === "rect" || c.op === "image") add(c.x, c.y, c.x + c.w, c.y + c.h, (c.stroke ? c.lineWidth / 2 : 0) + 1);
      else if (c.op === "polyline" || c.op === "segments") {
        const p = c.op === "polyline" ? c.points : c.coords;
        for (let i = 0; i + 1 < p.length; i += 2) add(p[i], p[i + 1], p[i], p[i + 1], c.width / 2 + 2);
      } else if (c.op === "text" && !c.angle) {
        measurer = measurer || document.createElement("canvas").getContext("2d");
        measurer.font = c.font; measurer.textAlign = c.align; measurer.textBaseline = c.baseline;
        const m = measurer.measureText(c.text);
        add(c.x - m.actualBoundingBoxLeft, c.y - m.actualBoundingBoxAscent, c.x + m.actualBoundingBoxRight,
            c.y + m.actualBoundingBoxDescent, 3);
      } else return full;
      if (x0 <= 0 && y0 <= 0 && x1 >= size.width && y1 >= size.height) return full;
    }
    if (x0 > x1) return { x: 0, y: 0, w: 1, h: 1 };   // draws nothing
    const dpr = size.dpr, x = Math.max(0, Math.floor(x0 * dpr)), y = Math.max(0, Math.floor(y0 * dpr));
    const w = Math.min(full.w, Math.ceil(x1 * dpr)) - x, h = Math.min(full.h, Math.ceil(y1 * dpr)) - y;
    return w > 0 && h > 0 ? { x, y, w, h } : { x: 0, y: 0, w: 1, h: 1 };
  }

  function draw(id) {
    if (!ensureFonts(id)) return;
    state.layerDraws[id] = (state.layerDraws[id] || 0) + 1;
    const layer = state.layers[id], was = drawn[id], box = layerBox(id, layer), at = boxes[id];
    const reboxed = box.x !== at.x || box.y !== at.y || box.w !== at.w || box.h !== at.h;
    drawn[id] = { layer, size };
    if (was && was.size === size && !reboxed && !offscreen[id] && scrollDraw(id, was.layer, layer)) { state.scrollDraws++; return; }
    if (offscreen[id] && (!was || was.layer !== layer)) chooseCanvas(id);   // (a change: not a redraw for fonts or a size)
    if (reboxed) place(id, box);
    paint(id, layer, box);
  }

  // How many lines a layer of plain lines (no dash, step or area) and clips holds; 0
  // for any other layer.
  function plainLines(cmds) {
    let lines = 0;
    for (const c of cmds) {
      if (c.op === "columns") {
        if (c.step || c.area || (c.dash && c.dash.length)) return 0;
        lines++;
      } else if (c.op !== "clip" && c.op !== "unclip") return 0;
    }
    return lines;
  }

  // Draws a layer whole on the canvas that shows it (placed at `box`).
  function paint(id, layer, box) {
    const lines = offscreen[id] ? 0 : plainLines(layer.commands);
    // (On the series' tiles while they are shown: see tilesOn.)
    if (id === "series" && lines > 0 && tiles.on) {
      tilesOn(null);
      drawOnTiles(layer.commands, wholeStrips(box), box, lineReach(layer.commands));
      return;
    }
    if (id === "series") tilesOff();
    const c = shownCanvas(id), off = c === canvases[id] ? offscreen[id] : null;
    const ctx = (off || c).getContext("2d");
    // An empty layer (most often this viewer's own) is left out of the browser's
    // compositing, which would otherwise blend it over the whole chart on every frame;
    // transparent, not hidden: the modifier canvas still takes the pointer.
    const shown = layer.commands.length > 0 ? "" : "0";
    if (c.style.opacity !== shown) c.style.opacity = shown;
    if (lines > 0) {
      drawStrips(ctx, layer.commands, wholeStrips(box), box, lineReach(layer.commands));
      return;
    }
    ctx.globalAlpha = 1;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, c.width, c.height);
    ctx.setTransform(size.dpr, 0, 0, size.dpr, -box.x, -box.y);
    ctx.lineJoin = "round";
    ctx.lineCap = "butt";
    let clipped = false;
    for (const cmd of layer.commands) {
      switch (cmd.op) {
        case "polyline": {
          const p = cmd.points;
          if (p.length < 4) break;
          stroke(ctx, cmd);
          ctx.beginPath();
          ctx.moveTo(p[0], p[1]);
          for (let i = 2; i < p.length; i += 2) ctx.lineTo(p[i], p[i + 1]);
          ctx.stroke();
          break;
        }
        case "segments": {
          const s = cmd.coords;
          stroke(ctx, cmd);
          ctx.beginPath();
          for (let i = 0; i + 3 < s.length; i += 4) { ctx.moveTo(s[i], s[i + 1]); ctx.lineTo(s[i + 2], s[i + 3]); }
          ctx.stroke();
          break;
        }
        case "columns":
          stroke(ctx, cmd);
          drawColumns(ctx, cmd);
          break;
        case "markers":
          drawMarkers(ctx, cmd, box);
          break;
        case "bars":
          drawBars(ctx, cmd, box);
          break;
        case "wedges":
          drawWedges(ctx, cmd);
          break;
        case "band":
          drawBand(ctx, cmd);
          break;
        case "polygon": {
          const p = cmd.points;
          if (p.length < 6) break;
          if (cmd.gradient) {
            const g = cmd.gradient, lg = ctx.createLinearGradient(g.x0, g.y0, g.x1, g.y1);
            lg.addColorStop(0, cmd.fill);
            lg.addColorStop(1, g.color);
            ctx.fillStyle = lg;
          } else ctx.fillStyle = cmd.fill;
          ctx.beginPath();
          ctx.moveTo(p[0], p[1]);
          for (let k = 2; k < p.length; k += 2) ctx.lineTo(p[k], p[k + 1]);
          ctx.closePath();
          ctx.fill();
          break;
        }
        case "rect":
          if (cmd.fill) { ctx.fillStyle = cmd.fill; ctx.fillRect(cmd.x, cmd.y, cmd.w, cmd.h); }
          if (cmd.stroke) {
            ctx.strokeStyle = cmd.stroke; ctx.lineWidth = cmd.lineWidth; ctx.setLineDash([]);
            ctx.strokeRect(cmd.x + 0.5 / size.dpr, cmd.y + 0.5 / size.dpr, cmd.w - 1 / size.dpr, cmd.h - 1 / size.dpr);
          }
          break;
        case "text":
          ctx.font = cmd.font;
          ctx.fillStyle = cmd.fill;
          ctx.textAlign = cmd.align;
          ctx.textBaseline = cmd.baseline;
          if (cmd.angle) {
            ctx.save();
            ctx.translate(cmd.x, cmd.y);
            ctx.rotate(cmd.angle * Math.PI / 180);
            ctx.fillText(cmd.text, 0, 0);
            ctx.restore();
          } else {
            ctx.fillText(cmd.text, cmd.x, cmd.y);
          }
          break;
        case "clip":
          if (clipped) ctx.restore();
          ctx.save();
          ctx.beginPath();
          ctx.rect(cmd.x, cmd.y, cmd.w, cmd.h);
          ctx.clip();
          clipped = true;
          break;
        case "unclip":
          if (clipped) { ctx.restore(); clipped = false; }
          break;
        case "opacity":
          ctx.globalAlpha = cmd.alpha;
          break;
        case "image": {
          const img = loadedImage(cmd.src, id);
          if (img) ctx.drawImage(img, cmd.x, cmd.y, cmd.w, cmd.h);
          break;
        }
      }
    }
    if (clipped) ctx.restore();
    if (off) c.getContext("bitmaprenderer").transferFromImageBitmap(off.transferToImageBitmap());
  }

  // A layer of plain lines (the series of a line chart) is drawn whole in vertical
  // strips of 128 device pixels that cover its box (each cleared first), as scrollDraw
  // draws what changed: Skia fills the outline of thousands of overlapping column
  // strokes in half the time that way (47 against 23 ms for the live monitoring chart
  // at 1600x900 in software; docs/bench.md).
  function wholeStrips(box) {
    const strips = [];
    for (let a = 0; a < box.w; a += 128) strips.push([a, Math.min(box.w, a + 128)]);
    return strips;
  }
  // How far the layer's strokes reach past their lines, in CSS pixels.
  function lineReach(cmds) {
    let width = 0;
    for (const cmd of cmds) if (cmd.op === "columns") width = Math.max(width, cmd.width);
    return width / 2 + 2 / size.dpr;
  }

  // ---- a scrolled layer, drawn in proportion to what changed -----------------------

  // A patch that moved every line of a layer of plain lines (a chart scrolling) by the
  // same whole number of device pixels: the canvas is shifted by that much, and only
  // the strips where something differs from the shifted base are drawn again (the
  // head and tail entries the patch brought, kept entries the pen now crosses the
  // other way, the plot's edges). A strip's path is every segment whose stroke can
  // reach it, so its pixels are those of a whole redraw but for a few levels of
  // antialiasing at a stroke's edge (docs/protocol.md, "Lines as columns").
  // False when this does not apply: the caller draws the layer whole.
  function scrollDraw(id, old, layer) {
    if (!layer.moved || layer.base !== old.version) return false;
    const cmds = layer.commands, dpr = size.dpr;
    const lines = plainLines(cmds), clip = cmds.findLast((c) => c.op === "clip");
    if (lines === 0 || !old.commands || layer.moved.length === 0 || !clip) return false;
    let move = null, width = 0;
    const dirty = [];
    for (const m of layer.moved) {
      const a = old.commands[m.from], b = cmds[m.at];
      if (!a || !a.pen || a.pen.length !== a.entries.length || m.keepCount === 0) return false;
      // (A whole number of device pixels, to a thousandth: x0 comes as a float32 and, for
      // x in seconds since the epoch, moves by some 1e-5 px between frames; no pixel of
      // a stroke changes by a level for that.)
      const d = ((b.x0 - a.x0) - m.shift * a.dx) * dpr;
      if (Math.abs(d - Math.round(d)) > 1e-3 || (move !== null && Math.round(d) !== move)) return false;
      move = Math.round(d);
      linePens(b);
      width = Math.max(width, b.width);
      const e = b.entries, X = (i) => b.x0 + e[Math.max(0, Math.min(e.length - 1, i))].column * b.dx;
      // (An entry that went stood where the shift took it: its old place, moved.)
      const gone = (i) => a.x0 + a.entries[i].column * a.dx + move / dpr;
      const first = m.head, last = m.head + m.keepCount - 1, end = m.keepFrom + m.keepCount;
      if (first > 0 || m.keepFrom > 0) dirty.push([Math.min(X(0), m.keepFrom > 0 ? gone(0) : Infinity), X(first)]);
      if (last < e.length - 1 || end < a.entries.length) {
        dirty.push([X(last), Math.max(X(e.length - 1), end < a.entries.length ? gone(a.entries.length - 1) : -Infinity)]);
      }
      for (let j = 0; j < m.keepCount; j++) {
        if (b.pen[first + j] !== a.pen[m.keepFrom + j]) dirty.push([X(first + j - 1), X(first + j + 1)]);
      }
    }
    // A line the patch kept as it was stands still: then nothing may move.
    if (lines !== layer.moved.length && move !== 0) return false;
    // The plot's edges: what the shift carries out of the plot, or leaves uncovered
    // (nothing, when nothing moves: then a live chart's frame touches its newest end
    // alone, most often).
    const edge = (Math.abs(move) + 1) / dpr;
    if (move) dirty.push([-Infinity, clip.x + edge], [clip.x + clip.w - edge, Infinity]);
    // Strips in device pixels, widened by how far a stroke reaches, merged.
    // (In the canvas' own device pixels: its box starts at box.x of the chart.)
    // A frame that moves the lines is drawn on the series canvas not shown (its twin,
    // `canvas[data-direct=series]`, made at the first move): the shown one is copied
    // into it, shifted, its strips drawn, and it is shown instead. A canvas copying
    // itself pays for a copy of its whole picture first: 3-4 ms a frame for the plot
    // of a 1600x900 chart, under 1 ms into another (docs/bench.md, "A live page costs
    // by the frame, not by the pixel").
    const shown = shownCanvas(id), box = boxes[id], reach = width / 2 + 2 / dpr;
    const strips = dirty.map(([a, b]) => [Math.max(0, Math.floor((a - reach) * dpr) - box.x), Math.min(shown.width, Math.ceil((b + reach) * dpr) - box.x)])
      .filter(([a, b]) => b > a).sort((p, q) => p[0] - q[0]);
    const merged = [];
    for (const s of strips) {
      const top = merged[merged.length - 1];
      if (top && s[0] <= top[1]) top[1] = Math.max(top[1], s[1]); else merged.push(s.slice());
    }
    if (merged.reduce((n, [a, b]) => n + b - a, 0) > shown.width / 2) return false;
    if (!move && id === "series" && tilesServe()) {
      tilesOn(shown);
      drawOnTiles(cmds, merged, box, reach);
      return true;
    }
    const cv = move ? twin(id, shown) : shown, ctx = cv.getContext("2d");
    if (move) {
      // (From the tiles when the picture is there: each to its place, shifted.)
      copyPicture(ctx, tiles.on ? tiles.list.map((t) => [t.c, t.ox + move]) : [[shown, move]]);
      state.scrollMoves++;
      if (id === "series") tiles.movedAt = performance.now();
    }
    drawStrips(ctx, cmds, merged, box, reach);
    if (cv !== shown) { tilesOff(); show(id, cv); }
    return true;
  }

  // A frame the series layer draws in place (the columns stayed; its strips changed,
  // most often a live chart's newest end) is drawn on tiles: canvases side by side
  // over the layer's box, each TILE device pixels wide, of which only those its strips
  // touch are drawn. They are low-latency ("desynchronized") 2D canvases: the browser
  // sends each one drawn to its compositor as the task that drew it ends, without the
  // page's own frame (style, paint, commit) around it, and sends and composites it
  // whole, at a cost that follows its area. For strips drawn 24 times a second, in %
  // of a core (`bench/browser/canvas_probe.py`, docs/bench.md): a 1499 px 2D canvas,
  // renderer 9.3, GPU process 9.9; the same low-latency, 4.4 and 9.1; a 200 px one,
  // 3.1 and 4.1. (Not the layer's own canvases: a scrolling chart's frame shifts the
  // picture into the twin canvas and shows it, which the page's frame does anyway.)
  // The tiles start at a frame drawn in place, taking the picture from the shown
  // canvas, unless the layer shifted in the last half second (a scrolling chart's
  // frames alternate between shifts and frames in place, and would copy the picture
  // back and forth). While they are shown, whole drawings go to them too; a shift, or
  // a layer that is not plain lines, goes back to the canvases (a shift copies the
  // tiles into the twin) and hides them. Each drawing is whole within one task, so
  // none is seen half done; a tile shown or hidden follows at the page's next frame.
  const TILE = 256;
  const tiles = { list: [], box: null, on: false, movedAt: -Infinity };
  function tilesServe() {
    return tiles.on || performance.now() - tiles.movedAt > 500;
  }
  // Shows the tiles, laid over the layer's box, holding the picture of `shown` (null:
  // none, for a drawing that covers them all).
  function tilesOn(shown) {
    const box = boxes.series;
    if (tiles.on && tiles.box === box) return;
    const n = Math.ceil(box.w / TILE);
    while (tiles.list.length > n) tiles.list.pop().c.remove();
    for (let i = 0; i < n; i++) {
      let t = tiles.list[i];
      if (!t) {
        const c = document.createElement("canvas");
        c.dataset.tile = String(i);
        c.style.pointerEvents = "none";
        c.getContext("2d", { desynchronized: true });
        root.insertBefore(c, canvases.series);
        t = tiles.list[i] = { c, ox: i * TILE };
      }
      fit(t.c, { x: box.x + t.ox, y: box.y, w: Math.min(TILE, box.w - t.ox), h: box.h });
      if (shown) copyPicture(t.c.getContext("2d"), [[shown, -t.ox]]);
      t.c.hidden = false;
    }
    // (Transparent, as an empty layer's: the canvases keep their place and size.)
    shownCanvas("series").style.opacity = "0";
    tiles.box = box;
    tiles.on = true;
  }
  // Draws strips [a, b) of the layer's box (device pixels, sorted) on the tiles they touch.
  function drawOnTiles(cmds, strips, box, reach) {
    for (const t of tiles.list) {
      const mine = strips.map(([a, b]) => [Math.max(a, t.ox) - t.ox, Math.min(b, t.ox + t.c.width) - t.ox]).filter(([a, b]) => b > a);
      if (mine.length === 0) continue;
      drawStrips(t.c.getContext("2d"), cmds, mine, { x: box.x + t.ox, y: box.y, w: t.c.width, h: box.h }, reach);
      state.tileDraws++;
    }
  }
  function tilesOff() {
    if (!tiles.on) return;
    for (const t of tiles.list) t.c.hidden = true;
    tiles.on = false;
  }
  // Replaces the picture on `ctx`'s canvas by those of `from`, [canvas, x] each, drawn
  // at x (in device pixels; the first clears everything it does not cover).
  function copyPicture(ctx, from) {
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = 1;
    ctx.globalCompositeOperation = "copy";
    for (const [c, x] of from) {
      ctx.drawImage(c, x, 0);
      ctx.globalCompositeOperation = "source-over";
    }
    ctx.restore();
  }

  // Clears and draws each strip [a, b) of device pixels of a layer of plain lines in
  // place, inside a clip at its edges, from the segments that reach 16 device pixels
  // either side of it: the pixels beside it stay as they were (the lines' stretches
  // there, columnStretches); `reach`, how far a stroke reaches past its line, in CSS
  // pixels. (Drawn in a scratch canvas and copied, as before, a strip's pixels
  // differed from a whole drawing's in fewer places, by at most 20 levels of 255
  // against 30; the copies cost the page 0.9 ms a draw, docs/bench.md.)
  function drawStrips(ctx, cmds, strips, box, reach) {
    const dpr = size.dpr, height = ctx.canvas.height;
    for (const [a, b] of strips) {
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.globalAlpha = 1;
      ctx.clearRect(a, 0, b - a, height);
      ctx.beginPath();
      ctx.rect(a, 0, b - a, height);
      ctx.clip();
      ctx.setTransform(dpr, 0, 0, dpr, -box.x, -box.y);
      ctx.lineJoin = "round";
      ctx.lineCap = "butt";
      // Segments that reach the drawn stretch, in CSS pixels. (Past the canvas' edges
      // too: a line going on beyond the plot, or onto the next tile, joins there as
      // it does drawn whole.)
      const lo = (a - 16 + box.x) / dpr - reach, hi = (b + 16 + box.x) / dpr + reach;
      let clips = 0;
      for (const c of cmds) {
        if (c.op === "clip") { ctx.save(); clips++; ctx.beginPath(); ctx.rect(c.x, c.y, c.w, c.h); ctx.clip(); }
        else if (c.op === "unclip") { if (clips) { ctx.restore(); clips--; } }
        else {
          stroke(ctx, c);
          if (barsFit(c)) { drawLineWithBars(ctx, c, lo, hi); continue; }
          ctx.beginPath();
          // (x never decreases along a stretch: the segments that reach it follow one
          // another, from the first whose end is at lo or after, found by halving.)
          for (const s of columnStretches(c, lo, hi)) {
            let k = 2, top = s.length;
            while (k < top) { const mid = k + (((top - k) >> 2) << 1); if (s[mid] < lo) k = mid + 2; else top = mid; }
            if (k >= s.length || s[k - 2] > hi) continue;
            ctx.moveTo(s[k - 2], s[k - 1]);
            for (; k < s.length && s[k - 2] <= hi; k += 2) ctx.lineTo(s[k], s[k + 1]);
          }
          ctx.stroke();
        }
      }
      while (clips--) ctx.restore();
      ctx.restore();
    }
  }

  // A dense line's columns as bars. A stroke wider than a device pixel costs the
  // browser's rasterizer dearly where a line runs up and down every column: 11 ms for a
  // 10^7-point walk at 1600 px drawn at 1.5 px, where the same columns filled as
  // rectangles cost 2-3 (docs/bench.md, "Dense columns as bars"). So an entry that
  // spans at least BAR_SPAN device pixels is filled as a bar, the line's width wide,
  // reaching half of it past its ends (as the stroke's join does, square where the
  // join is round); the step from such an entry to one in the next column is the two
  // bars reaching to its middle, one from each side. Everything else (sparse
  // stretches, joins across empty columns, small steps) is stroked as before, in one
  // path, so its joins are as they were; a stroke ends inside the bar it meets. Only
  // for an opaque colour: bars and strokes overlap, which a translucent one would show.
  const BAR_SPAN = 2;
  // (#rgb, #rrggbb, or rgb() with three numbers and no alpha: a colour that may be
  // translucent, #rrggbbaa or rgba() among them, is stroked.)
  const OPAQUE = /^(#[0-9a-f]{3}|#[0-9a-f]{6}|rgb\(\s*[\d.]+%?\s*,\s*[\d.]+%?\s*,\s*[\d.]+%?\s*\))$/i;
  function barsFit(c) {
    return c.width * size.dpr > 1 && !c.step && OPAQUE.test(c.stroke);
  }
  function drawLineWithBars(ctx, c, lo, hi) {
    const e = c.entries, x0 = c.x0, dx = c.dx, y0 = c.y0, dy = c.dy, w = c.width;
    const pen = linePens(c), span = BAR_SPAN / (Math.abs(dy) * size.dpr);
    const [from, to] = entriesReaching(c, lo, hi);
    const bars = [];
    let penX = NaN, penY = NaN;
    const seg = (xa, ya, xb, yb) => {
      if (xa !== penX || ya !== penY) ctx.moveTo(xa, ya);
      ctx.lineTo(xb, yb);
      penX = xb; penY = yb;
    };
    ctx.beginPath();
    let wasBar = false;
    for (let i = from; i < to; i++) {
      const q = e[i], x = x0 + q.column * dx, bar = q.hi - q.lo >= span;
      const yLo = y0 + q.lo * dy, yHi = y0 + q.hi * dy, yA = pen[i] ? yLo : yHi, yB = pen[i] ? yHi : yLo;
      let top = Math.min(yLo, yHi), bottom = Math.max(yLo, yHi);
      if (i > from && q.joined) {
        const p = e[i - 1], xp = x0 + p.column * dx, exit = y0 + (pen[i - 1] ? p.hi : p.lo) * dy;
        if (q.column > p.column + 1) {
          const yLast = y0 + p.last * dy, yFirst = y0 + q.first * dy;
          if (!wasBar) seg(xp, exit, xp, yLast);
          seg(xp, yLast, x, yFirst);
          if (!bar) seg(x, yFirst, x, yA);
        } else if (bar && wasBar) {
          // The step between two bars: each reaches to its middle, where the stroke
          // crosses from one column to the next.
          const mid = (exit + yA) / 2, b = bars.length;
          bars[b - 2] = Math.min(bars[b - 2], mid); bars[b - 1] = Math.max(bars[b - 1], mid);
          top = Math.min(top, mid); bottom = Math.max(bottom, mid);
        } else seg(xp, exit, x, yA);
      } else if (!bar) {
        const yFirst = y0 + q.first * dy;
        seg(x, yFirst, x, yA);
      }
      if (bar) bars.push(x, top, bottom);
      else seg(x, yA, x, yB);
      wasBar = bar;
    }
    ctx.stroke();
    ctx.fillStyle = c.stroke;
    for (let k = 0; k < bars.length; k += 3) {
      if (bars[k] < lo - w || bars[k] > hi + w) continue;
      ctx.fillRect(bars[k] - w / 2, bars[k + 1] - w / 2, w, bars[k + 2] - bars[k + 1] + w);
      state.bars++;
    }
  }

  // The canvas of `id` not shown, placed and sized as `shown` is, at its layer's box
  // (its bitmap kept when it already has that size): the layer's canvas or its direct one.
  function twin(id, shown) {
    const d = direct(id), t = shown === d ? canvases[id] : d;
    fit(t, boxes[id]);
    return t;
  }
  // Shows `c`, the layer's canvas or its direct one, in place of the other (the layer's
  // is made transparent, not hidden: the modifier's still takes the pointer).
  function show(id, c) {
    const d = directCanvas[id];
    clearTimeout(releasing[id]);
    c.style.opacity = "";
    d.hidden = c !== d;
    if (c === d) canvases[id].style.opacity = "0";
  }

  // Markers (docs/protocol.md, "markers"): one marker is drawn once into a sprite at
  // device resolution, then stamped at every cell. Cells are device-pixel centres and
  // the sprite's side is odd, so stamps land on whole pixels and are all alike.
  const sprites = new Map();
  function sprite(m) {
    const dpr = size.dpr;
    const key = [m.shape, m.size, m.fill, m.stroke, m.lineWidth, dpr].join("|");
    let s = sprites.get(key);
    if (s) return s;
    const lw = m.stroke ? (m.lineWidth || 1) * dpr : 0, r = m.size / 2 * dpr;
    const side = 2 * Math.ceil(r + lw / 2) + 1, c = side / 2;
    s = document.createElement("canvas");
    s.width = s.height = side;
    const g = s.getContext("2d");
    g.beginPath();
    switch (m.shape) {
      case "circle": g.arc(c, c, r, 0, 2 * Math.PI); break;
      case "square": g.rect(c - r, c - r, 2 * r, 2 * r); break;
      case "triangle": g.moveTo(c, c - r); g.lineTo(c + r, c + r); g.lineTo(c - r, c + r); g.closePath(); break;
      case "diamond": g.moveTo(c, c - r); g.lineTo(c + r, c); g.lineTo(c, c + r); g.lineTo(c - r, c); g.closePath(); break;
      case "cross": g.moveTo(c - r, c); g.lineTo(c + r, c); g.moveTo(c, c - r); g.lineTo(c, c + r); break;
    }
    if (m.fill && m.shape !== "cross") { g.fillStyle = m.fill; g.fill(); }
    if (m.stroke) { g.strokeStyle = m.stroke; g.lineWidth = lw; g.stroke(); }
    if (sprites.size > 64) sprites.clear();
    sprites.set(key, s);
    return s;
  }
  function drawMarkers(ctx, m, box) {
    const s = sprite(m), dpr = size.dpr, half = s.width / 2, cells = m.cells;
    const X0 = m.x0 * dpr - half, Y0 = m.y0 * dpr - half, step = m.unit * dpr;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, -box.x, -box.y);
    for (let i = 0; i + 1 < cells.length; i += 2) ctx.drawImage(s, X0 + cells[i] * step, Y0 + cells[i + 1] * step);
    ctx.restore();
  }

  // Bars (docs/protocol.md, "bars"): rectangles on whole device pixels.
  function drawBars(ctx, b, box) {
    const dpr = size.dpr, X0 = Math.round(b.x0 * dpr), Y0 = Math.round(b.y0 * dpr), step = b.unit * dpr, r = b.bars;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, -box.x, -box.y);
    ctx.fillStyle = b.fill;
    for (let i = 0; i + 3 < r.length; i += 4) ctx.fillRect(X0 + r[i] * step, Y0 + r[i + 2] * step, r[i + 1] * step, r[i + 3] * step);
    if (b.stroke) {
      const lw = (b.lineWidth || 1) * dpr;
      ctx.strokeStyle = b.stroke; ctx.lineWidth = lw; ctx.setLineDash([]);
      for (let i = 0; i + 3 < r.length; i += 4) {
        if (r[i + 1] * step <= lw || r[i + 3] * step <= lw) continue;  // too thin to outline
        ctx.strokeRect(X0 + r[i] * step + lw / 2, Y0 + r[i + 2] * step + lw / 2, r[i + 1] * step - lw, r[i + 3] * step - lw);
      }
    }
    ctx.restore();
  }

  // A line reduced to device-pixel columns (docs/protocol.md, "columns"): each entry
  // is a vertical stroke from lo to hi at its column; joined entries continue the line,
  // across empty columns from the previous entry's last value to this one's first (a
  // step line: horizontally at the previous last value, then up or down to this first).
  // An area fills each stretch closed down to its baseline, under the line.

  // Which way the pen crosses each entry of a line that is not a step line (1: lo
  // first): toward the extreme nearer where it stands, so a column's stroke starts
  // where the line came in. Kept on the command; scrollDraw compares a frame's with its
  // base's.
  function linePens(c) {
    const e = c.entries, n = e.length;
    if (c.pen && c.pen.length === n) return c.pen;
    const pen = c.pen = new Uint8Array(n), y0 = c.y0, dy = c.dy;
    if (c.step) return pen;
    let penY = 0;
    for (let i = 0; i < n; i++) {
      const q = e[i];
      if (i === 0 || !q.joined || q.column > e[i - 1].column + 1) penY = y0 + q.first * dy;
      const lo = y0 + q.lo * dy, hi = y0 + q.hi * dy;
      if (Math.abs(penY - lo) <= Math.abs(penY - hi)) { penY = hi; pen[i] = 1; } else penY = lo;
    }
    return pen;
  }

  // The entries [from, to) of a line whose segments meet [lo, hi] (CSS pixels): those
  // whose x is in it, and two either side.
  function entriesReaching(c, lo, hi) {
    const e = c.entries, n = e.length, x0 = c.x0, dx = c.dx;
    // The first entry whose x is past `x` (at or past it, with `at`).
    const past = (x, at) => {
      let a = 0, b = n;
      while (a < b) {
        const m = (a + b) >> 1, xm = x0 + e[m].column * dx;
        if (xm < x || (!at && xm === x)) a = m + 1; else b = m;
      }
      return a;
    };
    let from = 0, to = n;
    if (dx > 0 && lo > -Infinity) from = Math.max(0, past(lo, true) - 2);
    if (dx > 0 && hi < Infinity) to = Math.min(n, past(hi, false) + 2);
    return [from, to];
  }

  // The stretches of a line as flat x,y arrays (CSS pixels), x never decreasing along
  // one: every segment whose x span meets [lo, hi] (all of them by default) is in one,
  // with the segments before and after it in the same stretch, from a point or two
  // left of lo to one or two right of hi. So a strip at the newest end of a live chart
  // costs its few columns, not the line's thousands (this was the live page's busiest
  // function; docs/bench.md), and the segments a strip draws, their order and their
  // points, are those of the whole line's stretches.
  function columnStretches(c, lo = -Infinity, hi = Infinity) {
    const e = c.entries, x0 = c.x0, dx = c.dx, y0 = c.y0, dy = c.dy, step = c.step;
    const pen = linePens(c);
    const [from, to] = entriesReaching(c, lo, hi);
    // An entry adds at most a start (2 numbers) or a join (4), and its own stroke (4; a
    // step line's, 6). (Where this begins partway, the stretch begins at `from`: the
    // segments before it end left of lo.)
    const buf = new Float64Array(Math.max(0, to - from) * (step ? 10 : 8)), out = [];
    let k = 0, start = 0;
    for (let i = from; i < to; i++) {
      const q = e[i], x = x0 + q.column * dx;
      if (i > 0 && q.joined) {
        const p = e[i - 1];
        if (step) { buf[k++] = x; buf[k++] = y0 + p.last * dy; buf[k++] = x; buf[k++] = y0 + q.first * dy; }
        else if (q.column > p.column + 1) {
          buf[k++] = x0 + p.column * dx; buf[k++] = y0 + p.last * dy; buf[k++] = x; buf[k++] = y0 + q.first * dy;
        }
      } else {
        if (k > start) out.push(buf.subarray(start, k));
        start = k;
        buf[k++] = x; buf[k++] = y0 + q.first * dy;
      }
      const yLo = y0 + q.lo * dy, yHi = y0 + q.hi * dy;
      if (step) { buf[k++] = x; buf[k++] = yLo; buf[k++] = x; buf[k++] = yHi; buf[k++] = x; buf[k++] = y0 + q.last * dy; }
      else if (pen[i]) { buf[k++] = x; buf[k++] = yLo; buf[k++] = x; buf[k++] = yHi; }
      else { buf[k++] = x; buf[k++] = yHi; buf[k++] = x; buf[k++] = yLo; }
    }
    if (k > start) out.push(buf.subarray(start, k));
    return out;
  }

  function drawColumns(ctx, c) {
    const stretches = columnStretches(c);
    if (c.area) {
      const base = c.y0 + c.area.base * c.dy;
      if (c.area.gradient) {
        const g = ctx.createLinearGradient(0, c.y0 + c.area.top * c.dy, 0, base);
        g.addColorStop(0, c.area.fill);
        g.addColorStop(1, c.area.gradient);
        ctx.fillStyle = g;
      } else ctx.fillStyle = c.area.fill;
      ctx.beginPath();
      for (const s of stretches) {
        ctx.moveTo(s[0], base);
        for (let k = 0; k < s.length; k += 2) ctx.lineTo(s[k], s[k + 1]);
        ctx.lineTo(s[s.length - 2], base);
        ctx.closePath();
      }
      ctx.fill();
    }
    ctx.beginPath();
    for (const s of stretches) {
      ctx.moveTo(s[0], s[1]);
      for (let k = 2; k < s.length; k += 2) ctx.lineTo(s[k], s[k + 1]);
    }
    ctx.stroke();
  }

  // The fill between a band's two lines (docs/protocol.md, "band"): under line a,
  // clipped to above line b, in fill; under b, clipped to above a, in fillY1.
  function drawBand(ctx, c) {
    const A = columnStretches(c.a), B = columnStretches(c.b);
    const region = (stretches, edge) => {
      for (const s of stretches) {
        ctx.moveTo(s[0], edge);
        for (let k = 0; k < s.length; k += 2) ctx.lineTo(s[k], s[k + 1]);
        ctx.lineTo(s[s.length - 2], edge);
        ctx.closePath();
      }
    };
    for (const [under, above, fill] of [[A, B, c.fill], [B, A, c.fillY1]]) {
      ctx.save();
      ctx.beginPath(); region(above, c.top); ctx.clip();
      ctx.beginPath(); region(under, c.bottom);
      ctx.fillStyle = fill; ctx.fill();
      ctx.restore();
    }
  }

  // Pie and donut slices (docs/protocol.md, "wedges"): angles clockwise from 12
  // o'clock; a slice with an offset is pushed out along its middle angle.
  function drawWedges(ctx, c) {
    for (const w of c.wedges) {
      const mid = (w.a0 + w.a1) / 2;
      const cx = c.cx + w.offset * Math.sin(mid), cy = c.cy - w.offset * Math.cos(mid);
      ctx.beginPath();
      ctx.arc(cx, cy, c.r1, w.a0 - Math.PI / 2, w.a1 - Math.PI / 2);
      if (c.r0 > 0) ctx.arc(cx, cy, c.r0, w.a1 - Math.PI / 2, w.a0 - Math.PI / 2, true);
      else ctx.lineTo(cx, cy);
      ctx.closePath();
      ctx.fillStyle = w.fill;
      ctx.fill();
      if (c.stroke) { ctx.strokeStyle = c.stroke; ctx.lineWidth = c.lineWidth; ctx.setLineDash([]); ctx.stroke(); }
    }
  }

  function stroke(ctx, cmd) {
    ctx.strokeStyle = cmd.stroke;
    ctx.lineWidth = cmd.width;
    ctx.setLineDash(cmd.dash || []);
  }

  // ---- input: forwarded as it is, in CSS pixels relative to the canvas ----------

  function pos(ev) {
    const r = input.getBoundingClientRect();
    return { x: ev.clientX - r.left, y: ev.clientY - r.top };
  }

  function pointer(phase, ev) {
    const p = pos(ev);
    const msg = { type: "pointer", phase, x: p.x, y: p.y, button: ev.button, buttons: ev.buttons,
                  pointerId: ev.pointerId, pointerType: ev.pointerType || "mouse",
                  shift: ev.shiftKey, ctrl: ev.ctrlKey, alt: ev.altKey, time: Math.round(ev.timeStamp) };
    if (phase === "move") return sendMove(msg, ev);
    // A press, a release or a cancel goes after the move it follows, and starts the
    // count afresh: a drag's first move is not held back by a hover earlier in the frame.
    flushMove();
    moveSentThisFrame = false;
    send(msg);
  }

  // Pointer moves: at most one message per animation frame, and the first of a frame
  // leaves at once (not on the next animation frame: that would add up to a frame of
  // delay to every drag step). Moves that come after it in the same frame are held,
  // the newest replacing the older, and sent when the next animation frame begins.
  let heldMove = null, moveSentThisFrame = false, moveFrameAsked = false;
  function sendMove(msg, ev) {
    if (moveSentThisFrame) { heldMove = [msg, ev]; return; }
    moveSentThisFrame = true;
    sendMoveNow(msg, ev);
    if (!moveFrameAsked) { moveFrameAsked = true; requestAnimationFrame(nextMoveFrame); }
  }
  function nextMoveFrame() {
    moveFrameAsked = false;
    moveSentThisFrame = false;
    if (heldMove) { const [msg, ev] = heldMove; heldMove = null; sendMove(msg, ev); }
  }
  function flushMove() {
    if (heldMove) { const [msg, ev] = heldMove; heldMove = null; sendMoveNow(msg, ev); }
  }
  // A drag's moves expect a frame (a press alone changes nothing, a hover neither).
  function sendMoveNow(msg, ev) { if (ev.buttons) sendInput(msg, ev); else send(msg); }

  input.addEventListener("pointerdown", (ev) => { input.setPointerCapture(ev.pointerId); pointer("down", ev); });
  // Moves are taken from `pointerrawupdate` where the browser sends it (Chromium, on
  // https or localhost): it comes as the device reports a move, while `pointermove`
  // waits for the page's next animation frame (headless Chromium on a page that draws:
  // 0.5 ms from the event's time stamp against 7 to 17 ms; docs/bench.md). A pointer
  // type that has sent raw updates has its `pointermove`s ignored, so no move goes twice.
  const rawMoves = new Set();
  input.addEventListener("pointerrawupdate", (ev) => { rawMoves.add(ev.pointerType); pointer("move", ev); });
  input.addEventListener("pointermove", (ev) => { if (!rawMoves.has(ev.pointerType)) pointer("move", ev); });
  input.addEventListener("pointerup", (ev) => pointer("up", ev));
  input.addEventListener("pointercancel", (ev) => pointer("cancel", ev));
  // A long press is the server's (a cursor, a rollover on touch): no context menu.
  input.addEventListener("contextmenu", (ev) => ev.preventDefault());
  // A mouse leaving the canvas with no button down: its hover ends (a rollover goes).
  input.addEventListener("pointerleave", (ev) => {
    if (!ev.buttons && ev.pointerType !== "touch") pointer("cancel", ev);
    pointerOver = false;
    for (const id of Object.keys(directCanvas)) if (directCanvas[id].hidden) release(id);
  });
  input.addEventListener("pointerover", ready);
  input.addEventListener("wheel", (ev) => {
    if (!consumes.has("wheel")) return;   // the page scrolls
    ev.preventDefault();
    if (ev.deltaX === 0 && ev.deltaY === 0) return;   // moves nothing (WebDriver scrolls into view with one)
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? size.height : 1;   // lines, pages -> pixels
    const p = pos(ev);
    sendInput({ type: "wheel", x: p.x, y: p.y, deltaX: ev.deltaX * unit, deltaY: ev.deltaY * unit,
                shift: ev.shiftKey, ctrl: ev.ctrlKey, alt: ev.altKey, time: Math.round(ev.timeStamp) }, ev);
  }, { passive: false });
  input.addEventListener("dblclick", (ev) => {
    const p = pos(ev);
    send({ type: "dblclick", x: p.x, y: p.y, time: Math.round(ev.timeStamp) });
  });

  // ---- size ---------------------------------------------------------------------

  let resizePending = false;
  function checkSize() {
    if (resizePending) return;
    resizePending = true;
    requestAnimationFrame(() => {
      resizePending = false;
      const next = measure();
      if (next.width === size.width && next.height === size.height && next.dpr === size.dpr) return;
      size = next;
      state.size = size;
      sizeCanvases();
      send({ type: "resize", width: size.width, height: size.height, dpr: size.dpr });
    });
  }
  new ResizeObserver(checkSize).observe(root);
  // The device pixel ratio changes without a resize when the page is zoomed or moved
  // to another screen; listen for the current ratio, then re-arm for the new one.
  (function watchRatio() {
    matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`)
      .addEventListener("change", () => { checkSize(); watchRatio(); }, { once: true });
  })();

  sizeCanvases();
  return {
    state, hello, onText, onFrame, decodeFrame,
    fontsLoaded() { state.fontsReady = true; for (const id in state.layers) dirty.add(id); scheduleDraw(); },
  };
  }

  // ---- the download menu: the chart as an image, its data as CSV or JSON ----------

  // The server renders images and writes data (docs/export.md); the menu only links to
  // them, sized as the chart is shown now, with the page's token. Keyboard: Enter or
  // Space opens it on its first item, arrows move, Escape closes it back to the button.
  const EXPORTS = [["PNG", "image.png", "PNG image"], ["SVG", "image.svg", "SVG image"], ["PDF", "image.pdf", "PDF document"],
                   ["CSV", "data.csv", "data as CSV"], ["JSON", "data.json", "data as JSON"]];
  let menus = 0;
  function downloadMenu(parent, sessionOf, sizeOf) {
    const n = ++menus;
    const box = document.createElement("div");
    box.className = "export";
    const button = document.createElement("button");
    button.type = "button";
    button.className = "export-button";
    button.id = "export-button-" + n;
    button.title = "Download";
    button.setAttribute("aria-label", "Download");
    button.setAttribute("aria-haspopup", "menu");
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", "export-menu-" + n);
    button.textContent = "\u2913";
    const menu = document.createElement("ul");
    menu.className = "export-menu";
    menu.id = "export-menu-" + n;
    menu.setAttribute("role", "menu");
    menu.setAttribute("aria-labelledby", button.id);
    menu.hidden = true;
    const items = EXPORTS.map(([label, file, what]) => {
      const li = document.createElement("li");
      li.setAttribute("role", "none");
      const a = document.createElement("a");
      a.setAttribute("role", "menuitem");
      a.dataset.format = label.toLowerCase();
      a.tabIndex = -1;
      a.textContent = label;
      a.title = "Download the chart's " + what;
      a.addEventListener("click", () => close(true));
      li.append(a);
      menu.append(li);
      return { a, file };
    });
    function hrefs() {
      const s = sizeOf() || { width: 800, height: 500, dpr: window.devicePixelRatio || 1 }, session = encodeURIComponent(sessionOf());
      const t = token ? "token=" + encodeURIComponent(token) : "";
      for (const { a, file } of items) {
        const q = file.startsWith("image.") ? "width=" + s.width + "&height=" + s.height + "&dpr=" + s.dpr + (t ? "&" + t : "") : t;
        a.href = base + "api/sessions/" + session + "/" + file + (q ? "?" + q : "");
        a.download = sessionOf() + (file.startsWith("image.") ? "" : "-data") + file.slice(file.indexOf("."));
      }
    }
    function open() {
      hrefs();
      menu.hidden = false;
      button.setAttribute("aria-expanded", "true");
      items[0].a.focus();
    }
    function close(refocus) {
      if (menu.hidden) return;
      menu.hidden = true;
      button.setAttribute("aria-expanded", "false");
      if (refocus) button.focus();
    }
    button.addEventListener("click", () => (menu.hidden ? open() : close(true)));
    menu.addEventListener("keydown", (ev) => {
      const i = items.findIndex((it) => it.a === document.activeElement);
      const go = (k) => { ev.preventDefault(); items[(k + items.length) % items.length].a.focus(); };
      if (ev.key === "ArrowDown") go(i + 1);
      else if (ev.key === "ArrowUp") go(i - 1);
      else if (ev.key === "Home") go(0);
      else if (ev.key === "End") go(items.length - 1);
      else if (ev.key === "Escape") { ev.preventDefault(); close(true); }
      else if (ev.key === "Tab") close(false);
      else if (ev.key === " ") { ev.preventDefault(); document.activeElement.click(); }
    });
    document.addEventListener("pointerdown", (ev) => { if (!box.contains(ev.target)) close(false); });
    box.append(button, menu);
    parent.append(box);
    return box;
  }

  // ---- the connection: one WebSocket for every chart on the page ------------------

  function connect() {
    clearTimeout(reconnectTimer);
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const target = dashboardId === null ? encodeURIComponent(sessionId) : "d/" + encodeURIComponent(dashboardId);
    ws = new WebSocket(proto + "//" + location.host + base + "ws/" + target, "chartwire.v1");
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      backoff = 500;
      setConn("connected", true);
      setStatus("live", "live");
      // A dashboard's charts say hello once its grid has come (the first message).
      if (dashboardId === null) charts[0].hello();
    };
    ws.onmessage = (ev) => {
      lastMessage = Date.now();
      if (typeof ev.data === "string") { onText(JSON.parse(ev.data)); return; }
      setConn("bytes", conn.bytes + ev.data.byteLength);
      if (dashboardId === null) { charts[0].onFrame(charts[0].decodeFrame(new DataView(ev.data))); return; }
      // A dashboard's frame: "CWD", the chart's index, then the frame.
      const chart = charts[new DataView(ev.data).getUint8(3)];
      if (chart) chart.onFrame(chart.decodeFrame(new DataView(ev.data, 4)));
    };
    // (The close code tells a server going away, 1001, from a network that dropped.)
    ws.onclose = (ev) => { setConn("lastClose", ev.code); dropped(); };
    ws.onerror = () => { /* onclose follows and schedules the retry */ };
  }

  function onText(msg) {
    if (msg.type === "dashboard") { buildDashboard(msg); return; }
    if (msg.type === "heartbeat") return;
    const chart = dashboardId === null ? charts[0] : charts[msg.chart];
    if (chart) chart.onText(msg);
    else if (msg.type === "error") console.warn("chartwire:", msg.code, msg.message);
  }

  function dropped() {
    if (ws) { ws.onclose = ws.onmessage = ws.onopen = null; ws.close(); }
    setConn("connected", false);
    ws = null;
    const delay = Math.min(backoff, 10000) * (0.75 + Math.random() * 0.5);
    backoff = Math.min(backoff * 2, 10000);
    setConn("reconnects", conn.reconnects + 1);
    setStatus("reconnecting", "reconnecting");
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(connect, delay);
  }

  setInterval(() => {
    if (ws && conn.connected && heartbeat > 0 && Date.now() - lastMessage > 3 * heartbeat * 1000) {
      setConn("stale", conn.stale + 1);
      dropped();
    }
  }, 250);

  // A dashboard's grid (the first message on its connection): a cell per chart, each
  // with its title and canvases; then every chart says hello. Sent again after a
  // reconnect: the grid is kept when it is the same.
  function buildDashboard(msg) {
    const same = board.layout && JSON.stringify(board.layout) === JSON.stringify(msg);
    if (!same) {
      board.layout = msg;
      document.getElementById("title").textContent = msg.title;
      document.title = msg.title + " · ChartWire";
      main.replaceChildren();
      main.style.gridTemplateColumns = "repeat(" + msg.columns + ", minmax(0, 1fr))";
      // The rows share the window's height (each at least its rowHeight, or 200 px when
      // that is less), so every chart is whole on the screen; a smaller window scrolls.
      const cells = msg.charts.reduce((n, c) => n + Math.min(c.columnSpan, msg.columns) * c.rowSpan, 0);
      const rows = Math.max(1, Math.ceil(cells / msg.columns));
      main.style.gridTemplateRows = "repeat(" + rows + ", minmax(" + Math.min(msg.rowHeight, 200) + "px, 1fr))";
      main.style.gridAutoRows = msg.rowHeight + "px";
      charts = msg.charts.map((c, i) => {
        const cell = document.createElement("section");
        cell.className = "cell";
        cell.style.gridColumn = "span " + c.columnSpan;
        cell.style.gridRow = "span " + c.rowSpan;
        // The chart draws its own title: the cell has only a small link to the
        // session's page, named by the session's title (not shown twice).
        const title = document.createElement("span");
        title.className = "name";
        title.textContent = c.title;
        const link = document.createElement("a");
        link.className = "open";
        link.href = base + "s/" + encodeURIComponent(c.session) + location.search;
        link.title = "Open " + c.title;
        link.append("\u2197", title);
        const plot = document.createElement("div");
        plot.className = "plot";
        cell.append(link, plot);
        main.append(cell);
        const chart = createChart(plot, i, title);
        chart.state.session = c.session;
        downloadMenu(cell, () => c.session, () => chart.state.size).classList.add("cell-export");
        return chart;
      });
      board.charts = charts.map((c) => c.state);
      if (fontsReady) for (const c of charts) c.fontsLoaded();
    }
    for (const c of charts) c.hello();
  }

  if (dashboardId === null) {
    charts = [createChart(main, 0, document.getElementById("title"))];
    window.chartwire = charts[0].state;
    // In the page's header, outside the chart; a page without one (a chrome-less
    // embedding) has no menu.
    const header = document.querySelector("header");
    if (header) downloadMenu(header, () => sessionId, () => charts[0].state.size);
  } else {
    window.chartwire = board;
  }
  // Connect at once, and draw once the chart font is loaded (the server measured text
  // with it); the page's <link rel=preload> started loading it before this script ran.
  connect();
  Promise.all([document.fonts.load('12px "ChartWire Sans"'), document.fonts.load('bold 12px "ChartWire Sans"')])
    .catch(() => {}).then(() => { fontsReady = true; board.fontsReady = true; for (const c of charts) c.fontsLoaded(); });
})();
