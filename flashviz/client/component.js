/* flashviz client: the Streamlit components-v2 entry (st.components.v2, no iframe). The data is bytes: a header
   line of JSON {part, key, id, opts, plotly}, then, for the main part only, the configuration's payload as JSON.
   plotly.js comes from the installed plotly package, served by this server as a gzip file (no CPU spent
   compressing it per request), unpacked here and kept in the browser's IndexedDB: fetched once per browser and
   plotly version, never from a CDN. */
const DEC = new TextDecoder();
const G = window.__flashviz = window.__flashviz || { stores: {} };

function idb(mode, fn) {
  return new Promise(resolve => {
    let req;
    try { req = indexedDB.open("flashviz", 1); } catch (e) { resolve(null); return; }
    req.onupgradeneeded = () => req.result.createObjectStore("assets");
    req.onerror = () => resolve(null);
    req.onsuccess = () => {
      try {
        const tx = req.result.transaction("assets", mode), r = fn(tx.objectStore("assets"));
        tx.oncomplete = () => resolve(r && r.result !== undefined ? r.result : null);
        tx.onerror = tx.onabort = () => resolve(null);
      } catch (e) { resolve(null); }
    };
  });
}

function script(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = src;
    s.onload = resolve;
    s.onerror = () => reject(new Error("could not load " + src));
    document.head.appendChild(s);
  });
}

async function gunzip(url) {
  const r = await fetch(url);
  if (!r.ok || typeof DecompressionStream === "undefined") throw new Error("no gzip");
  return await new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).text();
}

function plotly(src) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!G.plotly) {
    G.plotly = (async () => {
      const key = "plotly.js " + src.version;
      let text = await idb("readonly", st => st.get(key));
      if (!text) {
        try { text = await gunzip(src.gz); idb("readwrite", st => st.put(text, key)); } catch (e) { text = null; }
      }
      if (text) await script(URL.createObjectURL(new Blob([text], { type: "text/javascript" })));
      else await script(src.js);
      return window.Plotly;
    })();
    G.plotly.catch(() => { G.plotly = null; });
  }
  return G.plotly;
}

function bytesOf(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (data && data.buffer) return new Uint8Array(data.buffer, data.byteOffset || 0, data.byteLength);
  return new TextEncoder().encode(typeof data === "string" ? data : JSON.stringify(data || {}));
}

export default function (component) {
  const { data, parentElement } = component;
  const b = bytesOf(data);
  const nl = b.indexOf(10);
  const head = JSON.parse(DEC.decode(nl < 0 ? b : b.subarray(0, nl)));
  const P = FV.player, s = P.store(head.key);
  if (head.part === "main") {
    if (!s.P || s.P.id !== head.id) P.setPayload(s, P.decode(JSON.parse(DEC.decode(b.subarray(nl + 1)))), head.opts);
    else P.setPayload(s, s.P, head.opts);
  }
  let host = parentElement.querySelector(":scope > .fv-host");
  if (!host) { host = document.createElement("div"); host.className = "fv-host"; parentElement.appendChild(host); }
  const undo = P.mount(host, head.part, s, head.id);
  if (head.part === "main") P.flush(s);
  plotly(head.plotly).then(() => P.schedule(s), () => {
    const box = host.querySelector("[data-fv=notes]");
    if (box && s.P) box.insertAdjacentHTML("beforeend", `<div class="fv-note fv-error">${P.md(s.P.text["stepper.no_plotly"])}</div>`);
  });
  return undo;                        // autoplay goes on across reruns; a new configuration stops it
}
