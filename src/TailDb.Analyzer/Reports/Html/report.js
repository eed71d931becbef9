// TailDb.Analyzer slowest page: draws the timeline (timeline.js, inlined before this), heatmap, flame
// graphs and request views from the inline JSON (id="data"). No libraries, nothing fetched.
// window.taildb exposes what was drawn so browser tests can check it.
(function () {
  'use strict';
  const T = window.TailDbTimeline;
  const D = JSON.parse(document.getElementById('data').textContent);
  const names = D.names;
  const { GC, fmt, fit, niceStep } = T;
  const M = T.margins;
  const scale = T.scaleFor([D]);
  const full = scale.full, view = scale.view;
  const drawn = { gcBands: 0, slowMarks: 0, restMarks: 0, suspensions: 0, contention: 0, flameFrames: 0, views: 0, view: view };
  window.taildb = drawn;

  // ---- timeline (timeline.js), with the heatmap outlining its range
  const tl = document.getElementById('timeline');
  const timeline = T.create(tl, D, scale, drawn, drawTimeline);
  function drawTimeline() {
    timeline.draw();
    document.getElementById('range').textContent = T.describe(view) + ': ' +
      drawn.slowMarks + ' slow requests, ' + drawn.restMarks + ' other dots, ' + T.gcPauses(drawn);
    drawHeatmapView();
  }
  // For tests: where a time is drawn, in CSS pixels from the canvas's left edge.
  drawn.x = timeline.x;
  drawn.slowStarts = D.slow.start;
  document.getElementById('reset').addEventListener('click', timeline.reset);
  document.getElementById('sampling').textContent = 'Dots: ' + D.sampling + '; GC pauses: all ' + D.gc.total +
    '. Suspensions: ' + D.suspensions.kept + ' (' + D.suspensions.total + '). Contention: ' + D.contention.kept + ' (' + D.contention.total + ').';

  // ---- heatmap
  const hm = document.getElementById('heatmap');
  let heatImage = null;
  function drawHeatmap() {
    const { ctx, w, h } = fit(hm);
    const H = D.heatmap, cols = H.counts.length, rows = H.rowBoundsMs.length - 1;
    const pw = w - M.l - M.r, ph = h - M.t - M.b;
    ctx.clearRect(0, 0, w, h);
    if (cols === 0) { return; }
    let max = 1;
    for (const c of H.counts) for (const v of c) if (v > max) max = v;
    const cw = pw / cols, rh = ph / rows;
    for (let c = 0; c < cols; c++) {
      for (let r = 0; r < rows; r++) {
        const v = H.counts[c][r];
        if (!v) continue;
        const k = Math.log1p(v) / Math.log1p(max);
        ctx.fillStyle = 'hsl(' + (220 - 200 * k) + ',80%,' + (92 - 55 * k) + '%)';
        ctx.fillRect(M.l + c * cw, M.t + ph - (r + 1) * rh, Math.ceil(cw), Math.ceil(rh));
      }
    }
    const lo = Math.log(H.rowBoundsMs[0]), hi = Math.log(H.rowBoundsMs[rows]);
    const Y = (d) => M.t + ph - (Math.log(d) - lo) / (hi - lo) * ph;
    ctx.fillStyle = '#333'; ctx.font = '11px sans-serif'; ctx.textAlign = 'right';
    for (let r = 0; r <= rows; r += 8) { ctx.fillText(fmt(H.rowBoundsMs[r]), M.l - 4, Y(H.rowBoundsMs[r]) + 4); }
    ctx.strokeStyle = '#d62728'; ctx.setLineDash([4, 4]); ctx.beginPath(); ctx.moveTo(M.l, Y(D.thresholdMs)); ctx.lineTo(M.l + pw, Y(D.thresholdMs)); ctx.stroke(); ctx.setLineDash([]);
    ctx.textAlign = 'center';
    const step = niceStep(full.to, Math.max(2, Math.floor(pw / 110)));
    for (let t = 0; t <= full.to; t += step) { ctx.fillText(fmt(t), M.l + t / full.to * pw, h - M.b + 16); }
    ctx.strokeStyle = '#888'; ctx.strokeRect(M.l, M.t, pw, ph);
    heatImage = hm.width > 0 && hm.height > 0 ? ctx.getImageData(0, 0, hm.width, hm.height) : null;
  }
  function drawHeatmapView() {
    if (!heatImage) return;
    const ctx = hm.getContext('2d');
    ctx.putImageData(heatImage, 0, 0);
    if (view.from <= full.from && view.to >= full.to) return;
    const pw = hm.clientWidth - M.l - M.r, ph = Number(hm.dataset.cssHeight) - M.t - M.b;
    const x0 = M.l + Math.max(0, view.from) / full.to * pw, x1 = M.l + Math.min(full.to, view.to) / full.to * pw;
    ctx.strokeStyle = '#000'; ctx.lineWidth = 1.5; ctx.strokeRect(x0, M.t, Math.max(2, x1 - x0), ph); ctx.lineWidth = 1;
  }

  // ---- flame graphs (icicle: root on top)
  const flameDiv = document.getElementById('flame');
  let flameMode = 'slow', flameRoot = D.flame;
  document.getElementById('flamebasis').textContent = 'Basis: ' + D.flameBasis + '. Slow windows ' + fmt(D.slowFlameMs) +
    ', whole run ' + fmt(D.wholeFlameMs) + '. Click a frame to zoom into it, the top bar to zoom out; hover for the full name.';
  const value = (n) => flameMode === 'whole' ? n.wholeMs : n.slowMs;
  function hash(s) { let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; return (h >>> 0) / 4294967296; }
  function color(n) {
    const name = names[n.name];
    if (flameMode === 'diff') {
      const s = D.slowFlameMs > 0 ? n.slowMs / D.slowFlameMs : 0, w = D.wholeFlameMs > 0 ? n.wholeMs / D.wholeFlameMs : 0;
      const r = w > 0 ? Math.log2(s / w) : 3;
      const k = Math.max(-1, Math.min(1, r / 3));
      return k >= 0 ? 'hsl(0,85%,' + (92 - 45 * k) + '%)' : 'hsl(215,85%,' + (92 + 45 * k) + '%)';
    }
    if (name.startsWith('[')) return 'hsl(25,95%,55%)';
    const h = hash(name);
    return 'hsl(' + (10 + 45 * h) + ',' + (70 + 20 * h) + '%,' + (58 + 10 * hash(name + '!')) + '%)';
  }
  function drawFlame() {
    const W = flameDiv.clientWidth || 1000, RH = 17;
    const total = value(flameRoot);
    const rects = [];
    let depthMax = 0;
    (function lay(n, x, depth) {
      const v = value(n);
      const w = total > 0 ? v / total * W : 0;
      if (w < 0.5) return;
      rects.push({ n, x, y: depth * RH, w });
      if (depth > depthMax) depthMax = depth;
      let cx = x;
      for (const c of n.children) { lay(c, cx, depth + 1); cx += total > 0 ? value(c) / total * W : 0; }
    })(flameRoot, 0, 0);
    const svgNs = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(svgNs, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + ((depthMax + 1) * RH));
    svg.setAttribute('height', (depthMax + 1) * RH);
    for (const r of rects) {
      const g = document.createElementNS(svgNs, 'g');
      const rect = document.createElementNS(svgNs, 'rect');
      rect.setAttribute('x', r.x); rect.setAttribute('y', r.y); rect.setAttribute('width', r.w); rect.setAttribute('height', RH - 1);
      rect.setAttribute('fill', color(r.n)); rect.setAttribute('class', 'frame');
      const name = names[r.n.name];
      const title = document.createElementNS(svgNs, 'title');
      const s = D.slowFlameMs > 0 ? r.n.slowMs / D.slowFlameMs : 0, w = D.wholeFlameMs > 0 ? r.n.wholeMs / D.wholeFlameMs : 0;
      title.textContent = name + '\nslow windows ' + fmt(r.n.slowMs) + ' (' + (100 * s).toFixed(1) + '%), whole run ' + fmt(r.n.wholeMs) + ' (' + (100 * w).toFixed(1) + '%)' +
        (w > 0 ? ', tail over-representation ' + (s / w).toFixed(2) + 'x' : s > 0 ? ', only in the tail' : '');
      g.appendChild(title); g.appendChild(rect);
      if (r.w > 40) {
        const text = document.createElementNS(svgNs, 'text');
        text.setAttribute('x', r.x + 3); text.setAttribute('y', r.y + RH - 5);
        const short = name.replace(/\(.*$/, '').split('.').slice(-2).join('.');
        const fitChars = Math.floor((r.w - 6) / 6.6);
        text.textContent = short.length > fitChars ? short.slice(0, Math.max(0, fitChars - 1)) + '…' : short;
        g.appendChild(text);
      }
      g.addEventListener('click', () => { flameRoot = (r.n === flameRoot) ? D.flame : r.n; drawFlame(); });
      svg.appendChild(g);
    }
    flameDiv.replaceChildren(svg);
    drawn.flameFrames = rects.length;
    flameDiv.dataset.frames = rects.length;
    document.getElementById('flamelegend').textContent = flameMode === 'diff'
      ? ' widths: slow windows; red = over-represented in the tail, blue = under-represented (vs the whole run)'
      : flameMode === 'slow' ? ' widths: time in the slow windows' : ' widths: time in the whole run';
  }
  for (const b of document.querySelectorAll('[data-flame]')) {
    b.addEventListener('click', () => {
      flameMode = b.dataset.flame; flameRoot = D.flame;
      for (const o of document.querySelectorAll('[data-flame]')) o.classList.toggle('on', o === b);
      drawFlame();
    });
  }

  // ---- one view per listed slow request
  function drawViews() {
    const box = document.getElementById('views');
    const svgNs = 'http://www.w3.org/2000/svg';
    const lanes = ['request', 'GC pause', 'suspension', 'contention', 'file I/O', 'samples'];
    box.replaceChildren();
    for (const v of D.views) {
      const div = document.createElement('div'); div.className = 'view';
      const h = document.createElement('h3');
      const label = v.fields.method && v.fields.path ? v.fields.method + ' ' + v.fields.path + ' ' : '';
      h.textContent = '#' + v.rank + ' ' + label + v.activity + ' at ' + fmt(v.startMs) + ': ' + fmt(v.durationMs) + ' on thread ' + v.threadId;
      div.appendChild(h);
      const f = document.createElement('div'); f.className = 'fields';
      f.textContent = Object.keys(v.fields).length ? Object.entries(v.fields).map(([k, x]) => k + '=' + x).join('  ') : '(no payload fields)';
      div.appendChild(f);
      const W = 1000, L = 80, LH = 16, Hh = lanes.length * LH + 18;
      const X = (t) => L + (t - v.fromMs) / (v.toMs - v.fromMs) * (W - L - 6);
      const svg = document.createElementNS(svgNs, 'svg'); svg.setAttribute('viewBox', '0 0 ' + W + ' ' + Hh);
      const add = (tag, attrs, tip) => {
        const e = document.createElementNS(svgNs, tag);
        for (const k in attrs) e.setAttribute(k, attrs[k]);
        if (tip) { const t = document.createElementNS(svgNs, 'title'); t.textContent = tip; e.appendChild(t); }
        svg.appendChild(e); return e;
      };
      lanes.forEach((name, i) => { const t = add('text', { x: 2, y: i * LH + 12, 'font-size': 11, fill: '#444' }); t.textContent = name; });
      const bar = (lane, s, d, fill, tip) => add('rect', { x: X(s), y: lane * LH + 2, width: Math.max(1, X(s + d) - X(s)), height: LH - 4, fill }, tip);
      if (v.queueMs) { bar(0, v.startMs - v.queueMs, v.queueMs, '#f3a6a6', 'queued ' + fmt(v.queueMs)); }
      bar(0, v.startMs, v.durationMs, '#d62728', 'service ' + fmt(v.durationMs));
      v.gc.start.forEach((s, i) => bar(1, s, v.gc.duration[i], GC[Math.min(2, v.gc.kind[i])].replace(/[\d.]+\)$/, '0.9)'), 'gen' + v.gc.kind[i] + ' GC pause ' + fmt(v.gc.duration[i])));
      v.suspensions.start.forEach((s, i) => bar(2, s, v.suspensions.duration[i], '#777', 'suspension ' + fmt(v.suspensions.duration[i])));
      v.contention.start.forEach((s, i) => bar(3, s, v.contention.duration[i], '#2a9d3a', 'contention ' + fmt(v.contention.duration[i])));
      v.fileReads.start.forEach((s, i) => bar(4, s, v.fileReads.duration[i], '#1f77b4', 'file I/O ' + fmt(v.fileReads.duration[i])));
      v.sampleTimes.forEach((t, i) => add('rect', { x: X(t) - 1, y: 5 * LH + 2, width: 2, height: LH - 4, fill: '#333' }, fmt(t) + ': ' + names[v.sampleFrames[i]]));
      const ax = add('text', { x: L, y: Hh - 3, 'font-size': 11, fill: '#444' }); ax.textContent = fmt(v.fromMs);
      const bx = add('text', { x: W - 6, y: Hh - 3, 'font-size': 11, fill: '#444', 'text-anchor': 'end' }); bx.textContent = fmt(v.toMs);
      div.appendChild(svg);
      box.appendChild(div);
    }
    drawn.views = D.views.length;
  }

  function drawAll() { drawHeatmap(); drawTimeline(); drawFlame(); }
  drawViews();
  drawAll();
  let pending = 0;
  window.addEventListener('resize', () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(drawAll); });
  drawn.ready = true;
})();
