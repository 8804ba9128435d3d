// gwconform history page. Reads the nights from the JSON block and builds
// the page with createElement/textContent only: report text may come from
// a gateway, so none is ever parsed as HTML.
(function () {
  'use strict';

  var H = JSON.parse(document.getElementById('history-data').textContent);
  var nights = H.nights || [];
  var models = H.models || [];
  // A model the newest night sent under another id heads its row as
  // "spec \u2192 gateway"; everything else is keyed by the spec id.
  var modelLabels = H.modelLabels || {};
  var features = H.features || [];
  var cells = H.cells || [];

  function cellAt(mi, fi) { return cells[mi * features.length + fi]; }
  function nightName(i) { return i >= 0 && i < nights.length ? nights[i].label : ''; }
  // state is what a night's cell shows: red (it failed the run), soft (a
  // failure that did not), or the cell status.
  function state(c, i) {
    if (c.red[i]) return 'red';
    if (c.statuses[i] === 'fail') return 'soft';
    return c.statuses[i];
  }
  var last = nights.length - 1;

  // ---- facts
  (function facts() {
    var f = document.getElementById('facts');
    function fact(label, value) { add(f, add(el('span'), label + ' ', el('b', null, value))); }
    fact('nights', nights.length);
    if (nights.length) fact('latest', nights[last].label + ' \u00b7 ' + nights[last].verdict);
    function n(k) { return k + (k === 1 ? ' cell' : ' cells'); }
    fact('red now', n(cells.filter(function (c) { return last >= 0 && c.red[last]; }).length));
    fact('flapping', n(cells.filter(function (c) { return c.flapping; }).length));
    // Nights of different gateways: said above everything, as diff says it.
    (H.warnings || []).forEach(function (w) {
      var p = el('p', 'history-warning', '\u26a0 ' + w);
      f.parentNode.insertBefore(p, f);
    });
  })();

  // ---- per night: verdict, headline, counts
  (function nightsTable() {
    var s = document.getElementById('nights');
    add(s, el('h2', null, 'Nights'));
    var t = el('table', 'totals nights-table');
    t.id = 'nights-table';
    var cols = ['pass', 'fail', 'error', 'skip', 'unsupported', 'throttled', 'inconclusive', 'waived', 'total'];
    var hr = el('tr');
    add(hr, el('th', null, 'night'), el('th', null, 'verdict'), el('th', 'headline-cell', 'headline'));
    cols.forEach(function (c) { add(hr, el('th', null, c)); });
    add(hr, el('th', null, 'suite'));
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    nights.forEach(function (n) {
      var tr = el('tr', 'night');
      tr.dataset.verdict = n.verdict;
      tr.dataset.night = n.label;
      var v = ['pass', 'incomplete', 'no-verdict'].indexOf(n.verdict) >= 0 ? n.verdict : 'fail';
      add(tr, el('td', 'mono', n.label), add(el('td'), el('span', 'verdict ' + v, v.replace('-', ' ').toUpperCase())), el('td', 'headline-cell', n.headline || ''));
      var cnt = n.total || {};
      cols.forEach(function (c) { add(tr, el('td', cnt[c] ? null : 'zero', cnt[c] || 0)); });
      add(tr, el('td', 'mono', (n.suiteVersion || '') + (n.commit ? ' ' + n.commit.slice(0, 8) : '')));
      tr.title = n.source || '';
      add(tb, tr);
    });
    add(t, tb);
    add(s, t);
  })();

  // ---- red now, flapping, first red night of every cell ever red
  (function attention() {
    var s = document.getElementById('attention');
    function list(id, title, empty, pick, describe) {
      var box = el('div', 'hlist');
      box.id = id;
      var chosen = cells.filter(pick);
      add(box, el('h2', null, title + ' (' + chosen.length + ')'));
      if (!chosen.length) { add(box, el('p', 'empty', empty)); add(s, box); return; }
      var ul = el('ul');
      chosen.forEach(function (c) {
        var li = el('li');
        li.dataset.model = c.model;
        li.dataset.feature = c.feature;
        add(li, el('span', 'where', c.model + ' \u00b7 ' + c.feature), ' ', el('span', 'why', describe(c)));
        add(ul, li);
      });
      add(box, ul);
      add(s, box);
    }
    list('red-now', 'Red in the last night', 'None: no cell failed the run in the last night.',
      function (c) { return last >= 0 && c.red[last]; },
      function (c) { return 'red since ' + nightName(c.redSince) + ' \u00b7 first red ' + nightName(c.firstRed) + (c.flapping ? ' \u00b7 flapping' : ''); });
    list('flapping', 'Flapping: pass and fail alternating', 'None: no cell went red, green and red again.',
      function (c) { return c.flapping; },
      function (c) { return c.statuses.map(function (x, i) { return state(c, i); }).join(' \u2192 '); });
    list('first-red', 'First red night of every cell that was red', 'No cell was red in these nights.',
      function (c) { return c.firstRed >= 0; },
      function (c) { return 'first red ' + nightName(c.firstRed); });
  })();

  // ---- the matrix over nights: a strip of nights in every cell
  (function matrix() {
    var wrap = document.getElementById('history-wrap');
    var usedF = features.map(function (f, fi) { return models.some(function (m, mi) { return cellAt(mi, fi).statuses.some(function (x) { return x !== 'none'; }); }); });
    var t = el('table', 'matrix hmatrix');
    var hr = el('tr');
    add(hr, el('th', 'corner', 'model \u2193 feature \u2192 (one mark per night, oldest first)'));
    features.forEach(function (f, fi) {
      if (!usedF[fi]) return;
      var th = el('th', 'feat');
      add(th, el('div', null, f));
      th.title = f;
      add(hr, th);
    });
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    models.forEach(function (m, mi) {
      var tr = el('tr');
      add(tr, el('th', 'model', modelLabels[m] || m));
      features.forEach(function (f, fi) {
        if (!usedF[fi]) return;
        var c = cellAt(mi, fi);
        if (c.statuses.every(function (x) { return x === 'none'; })) { add(tr, el('td', 'hcell none')); return; }
        var td = el('td', 'hcell');
        td.dataset.model = m;
        td.dataset.feature = f;
        td.dataset.firstRed = nightName(c.firstRed);
        td.dataset.redSince = nightName(c.redSince);
        td.dataset.flapping = String(!!c.flapping);
        if (c.flapping) td.classList.add('flapping');
        if (last >= 0 && c.red[last]) td.classList.add('red-now');
        var strip = el('div', 'strip');
        var lines = [m + ' \u00d7 ' + f];
        c.statuses.forEach(function (x, i) {
          var st = state(c, i);
          var dot = el('span', 'dot ' + st);
          dot.dataset.night = nights[i].label;
          dot.dataset.state = st;
          if (i === c.firstRed) dot.classList.add('first-red');
          add(strip, dot);
          lines.push(nights[i].label + ': ' + (c.labels[i] || x) + (st === 'red' ? ' (failed the run)' : ''));
        });
        if (c.firstRed >= 0) lines.push('first red: ' + nightName(c.firstRed));
        if (c.redSince >= 0) lines.push('red since: ' + nightName(c.redSince));
        if (c.flapping) lines.push('flapping: pass and fail alternating');
        td.title = lines.join('\n');
        add(td, strip);
        add(tr, td);
      });
      add(tb, tr);
    });
    add(t, tb);
    add(wrap, t);
    var lg = el('div', 'legend hlegend');
    [['pass', 'pass'], ['red', 'failed the run'], ['soft', 'failed, reported only (strict/explore)'], ['error', 'error (counted as red when it fails the run)'],
      ['throttled', 'throttled'], ['inconclusive', 'inconclusive (control not served)'], ['waived', 'waived'], ['unsupported', 'unsupported (explore)'], ['skip', 'skipped'], ['none', 'no cases that night']].forEach(function (x) {
      add(lg, add(el('div'), el('span', 'dot ' + x[0]), ' ' + x[1]));
    });
    add(lg, add(el('div'), el('span', 'dot red first-red'), ' first red night'));
    add(wrap, lg);
  })();
  // ---- each client library's readiness over the nights (report.json's
  // readiness): a row a library, a column a night.
  (function readiness() {
    var list = H.readiness || [];
    var s = document.getElementById('readiness');
    if (!list.length) return;
    s.hidden = false;
    var CLS = READINESS.cls, LABEL = READINESS.label;
    add(s, el('h2', null, 'Client readiness over nights'));
    var t = el('table', 'readiness-over');
    t.id = 'readiness-over';
    var hr = el('tr');
    add(hr, el('th', null, 'library'));
    nights.forEach(function (n) { add(hr, el('th', null, n.label)); });
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    list.forEach(function (r) {
      var tr = el('tr', 'client-row');
      tr.dataset.client = r.client;
      add(tr, add(el('td'), el('code', null, r.client)));
      (r.verdicts || []).forEach(function (v) {
        add(tr, add(el('td'), v ? el('span', 'badge ' + (CLS[v] || 'st-skip'), LABEL[v] || v) : el('span', 'muted', '\u2014')));
      });
      add(tb, tr);
    });
    add(s, add(t, tb));
  })();
})();
