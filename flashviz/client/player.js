/* flashviz client: the stepper on the page, stepping with no server. One store per page holds the configuration's
   payload (every step's m, α, ℓ, o; flashviz/charts/stepper_payload.py) and the step; parts of the page ("main":
   controls, strip, counters, table, recurrence chart; "formula"; "acc") draw themselves from it whenever the step
   changes. Buttons, the slider, autoplay and the keys ← → Home End move the step; every key press counts (the
   drawing is coalesced to the next animation frame). Defines FV.player: decode(payload), mount(el, part, store). */
FV.player = (function () {
  const F = FV.fmt, C = FV.charts;
  const G = (typeof window !== "undefined") ? (window.__flashviz = window.__flashviz || { stores: {} }) : { stores: {} };
  const SPEEDS = [0.5, 1, 2, 4];

  function b64f64(s) {
    const bin = atob(s), buf = new ArrayBuffer(bin.length), u8 = new Uint8Array(buf);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    return new Float64Array(buf);
  }

  /* The payload's arrays decoded (little-endian float64), and helpers every part uses. */
  function decode(P) {
    const a = {};
    for (const k in P.arrays) a[k] = b64f64(P.arrays[k]);
    P.a = a;
    P.start = i => i * P.tile;
    P.stop = i => Math.min((i + 1) * P.tile, P.n);
    P.stateNames = [P.text["stepper.state_not_loaded"], P.text["stepper.state_on_chip"], P.text["stepper.state_discarded"]];
    return P;
  }

  function esc(s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  /* The few Markdown marks our strings use: **bold**, *italic*, `code`. */
  function md(s) {
    return esc(s).replace(/\*\*(.+?)\*\*/g, "<b>$1</b>").replace(/\*(.+?)\*/g, "<i>$1</i>").replace(/`(.+?)`/g, "<code>$1</code>");
  }
  function h(tag, attrs, html) {
    const e = document.createElement(tag);
    for (const k in (attrs || {})) e.setAttribute(k, attrs[k]);
    if (html !== undefined) e.innerHTML = html;
    return e;
  }

  // ------------------------------------------------------------------ the store

  function store(key) {
    let s = G.stores[key];
    if (!s) s = G.stores[key] = { key: key, P: null, step: 0, play: false, speed: 1, form: "fa2", nonce: null,
                                  parts: new Set(), frame: 0, timer: null, waiting: [] };
    return s;
  }

  function setPayload(s, P, opts) {
    const changed = !s.P || s.P.id !== P.id;
    s.P = P;
    s.opts = opts || {};
    if (s.opts.nonce !== undefined && s.opts.nonce !== s.nonce) {   // the server asked for a step
      s.nonce = s.opts.nonce;
      s.step = s.opts.goto || 0;
    }
    s.step = Math.max(0, Math.min(s.step, P.steps - 1));
    if (changed) stop(s);
    return changed;
  }

  function go(s, i) {
    if (!s.P) return;
    s.step = Math.max(0, Math.min(i, s.P.steps - 1));
    schedule(s);
  }

  function schedule(s) {
    if (s.frame) return;
    const run = () => { s.frame = 0; for (const p of s.parts) p.draw(s.step); };
    s.frame = (typeof requestAnimationFrame !== "undefined") ? requestAnimationFrame(run) : setTimeout(run, 0);
  }

  function stop(s) {
    if (s.timer) clearInterval(s.timer);
    s.timer = null;
    s.play = false;
  }

  function toggle(s) {
    if (s.play) { stop(s); schedule(s); return; }
    if (s.step >= s.P.steps - 1) s.step = 0;              // playing from the end starts over
    s.play = true;
    s.timer = setInterval(() => {
      if (s.step >= s.P.steps - 1) { stop(s); schedule(s); return; }
      go(s, s.step + 1);
    }, 1000 * s.speed);
    schedule(s);
  }

  function setSpeed(s, v) {
    s.speed = v;
    if (s.play) { stop(s); toggle(s); }
    schedule(s);
  }

  // ------------------------------------------------------------------ keys (one listener per page)

  function typing(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) ||
                 (t.getAttribute("role") === "slider" && !t.closest(".fv-stepper")));
  }

  if (typeof document !== "undefined" && !G.keys) {
    G.keys = true;
    document.addEventListener("keydown", e => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typing(e.target)) return;
      const s = G.active && G.stores[G.active];
      if (!s || !s.P) return;
      const to = { ArrowRight: s.step + 1, ArrowLeft: s.step - 1, Home: 0, End: s.P.steps - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      if (s.play) stop(s);
      go(s, to);
    });
  }

  // ------------------------------------------------------------------ charts

  function chart(s, el, name, build) {
    let drawn = null, pending = null;
    const ro = (typeof ResizeObserver !== "undefined") ? new ResizeObserver(() => {
      if (pending !== null && el.offsetWidth > 0) draw(pending);
      else if (drawn !== null && el.offsetWidth > 0 && window.Plotly) window.Plotly.Plots.resize(el);
    }) : null;
    if (ro) ro.observe(el);
    function config(step) {
      const o = s.opts || {}, P = s.P;
      return { displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"],
               toImageButtonOptions: Object.assign({}, P.image, { format: o.fmt || "png",
                 filename: `flashviz_${name}_${P.slug}_step${step + 1}`, scale: (o.fmt || "png") === "svg" ? 1 : P.image.scale,
                 height: P.heights[name] || P.image.height }) };
    }
    function draw(step) {
      if (!window.Plotly || el.offsetWidth === 0) { pending = step; return; }
      pending = null;
      const fig = C.present(build(s.P, step), (s.opts || {}).present, s.P.present_fonts);
      window.Plotly.react(el, fig.data, fig.layout, config(step));
      drawn = step;
      el.setAttribute("data-fv-step", String(step));
    }
    return { draw, stop: () => { if (ro) ro.disconnect(); if (window.Plotly && drawn !== null) window.Plotly.purge(el); } };
  }

  // ------------------------------------------------------------------ the parts

  function metric(label, help, value) {
    return `<div class="fv-metric" data-fv-metric title="${esc(help)}"><div class="fv-metric-label">${esc(label)}</div>` +
           `<div class="fv-metric-value">${esc(value)}</div></div>`;
  }

  function table(P, step) {
    const t = P.text, a = P.a, lo = Math.max(0, step + 1 - P.limits.table_rows);
    const cols = [t["stepper.col_tile"], t["stepper.col_keys"], t["stepper.col_tile_max"], "m", "α", "ℓ", t["stepper.col_rescale"]];
    const helps = { m: t["stepper.col_m"], "α": t["stepper.col_alpha"], "ℓ": t["stepper.col_l"] };
    let html = "<table><thead><tr>" + cols.map(c => `<th title="${esc(helps[c] || "")}">${esc(c)}</th>`).join("") + "</tr></thead><tbody>";
    for (let j = lo; j <= step; j++) {
      const cells = [String(j + 1), `${P.start(j)}–${P.stop(j) - 1}`, F.fmtNum(a.tile_max[j]), F.fmtNum(a.m[j]),
                     F.fmtNum(a.alpha[j]), F.fmtNum(a.l[j]), a.rescaled[j] ? t["stepper.yes"] : ""];
      html += `<tr${a.rescaled[j] ? ' class="fv-rescale"' : ""}>` +
              cells.map(c => `<td${c === "NaN" ? ' class="fv-nan"' : ""}>${esc(c)}</td>`).join("") + "</tr>";
    }
    return html + "</tbody></table>";
  }

  function notes(P, step) {
    const t = P.text, a = P.a;
    for (let j = 0; j <= step; j++) {
      if (Number.isNaN(a.l[j])) return `<div class="fv-note fv-error" role="alert">${md(t["stepper.nan_now"])}</div>`;
    }
    if (P.guard && a.m[0] === -Infinity) return `<div class="fv-note fv-info">${md(t["stepper.guard_saved"])}</div>`;
    return "";
  }

  function mainPart(s, el) {
    const P = s.P, t = P.text;
    el.innerHTML = "";
    const root = h("div", { class: "fv-stepper fv-main", "data-fv-part": "main" });
    const ctl = h("div", { class: "fv-controls" });
    const names = ["first", "prev", "next", "last"];
    const icons = { first: "«", prev: "‹", next: "›", last: "»" };
    const btn = {};
    for (const nm of names) {
      btn[nm] = h("button", { type: "button", "data-fv-act": nm, title: t[`stepper.key_${nm}`] },
                  `<span aria-hidden="true">${icons[nm]}</span> ${esc(t[`common.step_${nm}`])}`);
      ctl.appendChild(btn[nm]);
    }
    const play = h("button", { type: "button", "data-fv-act": "play", class: "fv-play", title: t["common.autoplay_help"] });
    ctl.appendChild(play);
    const speeds = h("div", { class: "fv-speeds", role: "group", "aria-label": t["common.speed"] });
    for (const v of SPEEDS) {
      const b = h("button", { type: "button", "data-fv-speed": String(v) }, esc(F.tmpl(t["common.speed_value"], { s: String(v) })));
      b.onclick = () => setSpeed(s, v);
      speeds.appendChild(b);
    }
    ctl.appendChild(speeds);
    root.appendChild(ctl);
    const slider = h("input", { type: "range", min: "1", max: String(P.steps), step: "1", "data-fv-act": "slider",
                                "aria-label": t["common.step_slider"], title: t["common.step_slider_help"] });
    if (P.steps <= 1) slider.disabled = true;
    root.appendChild(slider);
    const label = h("p", { class: "fv-label", "data-fv": "label" });
    root.appendChild(label);
    const strip = h("div", { class: "fv-chart", "data-fv-chart": "strip" });
    root.appendChild(strip);
    const note = h("div", { "data-fv": "notes" });
    root.appendChild(note);
    const metrics = h("div", { class: "fv-metrics", "data-fv": "metrics" });
    root.appendChild(metrics);
    const pending = h("p", { class: "fv-caption", "data-fv": "pending" });
    root.appendChild(pending);
    const row = h("div", { class: "fv-row" });
    const left = h("div", { class: "fv-col" }), right = h("div", { class: "fv-col" });
    const win = h("p", { class: "fv-caption" });
    const tab = h("div", { class: "fv-table", "data-fv": "table" });
    left.appendChild(win); left.appendChild(tab);
    const rec = h("div", { class: "fv-chart", "data-fv-chart": "recurrence" });
    right.appendChild(rec);
    row.appendChild(left); row.appendChild(right);
    root.appendChild(h("h3", { class: "fv-h" }, esc(t["stepper.rec_header"])));
    root.appendChild(row);
    el.appendChild(root);

    btn.first.onclick = () => go(s, 0);
    btn.prev.onclick = () => go(s, s.step - 1);
    btn.next.onclick = () => go(s, s.step + 1);
    btn.last.onclick = () => go(s, P.steps - 1);
    play.onclick = () => toggle(s);
    slider.oninput = () => go(s, Number(slider.value) - 1);
    const charts = [chart(s, strip, "strip", C.strip), chart(s, rec, "recurrence", C.recurrence)];

    function draw(step) {
      const last = step === P.steps - 1, lo = P.start(step), hi = P.stop(step);
      label.innerHTML = md(F.tmpl(t["stepper.step_label"], { i: step + 1, n: P.steps, lo: lo, hi: hi - 1 }));
      btn.first.disabled = btn.prev.disabled = step === 0;
      btn.next.disabled = btn.last.disabled = last;
      play.innerHTML = s.play ? `■ ${esc(t["stepper.pause"])}` : `▶ ${esc(t["common.autoplay"])}`;
      play.setAttribute("aria-pressed", s.play ? "true" : "false");
      for (const b of speeds.children) b.setAttribute("aria-pressed", Number(b.dataset.fvSpeed) === s.speed ? "true" : "false");
      slider.value = String(step + 1);
      note.innerHTML = notes(P, step);
      let resc = 0;
      for (let j = 0; j <= step; j++) resc += P.a.rescaled[j] ? 1 : 0;
      const err = P.a.err[step];
      metrics.innerHTML =
        metric(t["stepper.ctr_resident"], t["stepper.ctr_resident_help"], `${hi - lo} / ${P.n}`) +
        metric(t["stepper.ctr_naive"], t["stepper.ctr_naive_help"], P.naive) +
        metric(t["stepper.ctr_rescales"], t["stepper.ctr_rescales_help"], String(resc)) +
        metric(t["stepper.ctr_error"], t["stepper.ctr_error_help"], last ? (Number.isNaN(err) ? "NaN" : F.pyE(err, 2)) : "—");
      pending.textContent = last ? "" : t["stepper.ctr_err_pending"];
      win.textContent = step + 1 > P.limits.table_rows ? F.tmpl(t["stepper.table_window"], { k: P.limits.table_rows, n: step + 1 }) : "";
      tab.innerHTML = table(P, step);
      root.setAttribute("data-fv-step", String(step));
      for (const c of charts) c.draw(step);
    }
    return { draw, stop: () => charts.forEach(c => c.stop()) };
  }

  function vec(P, arr, step) {
    const ds = P.ds, xs = Array.from(arr.subarray(step * ds, (step + 1) * ds), v => F.fmtNum(v));
    return "[" + xs.join(", ") + (P.d > ds ? ", …" : "") + "]";
  }

  /* The values each formula line substitutes at `step` (charts' stepper_formula.step_values, formatted). */
  function values(P, step, form) {
    const a = P.a, first = step === 0, ds = P.ds, o = form === "fa2" ? a.o2 : a.o1;
    const zeros = "[" + new Array(ds).fill(F.fmtNum(0)).join(", ") + (P.d > ds ? ", …" : "") + "]";
    return { m_prev: first ? F.fmtNum(-Infinity) : F.fmtNum(a.m[step - 1]), tile_max: F.fmtNum(a.tile_max[step]),
             m: F.fmtNum(a.m[step]), alpha: F.fmtNum(a.alpha[step]), l_prev: first ? F.fmtNum(0) : F.fmtNum(a.l[step - 1]),
             tile_sum: F.fmtNum(a.tile_sum[step]), l: F.fmtNum(a.l[step]), o_prev: first ? zeros : vec(P, o, step - 1),
             pv: vec(P, a.pv, step), o: vec(P, o, step), out: form === "fa2" ? vec(P, a.out2, step) : vec(P, a.o1, step) };
  }

  function formulaPart(s, el) {
    const P = s.P, t = P.text;
    el.innerHTML = "";
    const root = h("div", { class: "fv-stepper fv-formula", "data-fv-part": "formula" });
    const head = h("p", {}, md(t["recurrence.header"]));
    const forms = h("div", { class: "fv-speeds", role: "group", "aria-label": t["recurrence.form"], title: t["recurrence.form_help"] });
    for (const f of ["fa2", "fa1"]) {
      const b = h("button", { type: "button", "data-fv-form": f }, esc(t[`recurrence.form_${f}`]));
      b.onclick = () => { s.form = f; schedule(s); };
      forms.appendChild(b);
    }
    const lines = h("div", { class: "fv-lines", "data-fv": "formula" });
    const cap = h("p", { class: "fv-caption", "data-fv": "formula-notes" });
    const explain = h("p", { "data-fv": "formula-explain" });
    const agree = h("p", { class: "fv-caption", "data-fv": "agree" });
    [head, forms, lines, cap, explain, agree].forEach(x => root.appendChild(x));
    el.appendChild(root);

    function draw(step) {
      const form = s.form, v = values(P, step, form);
      for (const b of forms.children) b.setAttribute("aria-pressed", b.dataset.fvForm === form ? "true" : "false");
      lines.innerHTML = P.formula[form].map(line =>
        '<div class="fv-line">' + line.map(seg => `<span class="fv-seg">${F.tmpl(seg, v)}</span>`)
          .join('<span class="fv-eq"> = </span>') + "</div>").join("");
      const notes = [];
      if (P.d > P.ds) notes.push(F.tmpl(t["recurrence.dims"], { k: P.ds, d: P.d }));
      if (P.guard && P.a.m[step] === -Infinity) notes.push(t["recurrence.guarded"]);
      cap.textContent = notes.join(" ");
      explain.innerHTML = md(t["recurrence.explain_" + form]);
      const last = step === P.steps - 1;
      agree.textContent = F.tmpl(t[last ? "recurrence.agree_last" : "recurrence.agree"],
        { gap: F.pyE(P.a.gap[step], 1), e2: F.pyE(P.a.fin[0], 1), e1: F.pyE(P.a.fin[1], 1) });
      root.setAttribute("data-fv-step", String(step));
    }
    return { draw, stop: () => {} };
  }

  function accPart(s, el) {
    el.innerHTML = "";
    const root = h("div", { class: "fv-stepper fv-acc", "data-fv-part": "acc" });
    const row = h("div", { class: "fv-row" });
    const acc = h("div", { class: "fv-chart fv-col", "data-fv-chart": "accumulator" });
    const err = h("div", { class: "fv-chart fv-col", "data-fv-chart": "error" });
    row.appendChild(acc); row.appendChild(err);
    const cap = h("p", { class: "fv-caption" });
    if (s.P.dk < s.P.d) cap.textContent = F.tmpl(s.P.text["stepper.acc_dims"], { k: s.P.dk, d: s.P.d });
    root.appendChild(row); root.appendChild(cap);
    el.appendChild(root);
    const charts = [chart(s, acc, "accumulator", C.accumulator), chart(s, err, "error", C.error)];
    return { draw: step => { charts.forEach(c => c.draw(step)); root.setAttribute("data-fv-step", String(step)); },
             stop: () => charts.forEach(c => c.stop()) };
  }

  const PARTS = { main: mainPart, formula: formulaPart, acc: accPart };

  /* Draw part `name` of store `s` into `el` once the store holds payload `id` (the main part brings it; another
     part may be mounted first); returns a function that removes the part again. */
  function mount(el, name, s, id) {
    let view = null, gone = false;
    const start = () => {
      if (gone) return;
      view = PARTS[name](s, el);
      s.parts.add(view);
      G.active = s.key;
      view.draw(s.step);
    };
    if (s.P && (id === undefined || s.P.id === id)) start();
    else s.waiting.push({ id: id, start: start });
    return () => { gone = true; if (view) { s.parts.delete(view); view.stop(); } };
  }

  /* The main part has set payload P: start the parts that were waiting for it. */
  function flush(s) {
    const ready = s.waiting.filter(w => w.id === undefined || w.id === s.P.id);
    s.waiting = s.waiting.filter(w => !ready.includes(w));
    ready.forEach(w => w.start());
  }

  return { decode, mount, flush, store, setPayload, go, schedule, toggle, stop, md };
})();
