/* flashviz client: the stepper's four charts at one step, from the figures the server built once per configuration
   (flashviz/charts/stepper.py, drawn at the last step) and the engine's arrays. Each function returns a new
   {data, layout} for Plotly.react with exactly the step-dependent fields the Python builder would have written for
   that step: strip_figure, recurrence_figure, accumulator_figure and error_figure. Defines FV.charts. */
FV.charts = (function () {
  const F = FV.fmt;
  const NOT_LOADED = 0, ON_CHIP = 1, DISCARDED = 2;

  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function range1(k) { const x = new Array(k); for (let i = 0; i < k; i++) x[i] = i + 1; return x; }
  function finiteOrNaN(v) { return Number.isFinite(v) ? v : NaN; }
  function label(v) { return Number.isNaN(v) ? "NaN" : v === -Infinity ? "−∞" : v === Infinity ? "+∞" : ""; }

  /* [line, marks] of charts/stepper.py's _series: gaps at non-finite values, text marks saying what they were. */
  function series(base, baseMarks, x, y, markY, maxMarkers) {
    const line = Object.assign(clone(base), { x: x, y: y.map(finiteOrNaN),
      mode: x.length <= maxMarkers ? "lines+markers" : "lines" });
    const bad = [];
    y.forEach((v, i) => { if (!Number.isFinite(v)) bad.push(i); });
    const marks = Object.assign(clone(baseMarks), { x: bad.map(i => x[i]), y: bad.map(() => markY),
      text: bad.map(i => label(y[i])) });
    return [line, marks];
  }

  function strip(P, step) {
    const fig = P.figs.strip, n = P.n, t = P.text;
    const lo = P.start(step), hi = P.stop(step);
    const states = new Array(n);
    for (let j = 0; j < n; j++) states[j] = j < lo ? DISCARDED : j < hi ? ON_CHIP : NOT_LOADED;
    const data = fig.data.map(d => d);                         // traces 1.. are static: shared, not copied
    const heat = Object.assign({}, fig.data[0], { z: [states] });
    const scores = P.a.scores;
    if (n <= P.limits.max_hover_text) {
      const names = P.stateNames;
      const custom = new Array(n);
      for (let j = 0; j < n; j++) {
        const s = scores[j];
        const shown = s === -Infinity ? "−∞" : states[j] === NOT_LOADED ? "—" : F.pyF(s, 4);
        custom[j] = [shown, names[states[j]]];
      }
      heat.customdata = [custom];
    }
    data[0] = heat;
    const notes = [];
    const base = fig.layout.annotations || [];
    if (n <= P.limits.max_cell_text) {
      for (const cell of base.slice(0, -1)) {
        const j = cell.x;
        notes.push(Object.assign({}, cell, {
          text: states[j] === NOT_LOADED ? "—" : F.pyF(scores[j], 2),
          font: Object.assign({}, cell.font, { color: states[j] === DISCARDED ? "white" : "#111111" }) }));
      }
    }
    const mid = (lo + hi - 1) / 2;
    const side = mid < 0.15 * n ? "left" : mid > 0.85 * n ? "right" : "center";
    notes.push(Object.assign({}, base[base.length - 1], { x: mid, xanchor: side,
      text: F.tmpl(t["stepper.strip_tile"], { t: step + 1, lo: lo, hi: hi - 1 }) }));
    return { data: data, layout: Object.assign({}, fig.layout, { annotations: notes }) };
  }

  function recurrence(P, step) {
    const fig = P.figs.rec, k = step + 1, x = range1(k), a = P.a, L = P.limits;
    const data = [];
    [a.m, a.alpha, a.l].forEach((arr, i) => {
      data.push(...series(fig.data[2 * i], fig.data[2 * i + 1], x, Array.from(arr.subarray(0, k)), 0.0,
                          L.max_markers));
    });
    const resc = [];
    for (let i = 0; i < k; i++) if (a.rescaled[i]) resc.push(i);
    data.push(Object.assign(clone(fig.data[6]), { x: resc.map(i => i + 1), y: resc.map(i => finiteOrNaN(a.alpha[i])) }));
    const shapes = [Object.assign({}, fig.layout.shapes[0], { x0: k, x1: k })];
    return { data: data, layout: Object.assign({}, fig.layout, { shapes: shapes }) };
  }

  function accumulator(P, step) {
    const fig = P.figs.acc, t = P.text, dk = P.dk, final = step === P.steps - 1;
    const cur = Array.from(P.a.o_norm.subarray(step * dk, (step + 1) * dk));
    const bar = Object.assign(clone(fig.data[0]), { y: cur.map(finiteOrNaN),
      name: F.tmpl(t["stepper.acc_now"], { t: step + 1 }) });
    bar.marker = Object.assign({}, bar.marker, { color: final ? P.colors.blue : P.colors.sky });
    const bad = [];
    cur.forEach((v, i) => { if (!Number.isFinite(v)) bad.push(i); });
    const marks = Object.assign(clone(fig.data[2]), { x: bad, y: bad.map(() => 0), text: bad.map(i => label(cur[i])) });
    const title = Object.assign({}, fig.layout.title, { text: F.tmpl(t["stepper.acc_title"], { t: step + 1, tc: P.steps }) });
    return { data: [bar, fig.data[1], marks], layout: Object.assign({}, fig.layout, { title: title }) };
  }

  function error(P, step) {
    const fig = P.figs.err, k = step + 1, x = range1(k), floor = P.limits.err_floor;
    const err = Array.from(P.a.err.subarray(0, k));
    const shown = err.map(v => (v < floor ? floor : v));
    const [line, marks] = series(fig.data[0], fig.data[1], x, shown, 1.0, P.limits.max_markers);
    line.customdata = err;
    return { data: [line, marks], layout: fig.layout };
  }

  /* Larger chart text for the back row (presenter mode), as ui/common.chart does on the server. */
  function present(fig, on, sizes) {
    if (!on) return fig;
    const layout = Object.assign({}, fig.layout, { font: Object.assign({}, fig.layout.font, { size: sizes[0] }),
      title: Object.assign({}, fig.layout.title, { font: Object.assign({}, (fig.layout.title || {}).font, { size: sizes[1] }) }) });
    return { data: fig.data, layout: layout };
  }

  return { strip, recurrence, accumulator, error, present, NOT_LOADED, ON_CHIP, DISCARDED };
})();
