// ChartWire thin client: draws the display lists the server sends and forwards
// gestures. It holds the last layers it was sent and nothing else: no chart logic.
"use strict";

(function () {
  const LAYERS = ["background", "series", "overlay"];   // bottom to top; codes 0, 1, 2
  const ALIGN = ["left", "center", "right"];
  const BASELINE = ["alphabetic", "top", "middle", "bottom"];
  const sessionId = decodeURIComponent(location.pathname.split("/")[2] || "");
  const root = document.getElementById("chart");
  const statusEl = document.getElementById("status");

  // One canvas per layer, so a frame redraws only the layers it carries.
  const canvases = {};
  for (const id of LAYERS) {
    const c = document.createElement("canvas");
    c.dataset.layer = id;
    root.appendChild(c);
    canvases[id] = c;
  }
  const input = canvases.overlay;

  // State visible to tests and curious users (window.chartwire).
  const state = { session: sessionId, connected: false, frames: 0, layers: {}, welcome: null, errors: [], reconnects: 0, stale: 0 };
  window.chartwire = state;

  let ws = null, size = measure(), backoff = 500, reconnectTimer = null;
  // The server sends a heartbeat after `heartbeat` seconds of silence (announced in
  // welcome); three missed in a row mean the connection is dead even if the socket
  // never said so (a network that vanished), and the client reconnects.
  let heartbeat = 0, lastMessage = 0;

  function measure() {
    const r = root.getBoundingClientRect();
    return { width: Math.max(1, Math.floor(r.width)), height: Math.max(1, Math.floor(r.height)),
             dpr: window.devicePixelRatio || 1 };
  }

  function setStatus(text, cls) { statusEl.textContent = text; statusEl.className = "status " + cls; }

  function sizeCanvases() {
    for (const id of LAYERS) {
      const c = canvases[id];
      c.style.width = size.width + "px";
      c.style.height = size.height + "px";
      c.width = Math.round(size.width * size.dpr);
      c.height = Math.round(size.height * size.dpr);
      if (state.layers[id]) draw(id);
    }
  }

  function send(msg) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  }

  // ---- connection -------------------------------------------------------------

  function connect() {
    clearTimeout(reconnectTimer);
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws/" + encodeURIComponent(sessionId), "chartwire.v1");
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      backoff = 500;
      state.connected = true;
      setStatus("live", "live");
      send({ type: "hello", width: size.width, height: size.height, dpr: size.dpr });
    };
    ws.onmessage = (ev) => {
      lastMessage = Date.now();
      if (typeof ev.data === "string") onText(JSON.parse(ev.data));
      else onFrame(decodeFrame(new DataView(ev.data)));
    };
    ws.onclose = () => dropped();
    ws.onerror = () => { /* onclose follows and schedules the retry */ };
  }

  function dropped() {
    if (ws) { ws.onclose = ws.onmessage = ws.onopen = null; ws.close(); }
    state.connected = false;
    ws = null;
    const delay = Math.min(backoff, 10000) * (0.75 + Math.random() * 0.5);
    backoff = Math.min(backoff * 2, 10000);
    state.reconnects++;
    setStatus("reconnecting", "reconnecting");
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(connect, delay);
  }

  setInterval(() => {
    if (ws && state.connected && heartbeat > 0 && Date.now() - lastMessage > 3 * heartbeat * 1000) {
      state.stale++;
      dropped();
    }
  }, 250);

  function onText(msg) {
    if (msg.type === "welcome") {
      state.welcome = msg;
      heartbeat = msg.heartbeat || 0;
      document.getElementById("title").textContent = msg.title;
      document.title = msg.title + " · ChartWire";
    } else if (msg.type === "error") {
      state.errors.push(msg);
      console.warn("chartwire:", msg.code, msg.message);
    } else if (msg.type === "frame") {
      onFrame(msg);
    }   // "heartbeat": nothing to do; its arrival was noted
  }

  function onFrame(frame) {
    state.frames++;
    for (const layer of frame.layers) {
      state.layers[layer.id] = layer;
      draw(layer.id);
    }
  }

  // ---- binary frames (docs/protocol.md) -----------------------------------------

  function decodeFrame(v) {
    let o = 0;
    const u8 = () => v.getUint8(o++);
    const u16 = () => { const x = v.getUint16(o, true); o += 2; return x; };
    const u32 = () => { const x = v.getUint32(o, true); o += 4; return x; };
    const f32 = () => { const x = v.getFloat32(o, true); o += 4; return x; };
    const f32s = (n) => { const a = new Float32Array(n); for (let i = 0; i < n; i++) a[i] = f32(); return a; };
    const utf8 = new TextDecoder();

    if (u32() !== 0x31465743) throw new Error("not a ChartWire frame");   // "CWF1"
    const frame = { width: u16(), height: u16(), dpr: f32(), layers: [] };
    const count = u8(); o += 3;
    for (let l = 0; l < count; l++) {
      const id = LAYERS[u8()]; o += 3;
      const version = u32();
      const end = u32() + o;
      const strings = [];
      for (let n = u16(), i = 0; i < n; i++) {
        const len = u16();
        strings.push(utf8.decode(new Uint8Array(v.buffer, v.byteOffset + o, len)));
        o += len;
      }
      const str = () => strings[u16()];
      const commands = [];
      for (let n = u32(), i = 0; i < n; i++) {
        const op = u8();
        if (op === 1 || op === 2) {
          const stroke = str(), width = f32(), dash = Array.from(f32s(u8()));
          const items = u32();
          const coords = f32s(items * (op === 1 ? 2 : 4));
          commands.push(op === 1 ? { op: "polyline", points: coords, stroke, width, dash }
                                 : { op: "segments", coords, stroke, width, dash });
        } else if (op === 3) {
          const flags = u8();
          const c = { op: "rect", x: f32(), y: f32(), w: f32(), h: f32() };
          if (flags & 1) c.fill = str();
          if (flags & 2) { c.stroke = str(); c.lineWidth = f32(); }
          commands.push(c);
        } else if (op === 4) {
          const x = f32(), y = f32(), angle = f32();
          const text = str(), font = str(), fill = str();
          commands.push({ op: "text", x, y, angle, text, font, fill, align: ALIGN[u8()], baseline: BASELINE[u8()] });
        } else if (op === 5) {
          commands.push({ op: "clip", x: f32(), y: f32(), w: f32(), h: f32() });
        } else if (op === 6) {
          commands.push({ op: "unclip" });
        } else {
          throw new Error("unknown opcode " + op);
        }
      }
      if (o !== end) throw new Error("layer length mismatch");
      frame.layers.push({ id, version, commands });
    }
    return frame;
  }

  // ---- drawing ----------------------------------------------------------------

  function draw(id) {
    const c = canvases[id], ctx = c.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, c.width, c.height);
    ctx.setTransform(size.dpr, 0, 0, size.dpr, 0, 0);
    ctx.lineJoin = "round";
    ctx.lineCap = "butt";
    let clipped = false;
    for (const cmd of state.layers[id].commands) {
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
      }
    }
    if (clipped) ctx.restore();
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
    send({ type: "pointer", phase, x: p.x, y: p.y, button: ev.button, buttons: ev.buttons,
           pointerId: ev.pointerId, pointerType: ev.pointerType || "mouse",
           shift: ev.shiftKey, ctrl: ev.ctrlKey, alt: ev.altKey, time: Math.round(ev.timeStamp) });
  }

  input.addEventListener("pointerdown", (ev) => { input.setPointerCapture(ev.pointerId); pointer("down", ev); });
  input.addEventListener("pointermove", (ev) => pointer("move", ev));
  input.addEventListener("pointerup", (ev) => pointer("up", ev));
  input.addEventListener("pointercancel", (ev) => pointer("cancel", ev));
  input.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? size.height : 1;   // lines, pages -> pixels
    const p = pos(ev);
    send({ type: "wheel", x: p.x, y: p.y, deltaX: ev.deltaX * unit, deltaY: ev.deltaY * unit,
           time: Math.round(ev.timeStamp) });
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
  // Draw only once the chart font is loaded: the server measured with it.
  Promise.all([document.fonts.load('12px "ChartWire Sans"'), document.fonts.load('bold 12px "ChartWire Sans"')])
    .catch(() => {}).then(connect);
})();
