// <chartwire-chart>: a ChartWire chart in any page, also on another origin
// (docs/embedding.md).
//
//   <script src="https://charts.example/embed.js"></script>
//   <chartwire-chart session="demo" style="width: 480px; height: 320px"></chartwire-chart>
//
// Attributes: `session` (required), `server` (the server's address; default: where
// this script came from), `token` (for a session with access; as /s/{session}?token=).
// The element hosts an iframe of /e/{session}, the chart-alone page of the same
// client.js: the chart's font, WebSocket, token and pixels stay in the server's origin
// (the host page can neither read nor restyle them), the server decides who may frame
// it (Content-Security-Policy: frame-ancestors, from --allow-origin), and the frame's
// page sizes the chart from its own box (ResizeObserver) and reconnects by itself.
// The element reloads the frame when its page never starts (the server was down when
// it loaded), with the page's backoff (0.5 s doubling to 10 s).
//
// It reports what the frame's page tells it: `el.chartwire` (status, connected, title,
// frames, draws, reconnects, size) and a `chartwire-status` event with the same detail.
"use strict";

(function () {
  if (customElements.get("chartwire-chart")) return;
  const scriptOrigin = document.currentScript && document.currentScript.src
    ? new URL(document.currentScript.src).origin : location.origin;
  const STARTUP_MS = 5000;

  class ChartWireChart extends HTMLElement {
    static get observedAttributes() { return ["server", "session", "token"]; }

    constructor() {
      super();
      const root = this.attachShadow({ mode: "open" });
      const style = document.createElement("style");
      // A block 300 px high by default; the page's own CSS for the element wins.
      style.textContent = ":host { display: block; position: relative; height: 300px; overflow: hidden; }"
        + " :host([hidden]) { display: none; }"
        + " iframe { position: absolute; inset: 0; width: 100%; height: 100%; border: 0; display: block; }";
      this.frame = document.createElement("iframe");
      this.frame.setAttribute("part", "frame");
      root.append(style, this.frame);
      this.chartwire = { status: "idle", connected: false, frames: 0, draws: 0, reconnects: 0, reloads: 0 };
      this.src = null;
      this.backoff = 500;
      this.startTimer = null;
      this.retryTimer = null;
      this.onMessage = (ev) => {
        if (ev.source !== this.frame.contentWindow || ev.origin !== this.origin) return;
        const d = ev.data;
        if (!d || d.chartwire !== "status") return;
        clearTimeout(this.startTimer);
        this.backoff = 500;
        this.update(Object.assign({}, d, { reloads: this.chartwire.reloads }));
      };
      this.frame.addEventListener("load", () => {
        // The frame's page says how it is doing within STARTUP_MS of loading; a frame
        // that never does holds no chart (the server was unreachable, or refused to be
        // framed here): load it again later.
        clearTimeout(this.startTimer);
        this.startTimer = setTimeout(() => this.retry(), STARTUP_MS);
      });
    }

    connectedCallback() { window.addEventListener("message", this.onMessage); this.load(); }

    disconnectedCallback() {
      window.removeEventListener("message", this.onMessage);
      clearTimeout(this.startTimer);
      clearTimeout(this.retryTimer);
      this.frame.removeAttribute("src");
      this.src = null;
    }

    attributeChangedCallback() { if (this.isConnected) this.load(); }

    // The frame's address from the attributes; the frame loads only when it changes.
    load() {
      const session = this.getAttribute("session");
      if (!session) { this.update({ status: "no session attribute" }); return; }
      let server;
      try { server = new URL(this.getAttribute("server") || scriptOrigin, location.href); } catch (e) {
        this.update({ status: "bad server attribute" });
        return;
      }
      this.origin = server.origin;
      const base = server.href.endsWith("/") ? server.href : server.href + "/";
      const token = this.getAttribute("token");
      const src = new URL("e/" + encodeURIComponent(session) + (token ? "?token=" + encodeURIComponent(token) : ""), base).href;
      if (src === this.src) return;
      this.src = src;
      this.backoff = 500;
      clearTimeout(this.retryTimer);
      this.frame.title = "chart " + session;
      this.update({ status: "connecting", connected: false, frames: 0, draws: 0 });
      this.frame.src = src;
    }

    retry() {
      if (!this.src) return;
      const delay = Math.min(this.backoff, 10000) * (0.75 + Math.random() * 0.5);
      this.backoff = Math.min(this.backoff * 2, 10000);
      this.update({ status: "unreachable", connected: false, reloads: this.chartwire.reloads + 1 });
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => { if (this.src) this.frame.src = this.src; }, delay);
    }

    update(fields) {
      Object.assign(this.chartwire, fields);
      this.dispatchEvent(new CustomEvent("chartwire-status", { detail: Object.assign({}, this.chartwire) }));
    }
  }

  customElements.define("chartwire-chart", ChartWireChart);
})();
