// TailDb.Analyzer HTML reports: the request timeline, shared by the slowest page (one timeline) and
// the compare page (two on one scale). Inlined before the page's own script; no libraries, nothing
// fetched. A timeline draws a picture (PictureData's dots and windows) against a `scale` object that
// every timeline of a page shares: { full: {from, to}, view: {from, to}, lo, hi } (log10 ms), so a
// brush on one zooms them all and equal x means equal time.
(function () {
  'use strict';
  const GC = ['rgba(80,160,255,.45)', 'rgba(150,90,230,.5)', 'rgba(240,120,0,.6)'];
  const M = { l: 64, r: 10, t: 12, b: 30 };
  const fmt = (ms) => ms >= 1000 ? (ms / 1000).toFixed(ms >= 10000 ? 1 : 2) + ' s' : ms >= 1 ? ms.toFixed(ms >= 100 ? 0 : 1) + ' ms' : (ms * 1000).toFixed(0) + ' µs';

  function fit(canvas) {
    const dpr = window.devicePixelRatio || 1;
    const h = Number(canvas.getAttribute('height'));
    if (!canvas.dataset.cssHeight) { canvas.dataset.cssHeight = h; }
    const cssH = Number(canvas.dataset.cssHeight);
    const w = canvas.clientWidth;
    canvas.style.height = cssH + 'px';
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(cssH * dpr);
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { ctx, w, h: cssH };
  }

  function niceStep(span, count) {
    const raw = span / count;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  // One scale for the given pictures: time from 0 to the longest trace, latency over every dot of all of them.
  function scaleFor(pictures) {
    let minD = Infinity, maxD = 0, to = 1;
    for (const D of pictures) {
      to = Math.max(to, D.durationMs);
      for (const set of [D.slow, D.rest]) {
        for (const d of set.duration) { if (d > 0) { if (d < minD) minD = d; if (d > maxD) maxD = d; } }
      }
    }
    if (!isFinite(minD)) { minD = 0.001; maxD = 1; }
    return { full: { from: 0, to }, view: { from: 0, to }, lo: Math.log10(Math.max(minD, 1e-4)) - 0.1, hi: Math.log10(maxD) + 0.1 };
  }

  // Draws picture D on canvas against the shared scale. `drawn` receives what was drawn (the tests read it);
  // onView() runs after a brush, wheel, pan or reset changed scale.view, and must redraw every timeline of the page.
  function create(canvas, D, scale, drawn, onView) {
    const view = scale.view, full = scale.full;
    let brush = null, pan = null;
    const plotWidth = () => canvas.clientWidth - M.l - M.r;
    const x = (t) => M.l + (t - view.from) / (view.to - view.from) * plotWidth();
    const timeAt = (px) => view.from + (px - M.l) / plotWidth() * (view.to - view.from);

    function draw() {
      const { ctx, w, h } = fit(canvas);
      const pw = w - M.l - M.r, ph = h - M.t - M.b;
      const span = view.to - view.from;
      const X = (t) => M.l + (t - view.from) / span * pw;
      const Y = (d) => M.t + ph - (Math.log10(Math.max(d, 1e-4)) - scale.lo) / (scale.hi - scale.lo) * ph;
      ctx.clearRect(0, 0, w, h);
      ctx.fillStyle = '#fff'; ctx.fillRect(M.l, M.t, pw, ph);
      ctx.save(); ctx.beginPath(); ctx.rect(M.l, M.t, pw, ph); ctx.clip();
      // GC pauses: full-height bands coloured by generation.
      let n = 0, outside = 0;
      const gc = D.gc, measured = measuredPhase(D);
      for (let i = 0; i < gc.start.length; i++) {
        const s = gc.start[i], e = s + gc.duration[i];
        if (e < view.from || s > view.to) continue;
        const x0 = X(s), x1 = Math.max(X(e), x0 + 1);
        ctx.fillStyle = GC[Math.min(2, Math.max(0, gc.kind[i]))];
        ctx.fillRect(x0, M.t, x1 - x0, ph); n++;
        if (measured && (e <= measured.startMs || s >= measured.stopMs)) outside++;
      }
      drawn.gcBands = n;
      drawn.gcOutside = outside;
      // Outside the measured phase (fill, warm-up, after it): hatched grey and said so, since the
      // tables count only the measured phase (a nogc run's GCs all happen outside it).
      if (measured) {
        for (const [a, b] of [[view.from, measured.startMs], [measured.stopMs, view.to]]) {
          if (b <= a || b < view.from || a > view.to) continue;
          const x0 = Math.max(M.l, X(a)), x1 = Math.min(M.l + pw, X(b));
          if (x1 <= x0) continue;
          ctx.fillStyle = 'rgba(200,200,200,.55)'; ctx.fillRect(x0, M.t, x1 - x0, ph);
          if (x1 - x0 > 70) {
            ctx.fillStyle = '#555'; ctx.font = '11px sans-serif'; ctx.textAlign = 'center';
            ctx.fillText('outside the', (x0 + x1) / 2, M.t + ph / 2 - 6);
            ctx.fillText('measured phase', (x0 + x1) / 2, M.t + ph / 2 + 8);
            ctx.textAlign = 'start';
          }
        }
      }
      // Runtime suspensions in a strip at the top, contention in one at the bottom.
      n = 0; ctx.fillStyle = '#777';
      const su = D.suspensions;
      for (let i = 0; i < su.start.length; i++) {
        const s = su.start[i], e = s + su.duration[i];
        if (e < view.from || s > view.to) continue;
        const x0 = X(s); ctx.fillRect(x0, M.t, Math.max(X(e) - x0, 1), 6); n++;
      }
      drawn.suspensions = n;
      n = 0; ctx.fillStyle = '#2a9d3a';
      const co = D.contention;
      for (let i = 0; i < co.start.length; i++) {
        const s = co.start[i], e = s + co.duration[i];
        if (e < view.from || s > view.to) continue;
        const x0 = X(s); ctx.fillRect(x0, M.t + ph - 6, Math.max(X(e) - x0, 1), 6); n++;
      }
      drawn.contention = n;
      // A request mostly queued (arrival to Start more than half its response time) is drawn pink:
      // after a pause the requests that waited behind it pile up as a pink streak.
      const queuedMostly = (dots, i) => dots.queue && dots.queue[i] > dots.duration[i] / 2;
      n = 0; let q = 0;
      for (let i = 0; i < D.rest.start.length; i++) {
        const t = D.rest.start[i];
        if (t < view.from || t > view.to) continue;
        const mostly = queuedMostly(D.rest, i);
        ctx.fillStyle = mostly ? 'rgba(227,119,194,.7)' : 'rgba(110,130,130,.55)';
        ctx.fillRect(X(t) - 1, Y(D.rest.duration[i]) - 1, 2, 2); n++; if (mostly) q++;
      }
      drawn.restMarks = n;
      n = 0;
      for (let i = 0; i < D.slow.start.length; i++) {
        const t = D.slow.start[i];
        if (t < view.from || t > view.to) continue;
        const x0 = X(t), x1 = X(t + D.slow.duration[i]), y = Y(D.slow.duration[i]);
        const mostly = queuedMostly(D.slow, i);
        // Zoomed in far enough, a slow request is drawn as its span, not a dot: queue part pale, service red.
        if (x1 - x0 > 4) {
          const xq = D.slow.queue ? X(t + D.slow.queue[i]) : x0;
          ctx.fillStyle = '#f3a6a6'; ctx.fillRect(x0, y - 1.5, xq - x0, 3);
          ctx.fillStyle = '#d62728'; ctx.fillRect(xq, y - 1.5, x1 - xq, 3);
        } else {
          ctx.fillStyle = mostly ? '#e377c2' : '#d62728'; ctx.fillRect(x0 - 1.5, y - 1.5, 3, 3);
        }
        n++; if (mostly) q++;
      }
      drawn.slowMarks = n;
      drawn.queuedMarks = q;
      ctx.strokeStyle = '#d62728'; ctx.setLineDash([4, 4]); ctx.beginPath();
      ctx.moveTo(M.l, Y(D.thresholdMs)); ctx.lineTo(M.l + pw, Y(D.thresholdMs)); ctx.stroke(); ctx.setLineDash([]);
      drawn.phases = 0;
      for (const p of (D.phases || [])) {
        if (p.startMs < view.from || p.startMs > view.to) continue;
        drawn.phases++;
        ctx.strokeStyle = '#000'; ctx.beginPath(); ctx.moveTo(X(p.startMs), M.t); ctx.lineTo(X(p.startMs), M.t + ph); ctx.stroke();
        ctx.fillStyle = '#000'; ctx.fillText(p.name, X(p.startMs) + 3, M.t + 18);
      }
      if (brush) { ctx.fillStyle = 'rgba(0,100,255,.15)'; ctx.fillRect(Math.min(brush.a, brush.b), M.t, Math.abs(brush.b - brush.a), ph); }
      ctx.restore();
      // axes
      ctx.fillStyle = '#333'; ctx.strokeStyle = '#ccc'; ctx.font = '11px sans-serif'; ctx.textAlign = 'right';
      for (let e = Math.ceil(scale.lo); e <= Math.floor(scale.hi); e++) {
        for (const m of [1, 2, 5]) {
          const v = m * Math.pow(10, e), y = Y(v);
          if (y < M.t || y > M.t + ph) continue;
          ctx.fillText(fmt(v), M.l - 4, y + 4);
          ctx.beginPath(); ctx.moveTo(M.l, y); ctx.lineTo(M.l + pw, y); ctx.globalAlpha = m === 1 ? 0.6 : 0.25; ctx.stroke(); ctx.globalAlpha = 1;
        }
      }
      ctx.textAlign = 'center';
      const step = niceStep(span, Math.max(2, Math.floor(pw / 110)));
      for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
        ctx.fillText(fmt(t), X(t), h - M.b + 16);
        ctx.fillRect(X(t), M.t + ph, 1, 4);
      }
      ctx.strokeStyle = '#888'; ctx.strokeRect(M.l, M.t, pw, ph);
      canvas.dataset.gcBands = drawn.gcBands; canvas.dataset.slowMarks = drawn.slowMarks; canvas.dataset.queuedMarks = drawn.queuedMarks; canvas.dataset.phases = drawn.phases || 0; canvas.dataset.gcOutside = drawn.gcOutside; canvas.dataset.from = view.from; canvas.dataset.to = view.to;
    }

    function setView(a, b) {
      let from = Math.min(a, b), to = Math.max(a, b);
      if (to - from < 1) { const c = (from + to) / 2; from = c - 0.5; to = c + 0.5; }
      view.from = Math.max(full.from - 1, from); view.to = Math.min(full.to + 1, to);
      onView();
    }

    canvas.addEventListener('mousedown', (e) => {
      if (e.shiftKey) { pan = { x: e.offsetX, from: view.from, to: view.to }; return; }
      brush = { a: e.offsetX, b: e.offsetX };
    });
    canvas.addEventListener('mousemove', (e) => {
      if (pan) {
        const dt = (e.offsetX - pan.x) / plotWidth() * (pan.to - pan.from);
        view.from = pan.from - dt; view.to = pan.to - dt; onView(); return;
      }
      if (brush) { brush.b = e.offsetX; draw(); }
    });
    window.addEventListener('mouseup', () => {
      if (pan) { pan = null; return; }
      if (!brush) return;
      const b = brush; brush = null;
      if (Math.abs(b.b - b.a) > 3) { setView(timeAt(b.a), timeAt(b.b)); } else { draw(); }
    });
    canvas.addEventListener('wheel', (e) => {
      e.preventDefault();
      const t = timeAt(e.offsetX), k = e.deltaY > 0 ? 1.25 : 0.8;
      setView(t - (t - view.from) * k, t + (view.to - t) * k);
    }, { passive: false });
    canvas.addEventListener('dblclick', () => setView(full.from, full.to));
    return { draw, setView, x, reset: () => setView(full.from, full.to) };
  }

  // The load test's measured phase ({ name: 'measured', startMs, stopMs }), or null when the trace marks no phases.
  function measuredPhase(D) {
    return (D.phases || []).find((p) => p.name === 'measured' && p.stopMs > p.startMs) || null;
  }

  // "12 GC pauses (9 outside the measured phase)": what a range line says of the bands drawn.
  const gcPauses = (d) => d.gcBands + ' GC pause' + (d.gcBands === 1 ? '' : 's') + (d.gcOutside ? ' (' + d.gcOutside + ' outside the measured phase, greyed)' : '');

  // "showing 1.2 s – 1.5 s (300 ms)": the range line above a page's timelines.
  const describe = (view) => 'showing ' + fmt(view.from) + ' – ' + fmt(view.to) + ' (' + fmt(view.to - view.from) + ')';

  window.TailDbTimeline = { GC, margins: M, fmt, fit, niceStep, scaleFor, create, describe, gcPauses };
})();
