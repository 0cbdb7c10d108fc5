// The accuracy dashboard's site script: sortable tables on every page and,
// on index.html, the comparison of two snapshots. The comparison follows
// runresult.Compare (internal/runresult/compare.go) and internal/accuracy step by
// step, in the same order of summation, so its figures are those of
// `action compare` (the headless-browser test checks them). No library,
// no network: a snapshot's points come from its data/<id>.js script.
(function () {
  "use strict";

  // ---- sortable tables -------------------------------------------------
  function cellKey(td) {
    var s = td.getAttribute("data-sort");
    if (s !== null && s !== "") { return { num: true, v: parseFloat(s) }; }
    var t = td.textContent.trim();
    var n = parseFloat(t.replace(/[%+,]/g, ""));
    if (/^[+-]?[0-9.,]+%?( \(.*\))?$/.test(t) && !isNaN(n)) { return { num: true, v: n }; }
    return { num: false, v: t.toLowerCase() };
  }
  function sortBy(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._i = i; });
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[col]), y = cellKey(b.cells[col]);
      var c;
      if (x.num && y.num) { c = x.v - y.v; } else if (x.num !== y.num) { c = x.num ? -1 : 1; } else { c = x.v < y.v ? -1 : x.v > y.v ? 1 : 0; }
      return (dir === "descending" ? -c : c) || a._i - b._i;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === col) { th.setAttribute("aria-sort", dir); } else { th.removeAttribute("aria-sort"); }
    });
  }
  function sortable(table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = th.querySelector("button");
      if (!b) { return; }
      b.addEventListener("click", function () {
        sortBy(table, col, th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending");
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);

  // ---- tables as cards on a phone -----------------------------------------
  // Each body cell gets its column's name (data-label) from the head, so the
  // stylesheet can show a wide table's rows as cards on a narrow screen.
  function cards(table) {
    if (!table.tHead || !table.tHead.rows.length) { return; }
    var names = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) { return th.textContent.replace(/\u2195/g, "").trim(); });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (r) {
        Array.prototype.forEach.call(r.cells, function (c, i) {
          if (names[i] && !c.hasAttribute("data-label")) { c.setAttribute("data-label", names[i]); }
          // A cell's content is one part beside its name, right-aligned
          // however it wraps: several parts (links and text, a figure and
          // why it is n/a) are not one flex item each spread over the
          // card's width, and a long text does not drop under the name.
          if (c.childNodes.length > 0) {
            var s = document.createElement("span");
            s.className = "cell";
            while (c.firstChild) { s.appendChild(c.firstChild); }
            c.appendChild(s);
          }
        });
      });
    });
    table.classList.add("cards");
  }
  Array.prototype.forEach.call(document.querySelectorAll("main table"), cards);

  // ---- comparison --------------------------------------------------------
  var SITE = window.SITE;
  var out = document.getElementById("comparison");
  if (!SITE || !out) { return; }

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    (kids || []).forEach(function (k) { e.appendChild(typeof k === "string" ? document.createTextNode(k) : k); });
    return e;
  }
  function pct(x) { return x === null ? "n/a" : fixed1(x) + "%"; } // render.Pct
  // signed is s, x written with its decimals, with its sign; a value that
  // rounds to zero is "+0.0…", never "-0.00" (render.signed).
  function signed(x, s) { return /^-?[0.]+$/.test(s) ? "+" + s.replace("-", "") : (x >= 0 ? "+" : "") + s; }
  function signedPct(x) { return x === null ? "n/a" : signed(x, fixed1(x)) + "%"; }
  function pp(x) { return x === null ? "n/a" : signed(x, x.toFixed(2)) + " pp"; }
  function ratio(r) { // render.Ratio
    if (r === null) { return "n/a"; }
    var v = (r - 1) * 100, a = Math.abs(v);
    if (v === 0) { return "±0 %"; }
    var s = a < 0.05 ? v.toFixed(2) : a < 0.95 ? v.toFixed(1) : v.toFixed(0);
    return signed(v, s) + " %";
  }
  function count(n, noun) { return n === 1 ? "1 " + noun : n + " " + noun + "s"; }
  function tierName(t) { return t === "measured_resolved" ? "measured + resolved" : "all"; }

  // internal/accuracy
  function valid(p, m) { return p > 0 && p !== Infinity && m > 0 && m !== Infinity; }
  function ape(p, m) { return Math.abs(p / m - 1) * 100; }
  function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function compute(samples) {
    var s = samples.slice().sort(function (a, b) {
      return cmpStr(a.sweep, b.sweep) || (a.load < b.load ? -1 : a.load > b.load ? 1 : 0) || cmpStr(a.point, b.point);
    });
    var n = 0, sumAPE = 0, sumErr = 0;
    s.forEach(function (x) {
      if (!x.scored || !valid(x.p, x.m)) { return; }
      n++; sumAPE += ape(x.p, x.m); sumErr += (x.p / x.m - 1) * 100;
    });
    var r = { n: n, mape: n ? sumAPE / n : null, bias: n ? sumErr / n : null, shape: null };
    var shapeN = 0, sumShape = 0;
    for (var i = 0; i < s.length;) {
      var j = i;
      while (j < s.length && s[j].sweep === s[i].sweep) { j++; }
      var anchor = s[i];
      if (anchor.scored && valid(anchor.p, anchor.m)) {
        var errs = [];
        for (var k = i + 1; k < j; k++) {
          var x = s[k];
          if (!x.scored || !valid(x.p, x.m)) { continue; }
          errs.push(Math.abs((x.p / anchor.p) / (x.m / anchor.m) - 1) * 100);
        }
        if (errs.length + 1 >= 3) {
          var sum = 0;
          errs.forEach(function (e) { sum += e; });
          shapeN += errs.length; sumShape += sum;
        }
      }
      i = j;
    }
    if (shapeN > 0) { r.shape = sumShape / shapeN; }
    return r;
  }
  function median(xs) {
    if (!xs.length) { return null; }
    var s = xs.slice().sort(function (a, b) { return a - b; });
    var h = s.length >> 1;
    return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
  }
  function has(v, f) { return v && Object.prototype.hasOwnProperty.call(v, f); }
  function scoredValid(p, d) { return p.s && has(p.M, d.field) && has(p.P, d.field) && valid(p.P[d.field], p.M[d.field]); }
  function sample(p, d, scored) { // runresult.Sample; p may be the zero point
    var s = { point: p.i || "", sweep: p.u || "", load: p.l || 0, scored: false, m: 0, p: 0 };
    s.scored = scored && has(p.M, d.field) && has(p.P, d.field);
    if (s.scored) { s.m = p.M[d.field]; s.p = p.P[d.field]; }
    return s;
  }
  var tiers = [
    { name: "measured_resolved", inTier: function (t) { return t === "measured" || t === "resolved"; } },
    { name: "all", inTier: function () { return true; } }
  ];
  var headline = SITE.metrics.filter(function (d) { return d.headline; });

  // runresult.Compare(head = b, base = a)
  function compare(a, b) {
    var baseByID = {};
    a.forEach(function (p) { baseByID[p.i] = p; });
    var rows = [];
    [true, false].forEach(function (isHeadline) {
      tiers.forEach(function (t) {
        SITE.metrics.forEach(function (d) {
          if (d.headline !== isHeadline) { return; }
          var row = { tier: t.name, metric: d, common: 0, better: 0, worse: 0, same: 0 };
          var hs = [], bs = [], hu = [], bu = [], ratios = [];
          row.unsatCommon = 0;
          b.forEach(function (hp) {
            if (!t.inTier(hp.t)) { return; }
            var bp = baseByID[hp.i];
            var both = !!bp && scoredValid(hp, d) && scoredValid(bp, d);
            // the common points neither snapshot saturated
            var unsat = both && !hp.x && !bp.x;
            if (unsat) { row.unsatCommon++; }
            hu.push(sample(hp, d, unsat));
            bu.push(sample(bp || {}, d, unsat));
            if (both) {
              row.common++;
              var h = ape(hp.P[d.field], hp.M[d.field]), x = ape(bp.P[d.field], bp.M[d.field]);
              if (h < x) { row.better++; } else if (h > x) { row.worse++; } else { row.same++; }
              ratios.push(hp.P[d.field] / bp.P[d.field]);
            }
            hs.push(sample(hp, d, both));
            bs.push(sample(bp || {}, d, both));
          });
          var hr = compute(hs), br = compute(bs);
          row.headMAPE = hr.mape; row.baseMAPE = br.mape;
          row.headBias = hr.bias; row.baseBias = br.bias;
          row.headShape = hr.shape; row.baseShape = br.shape;
          row.delta = hr.mape !== null && br.mape !== null ? hr.mape - br.mape : null;
          row.shapeDelta = hr.shape !== null && br.shape !== null ? hr.shape - br.shape : null;
          row.ratio = median(ratios);
          var hur = compute(hu), bur = compute(bu);
          row.headUnsatMAPE = hur.mape; row.baseUnsatMAPE = bur.mape;
          row.unsatDelta = hur.mape !== null && bur.mape !== null ? hur.mape - bur.mape : null;
          rows.push(row);
        });
      });
    });
    var movers = [];
    b.forEach(function (hp) {
      var bp = baseByID[hp.i];
      if (!bp) { return; }
      headline.forEach(function (d) {
        if (!scoredValid(hp, d) || !scoredValid(bp, d)) { return; }
        var h = ape(hp.P[d.field], hp.M[d.field]), x = ape(bp.P[d.field], bp.M[d.field]);
        if (h !== x) { movers.push({ id: hp.i, metric: d, base: x, head: h }); }
      });
    });
    movers.sort(function (x, y) {
      var dx = Math.round(Math.abs(x.head - x.base) * 1e6), dy = Math.round(Math.abs(y.head - y.base) * 1e6);
      return (dy - dx) || cmpStr(x.id, y.id) || cmpStr(x.metric.key, y.metric.key);
    });
    return { rows: rows, movers: movers.slice(0, SITE.max_movers), groups: groups(b, baseByID),
      onlyB: oneSided(b, a), onlyA: oneSided(a, b) };
  }
  function groups(head, baseByID) {
    var byKey = {}, keys = [];
    head.forEach(function (p) {
      var k = JSON.stringify([p.m, p.h]);
      if (!byKey[k]) { byKey[k] = []; keys.push([p.m, p.h, k]); }
      byKey[k].push(p);
    });
    keys.sort(function (x, y) { return cmpStr(x[0], y[0]) || cmpStr(x[1], y[1]); });
    var out = [];
    keys.forEach(function (k) {
      headline.forEach(function (d) {
        var hs = [], bs = [];
        byKey[k[2]].forEach(function (hp) {
          var bp = baseByID[hp.i];
          if (!bp || !scoredValid(hp, d) || !scoredValid(bp, d)) { return; }
          hs.push(sample(hp, d, true)); bs.push(sample(bp, d, true));
        });
        if (!hs.length) { return; }
        var h = compute(hs).mape, x = compute(bs).mape;
        out.push({ model: k[0], hardware: k[1], metric: d, common: hs.length, head: h, base: x, delta: h - x });
      });
    });
    return out;
  }
  function oneSided(mine, other) {
    var byID = {};
    other.forEach(function (p) { byID[p.i] = p; });
    var out = [];
    mine.forEach(function (p) {
      if (!p.s) { return; }
      var o = byID[p.i];
      if (!o) { out.push({ id: p.i, reason: SITE.not_in_corpus }); } else if (!o.s) { out.push({ id: p.i, reason: o.r }); }
    });
    return out.sort(function (x, y) { return cmpStr(x.id, y.id); });
  }
  // runresult.Comparison.HeadlineTier and SameTiers
  function headlineTier(rows) {
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i];
      if (r.metric.headline && r.tier === "measured_resolved" && r.common === 0) { return "all"; }
    }
    return "measured_resolved";
  }

  // ---- drawing -----------------------------------------------------------
  function table(id, caption, head, rows) {
    var thead = el("thead", {}, [el("tr", {}, head.map(function (h, i) {
      return el("th", { scope: "col", "class": i > 1 ? "num" : "" }, [h]);
    }))]);
    var tbody = el("tbody", {}, rows);
    return el("div", { "class": "scroll" }, [el("table", { id: id }, [el("caption", {}, [caption]), thead, tbody])]);
  }
  function td(text, cls, col) {
    var a = { "class": cls || "num" };
    if (col) { a["data-col"] = col; }
    return el("td", a, [text]);
  }
  // render.unsaturatedDelta: the Δ over the common points neither
  // snapshot saturated, when some common point is saturated.
  function unsaturatedDelta(r) {
    if (r.unsatCommon === r.common) { return ""; }
    if (r.unsatDelta === null) { return " Unsaturated points only: none in common."; }
    return " Unsaturated points only: MAPE " + fixed1(r.baseUnsatMAPE) + " % → " + fixed1(r.headUnsatMAPE) + " % (" +
      signed(r.unsatDelta, fixed1(r.unsatDelta)) + " pp) over " + count(r.unsatCommon, "common point") + ".";
  }
  // fixed1 is x with one decimal as Go's %.1f writes it: an exact tie
  // (61.25) rounds to even (61.2), where toFixed rounds it away from zero.
  // Exact ties are an odd number of quarters (x × 4 is exact); a value
  // whose x × 10 only rounds to a half (0.05, 2.45) is no tie, and toFixed
  // rounds it as Go does.
  function fixed1(x) {
    var q = Math.abs(x) * 4;
    if (Number.isInteger(q) && q % 2 === 1) {
      var n = Math.floor(Math.abs(x) * 10);
      if (n % 2 === 1) { n++; }
      return (x < 0 ? "-" : "") + (n / 10).toFixed(1);
    }
    return x.toFixed(1);
  }
  function verdict(c, ta, tb) {
    var tier = headlineTier(c.rows);
    var items = c.rows.filter(function (r) { return r.metric.headline && r.tier === tier; }).map(function (r) {
      if (r.delta === null) { return el("li", {}, [el("strong", {}, [r.metric.short]), ": no point scored by both runs."]); }
      var s = " MAPE " + fixed1(r.baseMAPE) + " % → " + fixed1(r.headMAPE) + " % (" + signed(r.delta, fixed1(r.delta)) +
        " pp) over " + count(r.common, "common point");
      if (tier === "all") { s += " (tier all: the runs share no measured or resolved point)"; }
      s += "; predictions " + ratio(r.ratio) + " (median); " + count(r.better, "point") + " better, " + r.worse + " worse, " + r.same + " unchanged.";
      s += unsaturatedDelta(r);
      return el("li", {}, [el("strong", {}, [r.metric.short]), s]);
    });
    return [el("ul", { "class": "verdict", id: "verdict" }, items),
      el("p", {}, ["The Δ is exact, not noise: the simulator is deterministic, so a rerun of either build gives byte-identical predictions."])];
  }
  function draw(a, b, pa, pb) {
    var c = compare(pa, pb);
    var A = a.label, B = b.label;
    var kids = [el("h3", { id: "comparison-title" }, ["Simulator accuracy: " + A + " → " + B])];
    kids = kids.concat(verdict(c, A, B));
    // render.Comparison.saturatedIn: a point either snapshot lists saturated.
    var satA = {}, satB = {};
    pa.forEach(function (p) { if (p.x) { satA[p.i] = true; } });
    pb.forEach(function (p) { if (p.x) { satB[p.i] = true; } });
    var pointCell = function (id) {
      var parts = [id];
      var which = satA[id] && satB[id] ? "both" : satB[id] ? "B" : satA[id] ? "A" : "";
      if (which) { parts.push(" ", el("strong", { "class": "saturated" }, ["saturated"]), " (" + which + ")"); }
      return el("td", { "class": "id" }, parts);
    };
    var byKey = {};
    c.rows.forEach(function (r) { if (r.tier === "measured_resolved") { byKey[r.metric.key] = r; } });
    var same = c.rows.every(function (r) { return r.tier !== "all" || (byKey[r.metric.key] && byKey[r.metric.key].common === r.common); });
    var head = ["Tier", "Metric", "A MAPE", "B MAPE", "Δ MAPE", "A shape", "B shape", "Δ shape", "A bias", "B bias",
      "Predictions", "Better / worse / same", "Common points"];
    kids.push(el("p", { "class": "key" }, [el("strong", {}, ["A"]), " = " + A + " (" + a.id + "), ", el("strong", {}, ["B"]), " = " + B + " (" + b.id + ")."]));
    // render.writeSaturated: B's note, then A's, in action compare's words.
    [[b, "B", "saturated-b"], [a, "A", "saturated-a"]].forEach(function (r) {
      var n = r[0].saturated;
      if (!n) { return; }
      kids.push(el("p", { "class": "banner saturated", id: r[2] }, [r[1] + ", tier " + n.tier + ": ", el("strong", {}, [n.lead]), " " + n.rest]));
    });
    var tr = function (r) {
      var shown = r.delta === null ? 0 : Math.round(r.delta * 100); // the colour follows the figure shown (2 decimals)
      var dcls = shown === 0 ? "num" : shown > 0 ? "num up" : "num down";
      return el("tr", { "data-tier": r.tier, "data-metric": r.metric.key }, [
        el("td", {}, [same ? "both" : tierName(r.tier)]), el("th", { scope: "row", "class": "nowrap" }, [r.metric.short]),
        td(pct(r.baseMAPE), "", "a-mape"), td(pct(r.headMAPE), "", "b-mape"), td(pp(r.delta), dcls, "delta"),
        td(pct(r.baseShape), "", "a-shape"), td(pct(r.headShape), "", "b-shape"), td(pp(r.shapeDelta), "", "shape-delta"),
        td(signedPct(r.baseBias), "", "a-bias"), td(signedPct(r.headBias), "", "b-bias"), td(ratio(r.ratio), "", "ratio"),
        td(r.better + " / " + r.worse + " / " + r.same, "", "counts"), td(String(r.common), "", "common")]);
    };
    var shown = c.rows.filter(function (r) { return !same || r.tier === "all"; });
    var note = same ? " Every point is measured or resolved: the two tiers hold the same points, so one row per metric stands for both." : "";
    kids.push(table("comparison-table", "Δ = B − A per tier and headline metric, over the points both scored", head,
      shown.filter(function (r) { return r.metric.headline; }).map(tr)));
    kids.push(el("p", {}, ["Predictions: the median over the common points of B's prediction divided by A's. Better / worse / same: the common points whose error B made smaller, larger or left exactly equal." + note]));
    var secondary = shown.filter(function (r) { return !r.metric.headline; });
    if (secondary.length) {
      kids.push(el("details", {}, [el("summary", {}, ["Secondary metrics (not in the headline)"]),
        table("comparison-secondary-table", "Δ = B − A per tier and secondary metric, each over the common points whose measurement has it", head, secondary.map(tr))]));
    }
    kids.push(el("p", {}, ["Coverage: " + A + " scored " + a.scored + " of " + a.corpus + " points, " + B + " " + b.scored + " of " + b.corpus + ". Negative Δ: B predicts better. Bias > 0: over-prediction."]));
    if (c.movers.length) {
      kids.push(el("h3", {}, ["Points whose error moved most"]));
      kids.push(table("movers-table", "Absolute percentage error of each point in A and B", ["Point", "Metric", "A APE", "B APE", "Δ"],
        c.movers.map(function (m) {
          return el("tr", {}, [pointCell(m.id), el("td", {}, [m.metric.short]), td(pct(m.base)), td(pct(m.head)), td(pp(m.head - m.base))]);
        })));
    }
    if (c.groups.length) {
      kids.push(el("h3", {}, ["By model × hardware (common points)"]));
      kids.push(table("groups-delta-table", "MAPE by model and hardware over the points both scored",
        ["Model", "Hardware", "Metric", "A MAPE", "B MAPE", "Δ MAPE", "Common points"],
        c.groups.map(function (g) {
          return el("tr", {}, [td(g.model, "id"), el("td", {}, [g.hardware]), el("td", {}, [g.metric.short]), td(pct(g.base)), td(pct(g.head)), td(pp(g.delta)), td(String(g.common))]);
        })));
    }
    [[c.onlyB, B, A, "only-b"], [c.onlyA, A, B, "only-a"]].forEach(function (o) {
      if (!o[0].length) { return; }
      kids.push(el("h3", {}, [count(o[0].length, "point") + " scored by " + o[1] + " only"]));
      var list = o[0].slice(0, SITE.max_one_sided).map(function (p) { return el("tr", {}, [pointCell(p.id), el("td", { "class": "reason" }, [p.reason])]); });
      if (o[0].length > SITE.max_one_sided) { list.push(el("tr", {}, [el("td", {}, ["… " + (o[0].length - SITE.max_one_sided) + " more"]), el("td", {}, [""])])); }
      kids.push(table(o[3] + "-table", "Why " + o[2] + " did not score them", ["Point", "Why " + o[2] + " did not score it"], list));
    });
    out.textContent = "";
    kids.forEach(function (k) { out.appendChild(k); });
    Array.prototype.forEach.call(out.querySelectorAll("table"), cards);
  }

  function load(snap, done, fail) {
    window.DASH_DATA = window.DASH_DATA || {};
    if (window.DASH_DATA[snap.id]) { done(window.DASH_DATA[snap.id]); return; }
    var s = document.createElement("script");
    s.src = snap.data;
    s.onload = function () { if (window.DASH_DATA[snap.id]) { done(window.DASH_DATA[snap.id]); } else { fail(snap); } };
    s.onerror = function () { fail(snap); };
    document.head.appendChild(s);
  }
  function message(text) { out.textContent = ""; out.appendChild(el("p", { "class": "banner" }, [text])); }

  var byID = {};
  SITE.snapshots.forEach(function (s) { byID[s.id] = s; });
  var q = new URLSearchParams(window.location.search);
  var pa = document.getElementById("pick-a"), pb = document.getElementById("pick-b");
  var ida = q.get("a") || pa.value, idb = q.get("b") || pb.value;
  if (SITE.snapshots.length < 2 && !q.get("a")) { message("Only one snapshot is published: there is nothing to compare yet."); return; }
  var a = byID[ida], b = byID[idb];
  if (!a || !b) { message("No published snapshot is called " + (a ? idb : ida) + "; pick two above."); return; }
  pa.value = a.id; pb.value = b.id;
  out.setAttribute("aria-busy", "true");
  var fail = function (s) { out.removeAttribute("aria-busy"); message("The points of snapshot " + s.label + " could not be loaded (" + s.data + ")."); };
  load(a, function (da) {
    load(b, function (db) {
      draw(a, b, da, db);
      out.removeAttribute("aria-busy");
      out.setAttribute("data-ready", "true");
      if (q.get("a")) { document.getElementById("compare").scrollIntoView(); }
    }, fail);
  }, fail);
})();
