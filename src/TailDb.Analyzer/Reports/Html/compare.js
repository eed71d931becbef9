// TailDb.Analyzer compare pages: every trace's timeline (timeline.js, inlined before this) on one
// shared scale, time and latency alike: a brush, wheel or pan on any moves all. The data holds one
// timeline per key ('a' and 'b' on the compare page, 'm0', 'm1', ... on the load test's modes page),
// drawn on the canvas 'timeline-' + key. window.taildb exposes what was drawn ({ [key], view, x,
// slowStarts }) so browser tests can check it.
(function () {
  'use strict';
  const T = window.TailDbTimeline;
  const data = JSON.parse(document.getElementById('data').textContent);
  const keys = Object.keys(data);
  const scale = T.scaleFor(keys.map((key) => data[key]));
  const drawn = { view: scale.view, keys, slowStarts: {} };
  window.taildb = drawn;
  const sides = keys.map((key) => {
    drawn[key] = {};
    drawn.slowStarts[key] = data[key].slow.start;
    return { key, D: data[key], timeline: T.create(document.getElementById('timeline-' + key), data[key], scale, drawn[key], drawAll) };
  });

  function drawAll() {
    for (const s of sides) {
      s.timeline.draw();
      const d = drawn[s.key];
      document.getElementById('range-' + s.key).textContent = T.describe(scale.view) + ': ' +
        d.slowMarks + ' slow requests (of ' + s.D.slowRequests + '), ' + d.restMarks + ' other dots, ' + T.gcPauses(d);
    }
  }

  // For tests: where a time is drawn, in CSS pixels from a timeline's left edge (all share it).
  drawn.x = sides[0].timeline.x;
  document.getElementById('reset').addEventListener('click', sides[0].timeline.reset);
  for (const s of sides) {
    document.getElementById('sampling-' + s.key).textContent = 'Dots: ' + s.D.sampling + '; GC pauses: all ' + s.D.gc.total + '.';
  }
  drawAll();
  let pending = 0;
  window.addEventListener('resize', () => { cancelAnimationFrame(pending); pending = requestAnimationFrame(drawAll); });
  drawn.ready = true;
})();
