// Timeline of a kafkachaos history: one canvas, every op a bar from invoke
// to completion, drawn only within the visible time window so 100k-op runs
// stay responsive. Data comes from the page's tl-data and ops-data scripts.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("tl-data").textContent);
  var n = D.lane.length;
  var start = new Float64Array(n), end = new Float64Array(n);
  var acc = 0;
  for (var i = 0; i < n; i++) { acc += D.s[i]; start[i] = acc; end[i] = acc + D.d[i]; }
  var evidence = {};
  (D.focus || []).forEach(function (f) { evidence[f[0]] = true; });
  var COLORS = { o: "#16a34a", f: "#dc2626", i: "#d97706", u: "#fcd34d" };
  var LABEL_W = 78, AXIS_H = 22;
  var laneH = Math.max(6, Math.min(18, Math.floor(480 / Math.max(1, D.lanes.length))));
  var canvas = document.getElementById("tl"), ctx = canvas.getContext("2d");
  var status = document.getElementById("tl-status"), range = document.getElementById("tl-range");
  var detail = document.getElementById("opdetail");
  var total = Math.max(D.end, 1), v0 = 0, v1 = total, selected = -1, ops = null;

  function width() { return canvas.clientWidth || 900; }
  function xOf(t) { return LABEL_W + (t - v0) / (v1 - v0) * (width() - LABEL_W); }
  function tOf(x) { return v0 + (x - LABEL_W) / (width() - LABEL_W) * (v1 - v0); }
  function fmt(us) { return (us / 1e6).toFixed(us < 1e7 ? 3 : 1) + "s"; }

  function draw() {
    var t0 = performance.now(), dpr = window.devicePixelRatio || 1, w = width();
    var h = AXIS_H + laneH * D.lanes.length + 4;
    canvas.width = w * dpr; canvas.height = h * dpr; canvas.style.height = h + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    for (var l = 0; l < D.lanes.length; l++) {
      if (l % 2) { ctx.fillStyle = "#f8fafc"; ctx.fillRect(0, AXIS_H + l * laneH, w, laneH); }
    }
    ctx.fillStyle = "rgba(239,68,68,.14)";
    (D.w || []).forEach(function (win) {
      var a = Math.max(xOf(win[0]), LABEL_W), b = Math.min(xOf(win[1]), w);
      if (b > a) ctx.fillRect(a, AXIS_H, Math.max(b - a, 1), h - AXIS_H);
    });
    axis(w);
    var last = new Float64Array(D.lanes.length).fill(-1), lastC = new Array(D.lanes.length), drawn = 0;
    var bh = Math.max(3, laneH - 4), marks = [];
    for (var i = 0; i < n; i++) {
      if (end[i] < v0 || start[i] > v1) continue;
      var ln = D.lane[i], x0 = Math.max(xOf(start[i]), LABEL_W), x1 = Math.max(xOf(end[i]), x0 + 1.5);
      var c = COLORS[D.t[i]] || "#94a3b8";
      drawn++;
      if (evidence[D.i[i]] || evidence[D.i[i] + D.c[i]]) marks.push(i);
      if (x1 <= last[ln] && lastC[ln] === c) continue; // already covered at this zoom
      ctx.fillStyle = c;
      ctx.fillRect(x0, AXIS_H + ln * laneH + 2, x1 - x0, bh);
      if (x1 > last[ln]) { last[ln] = x1; lastC[ln] = c; }
    }
    ctx.lineWidth = 2; ctx.strokeStyle = "#7c3aed";
    marks.forEach(function (i) { box(i); });
    if (selected >= 0) { ctx.strokeStyle = "#0f172a"; ctx.lineWidth = 2.5; box(selected); }
    labels();
    range.textContent = fmt(v0) + " – " + fmt(v1) + " of " + fmt(total);
    var ms = performance.now() - t0;
    status.textContent = n + " ops on " + D.lanes.length + " lanes; " + drawn + " in view; drawn in " + ms.toFixed(1) + " ms";
    status.setAttribute("data-rendered", String(drawn));
    if (!status.hasAttribute("data-load-ms")) status.setAttribute("data-load-ms", performance.now().toFixed(0));
  }
  function box(i) {
    var x0 = Math.max(xOf(start[i]), LABEL_W), x1 = Math.max(xOf(end[i]), x0 + 1.5);
    ctx.strokeRect(x0 - 1, AXIS_H + D.lane[i] * laneH + 1, x1 - x0 + 2, laneH - 2);
  }
  function axis(w) {
    var span = v1 - v0, step = Math.pow(10, Math.floor(Math.log10(span / 8)));
    [1, 2, 5, 10].some(function (m) { if (span / (step * m) <= 10) { step *= m; return true; } return false; });
    ctx.font = "11px system-ui,sans-serif"; ctx.textAlign = "center";
    for (var t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      var x = xOf(t);
      ctx.fillStyle = "#e2e8f0"; ctx.fillRect(x, AXIS_H - 4, 1, canvas.height);
      ctx.fillStyle = "#475569"; ctx.fillText(fmt(t), x, 13);
    }
  }
  function labels() {
    ctx.fillStyle = "#fff"; ctx.fillRect(0, AXIS_H, LABEL_W - 2, laneH * D.lanes.length);
    ctx.fillStyle = "#475569"; ctx.textAlign = "right"; ctx.font = Math.min(11, laneH - 1) + "px ui-monospace,Menlo,monospace";
    if (laneH < 8) return;
    D.lanes.forEach(function (p, l) { ctx.fillText(p < 0 ? "nemesis" : "process " + p, LABEL_W - 6, AXIS_H + l * laneH + laneH - 4); });
  }

  function setView(a, b) {
    var span = Math.max(b - a, 10);
    a = Math.max(0, Math.min(a, total - span)); v0 = a; v1 = Math.min(total, a + span);
    if (v1 - v0 < span) v0 = Math.max(0, v1 - span);
    draw();
  }
  function zoom(f, at) { at = at === undefined ? (v0 + v1) / 2 : at; setView(at - (at - v0) * f, at + (v1 - at) * f); }

  function hit(x, y) {
    var ln = Math.floor((y - AXIS_H) / laneH), best = -1, bestD = Infinity;
    if (ln < 0 || x < LABEL_W) return -1;
    var slack = 3 * (v1 - v0) / (width() - LABEL_W), t = tOf(x);
    for (var i = 0; i < n; i++) {
      if (D.lane[i] !== ln || start[i] > t + slack || end[i] < t - slack) continue;
      var d = end[i] - start[i];
      if (d < bestD) { best = i; bestD = d; }
    }
    return best;
  }
  function opJSON(idx) {
    if (!ops) {
      var el = document.getElementById("ops-data");
      ops = el ? JSON.parse(el.textContent) : [];
    }
    var o = ops[idx];
    if (o && o.index === idx) return JSON.stringify(o, null, 2);
    var ev = document.getElementById("op-" + idx);
    return ev ? ev.querySelector("pre").textContent : null;
  }
  function show(i) {
    selected = i; draw();
    var inv = D.i[i], comp = inv + D.c[i], f = D.fs[D.f[i]], p = D.lanes[D.lane[i]];
    var head = "op " + inv + (comp !== inv ? " → " + comp : "") + " · " + f + " · " + (p < 0 ? "nemesis" : "process " + p) +
      " · " + { o: "ok", f: "fail", i: "info", u: "never completed" }[D.t[i]] + " · " + fmt(start[i]) + " → " + fmt(end[i]) +
      " (" + ((end[i] - start[i]) / 1000).toFixed(2) + " ms)";
    detail.hidden = false; detail.textContent = "";
    var h = document.createElement("h4"); h.textContent = head; detail.appendChild(h);
    var pair = document.createElement("div"); pair.className = "pair"; detail.appendChild(pair);
    [inv, comp].filter(function (x, k) { return k === 0 || x !== inv; }).forEach(function (idx) {
      var pre = document.createElement("pre"); pre.className = "json";
      pre.textContent = opJSON(idx) || "op " + idx + ": the history was too big to inline every op; see history.jsonl (index " + idx + ").";
      pair.appendChild(pre);
    });
  }
  function focusOp(idx) {
    for (var i = 0; i < n; i++) {
      if (D.i[i] === idx || D.i[i] + D.c[i] === idx) {
        var span = Math.max((end[i] - start[i]) * 8, (v1 - v0 < total ? v1 - v0 : total / 20));
        setView((start[i] + end[i]) / 2 - span / 2, (start[i] + end[i]) / 2 + span / 2);
        show(i);
        return true;
      }
    }
    return false;
  }
  function onHash() {
    var m = /^#op-(\d+)$/.exec(location.hash);
    if (!m) return;
    var ev = document.getElementById("op-" + m[1]);
    if (ev && ev.tagName === "DETAILS") ev.open = true;
    focusOp(Number(m[1]));
    if (!ev) document.getElementById("timeline").scrollIntoView();
  }

  var drag = null;
  canvas.addEventListener("mousedown", function (e) { drag = { x: e.clientX, v0: v0, v1: v1, moved: false }; });
  window.addEventListener("mousemove", function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (drag.moved) { var dt = dx / (width() - LABEL_W) * (drag.v1 - drag.v0); setView(drag.v0 - dt, drag.v1 - dt); }
  });
  window.addEventListener("mouseup", function (e) {
    if (drag && !drag.moved) {
      var r = canvas.getBoundingClientRect(), i = hit(e.clientX - r.left, e.clientY - r.top);
      if (i >= 0) show(i);
    }
    drag = null;
  });
  canvas.addEventListener("wheel", function (e) {
    e.preventDefault();
    var r = canvas.getBoundingClientRect();
    zoom(e.deltaY > 0 ? 1.25 : 0.8, tOf(e.clientX - r.left));
  }, { passive: false });
  document.querySelectorAll(".tlbar button").forEach(function (b) {
    b.addEventListener("click", function () {
      var w = v1 - v0;
      ({ all: function () { setView(0, total); }, "in": function () { zoom(0.5); }, out: function () { zoom(2); },
        prev: function () { setView(v0 - w, v1 - w); }, next: function () { setView(v0 + w, v1 + w); } })[b.getAttribute("data-act")]();
    });
  });
  window.addEventListener("resize", draw);
  window.addEventListener("hashchange", onHash);
  draw();
  onHash();
})();
