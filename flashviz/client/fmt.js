/* flashviz client: numbers formatted exactly as Python formats them (round half to even on the double's exact
   decimal expansion), so a number on the client-side stepper is the text the server would have printed.
   pyF(x, p) = f"{x:.{p}f}", pyE(x, p) = f"{x:.{p}e}", pyG(x, p) = f"{x:.{p}g}", fmtNum = charts.common.fmt_num.
   Defines FV.fmt (no exports: this file is concatenated into the component's module and the offline page). */
var FV = (typeof window !== "undefined" && window.FV) || {};
if (typeof window !== "undefined") window.FV = FV;

FV.fmt = (function () {
  const TWO52 = 2n ** 52n;

  /* |x| = digits * 10^-point exactly (x finite); digits a string without leading zeros ("0" for zero). */
  function exact(x) {
    const buf = new DataView(new ArrayBuffer(8));
    buf.setFloat64(0, Math.abs(x));
    const hi = buf.getUint32(0), lo = buf.getUint32(4);
    const bexp = (hi >>> 20) & 0x7ff;
    let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e;
    if (bexp === 0) { e = -1074; } else { mant += TWO52; e = bexp - 1075; }
    if (mant === 0n) return { digits: "0", point: 0 };
    if (e >= 0) return { digits: (mant << BigInt(e)).toString(), point: 0 };
    return { digits: (mant * 5n ** BigInt(-e)).toString(), point: -e };   // m / 2^k = m * 5^k / 10^k
  }

  /* round(D / 10^k) to an integer, half to even (D a digit string, k >= 0 digits dropped); a BigInt. */
  function roundDrop(D, k) {
    if (k <= 0) return BigInt(D) * 10n ** BigInt(-k);
    const head = D.length > k ? D.slice(0, D.length - k) : "0";
    const rest = D.length >= k ? D.slice(D.length - k) : "0".repeat(k - D.length) + D;
    let up;
    if (rest[0] > "5") up = true;
    else if (rest[0] < "5") up = false;
    else if (/[1-9]/.test(rest.slice(1))) up = true;
    else up = (Number(head[head.length - 1]) % 2) === 1;                 // an exact tie: to even
    return BigInt(head) + (up ? 1n : 0n);
  }

  function sign(x) { return (x < 0 || Object.is(x, -0)) ? "-" : ""; }

  function special(x) {
    if (Number.isNaN(x)) return "nan";
    if (x === Infinity) return "inf";
    if (x === -Infinity) return "-inf";
    return null;
  }

  /* f"{x:.{p}f}" */
  function pyF(x, p) {
    const s = special(x);
    if (s !== null) return s;
    const { digits, point } = exact(x);
    const all = roundDrop(digits, point - p).toString().padStart(p + 1, "0");
    const ip = all.slice(0, all.length - p), fp = all.slice(all.length - p);
    return sign(x) + ip + (p > 0 ? "." + fp : "");
  }

  /* Round |x| to n significant digits: {sig (n digits), exp10 of the first digit}; x != 0, finite. */
  function sigRound(x, n) {
    const { digits, point } = exact(x);
    let exp10 = digits.length - 1 - point;
    let sig = roundDrop(digits, digits.length - n).toString();
    if (sig.length > n) { sig = sig.slice(0, n); exp10 += 1; }
    return { sig, exp10 };
  }

  function expPart(e) {
    const a = Math.abs(e);
    return "e" + (e < 0 ? "-" : "+") + (a < 10 ? "0" + a : String(a));
  }

  /* f"{x:.{p}e}" */
  function pyE(x, p) {
    const s = special(x);
    if (s !== null) return s;
    if (x === 0) return sign(x) + "0" + (p > 0 ? "." + "0".repeat(p) : "") + "e+00";
    const { sig, exp10 } = sigRound(x, p + 1);
    return sign(x) + sig[0] + (p > 0 ? "." + sig.slice(1) : "") + expPart(exp10);
  }

  /* f"{x:.{p}g}" (Python's general format: no trailing zeros, exponent from -4 to p-1 written out) */
  function pyG(x, p) {
    const s = special(x);
    if (s !== null) return s;
    p = p === 0 ? 1 : p;
    if (x === 0) return sign(x) + "0";
    const { sig, exp10 } = sigRound(x, p);
    let body;
    if (exp10 >= -4 && exp10 < p) {
      if (exp10 >= 0) {
        body = sig.slice(0, exp10 + 1) + "." + sig.slice(exp10 + 1);
      } else {
        body = "0." + "0".repeat(-exp10 - 1) + sig;
      }
      body = body.replace(/\.?0+$/, "").replace(/\.$/, "");
      if (body === "") body = "0";
      return sign(x) + body;
    }
    let mant = sig[0] + "." + sig.slice(1);
    mant = mant.replace(/\.?0+$/, "").replace(/\.$/, "");
    return sign(x) + mant + expPart(exp10);
  }

  /* charts.common.fmt_num: 4 decimals, or 4 significant digits below 1e-3; NaN and infinities spelled out. */
  function fmtNum(v, digits) {
    digits = digits === undefined ? 4 : digits;
    if (Number.isNaN(v)) return "NaN";
    if (v === Infinity) return "+∞";
    if (v === -Infinity) return "−∞";
    return (Math.abs(v) < 1e-3 && v !== 0) ? pyG(v, digits) : pyF(v, digits);
  }

  /* Python's str.format for simple named fields: "{i} of {n}" with {"i": 1, "n": 4}. */
  function tmpl(text, args) {
    return String(text).replace(/\{(\w+)\}/g, (m, k) => (args && k in args ? String(args[k]) : m));
  }

  return { exact, pyF, pyE, pyG, fmtNum, tmpl };
})();
