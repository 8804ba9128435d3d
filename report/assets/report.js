// gwconform report page. Reads the report from the JSON block and builds the
// page with createElement/textContent only: every string of the report may
// come from the gateway, so none is ever parsed as HTML.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('report-data').textContent);
  var R = data.report;
  var models = R.models || [];
  var features = R.features || [];
  var cells = R.cells || [];
  var resultsAll = R.results || [];
  var groups = data.groups || [];
  var decides = data.decides || {};
  var exploreFeatures = data.explore || {}; // features that only discover: marked, never failing the run
  // A model sent under another id heads its row as "spec \u2192 gateway";
  // cells, links and results stay keyed by the spec id.
  var modelLabels = data.modelLabels || {};
  function modelLabel(m) { return modelLabels[m] || m; }
  var strict = !!(R.metadata && R.metadata.strict);

  var STATUSES = ['pass', 'fail', 'error', 'throttled', 'inconclusive', 'waived', 'unsupported', 'skip', 'not-offered', 'none'];
  var GLYPH = { pass: '\u2713', fail: '\u2717', error: '!', throttled: '429', inconclusive: '?', waived: '\u2691', unsupported: '\u2298', skip: '\u21b7', 'not-offered': 'not offered', none: '\u00b7' };
  var DESC = {
    pass: 'pass: every case held',
    fail: 'fail k/n: k of the n cases run passed (k/n means that in every cell)',
    soft: 'fail in strict/explore cases only (reported, does not fail the run)',
    error: 'error: the run broke, not the gateway',
    throttled: 'throttled: still 429 after waiting --max-wait',
    inconclusive: 'inconclusive k/n: refusals whose control was not served, so not checked (the run is incomplete)',
    waived: 'waived k/n: known deviations (--waivers), not failing the run',
    explore: 'features marked (explore) discover and never fail the run',
    unsupported: 'unsupported: the gateway declined (explore)',
    skip: 'skipped: not selected or precondition missing',
    'not-offered': 'not offered: the gateway declares it does not serve the feature (--offers); nothing sent',
    none: 'no cases for this model'
  };

  function ms(v) {
    if (v === undefined || v === null) return '\u2013';
    if (v >= 10000) return (v / 1000).toFixed(1) + ' s';
    return v + ' ms';
  }
  function bytes(n) {
    if (!n) return '0 B';
    if (n < 1024) return n + ' B';
    if (n < 1048576) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1048576).toFixed(2) + ' MiB';
  }
  function units(v) { return String(Math.round(v * 100) / 100); }
  // A link from the waivers file becomes a link only when it is a plain
  // http(s) URL; anything else (javascript:, data:) stays text.
  function link(href) {
    if (!/^https?:\/\/[^\s<>"]+$/.test(href || '')) return el('span', 'mono', href || '');
    var a = el('a', null, href);
    a.href = href;
    a.rel = 'noopener noreferrer';
    return a;
  }
  // shq quotes a word for a POSIX shell when it needs it.
  function shq(w) { return /^[A-Za-z0-9._\/-]+$/.test(w) ? w : "'" + String(w).replace(/'/g, "'\\''") + "'"; }
  // showCommand shows one result and prints the curl that sends its
  // request again, run in the report's directory: matrix.md writes the
  // same (markdown.go showCommand). Flags go before the case.
  function showCommand(model, caseID) { return 'gwconform show --out . --model ' + shq(model) + ' --curl ' + shq(caseID); }
  // copyButton copies text to the clipboard: what operators paste (a
  // request id, a command), whole. The browser may refuse (no focus, a
  // page it does not trust): the button says so rather than "copied".
  function copyButton(text) {
    var b = el('button', 'copy', 'copy');
    b.type = 'button';
    b.addEventListener('click', function (e) {
      e.stopPropagation();
      function refused() { b.textContent = 'not copied: select the text'; }
      if (!navigator.clipboard) { refused(); return; }
      navigator.clipboard.writeText(text).then(function () { b.textContent = 'copied'; }, refused);
    });
    return b;
  }
  // reasonText is a reason on one line, as vocab.Reason.String says it.
  function reasonText(x) {
    return (x.check ? x.check + (x.where ? ' at ' + x.where : '') + ': ' : '') + (x.message || '') +
      (x.expected || x.actual ? ' (expected ' + (x.expected || '') + ', got ' + (x.actual || '') + ')' : '');
  }
  function cellAt(mi, fi) { return cells[mi * features.length + fi]; }
  function decidesExit(res) { return !!decides[res.tier]; }
  function isFailed(res) { return res.status === 'fail' || res.status === 'error'; }
  function cellClass(c) { return 'st-' + c.status + (c.status === 'fail' && !c.blocking ? ' soft' : ''); }
  function cellText(c) {
    if (c.status === 'none') return GLYPH.none;
    // k/n is the same count in every cell: k of the n cases run passed.
    if (c.bad > 0) return GLYPH[c.status] + ' ' + c.counts.pass + '/' + c.run;
    if (c.status === 'pass' && c.counts.pass < c.run) return GLYPH.pass + ' ' + c.counts.pass + '/' + c.run;
    return GLYPH[c.status] + (c.status === 'pass' && c.counts.flaky > 0 ? '*' : '');
  }
  function cellTitle(c) {
    var parts = [];
    ['pass', 'fail', 'error', 'throttled', 'inconclusive', 'waived', 'unsupported', 'skip'].forEach(function (s) {
      if (c.counts[s]) parts.push(c.counts[s] + ' ' + s);
    });
    if (c.counts.flaky) parts.push(c.counts.flaky + ' flaky');
    return c.model + ' \u00d7 ' + c.feature + ': ' + c.label + (parts.length ? ' (' + parts.join(', ') + ')' : '');
  }

  var byCell = new Map();
  resultsAll.forEach(function (r, i) {
    var k = r.model + '\u0000' + r.feature;
    if (!byCell.has(k)) byCell.set(k, []);
    byCell.get(k).push(i);
  });

  // ---- header facts
  (function facts() {
    var f = document.getElementById('facts');
    var m = R.metadata || {};
    var h = document.getElementById('title');
    var outcome = ['pass', 'incomplete', 'no-verdict'].indexOf(R.verdict) >= 0 ? R.verdict : 'fail';
    h.replaceChildren(el('span', 'verdict ' + outcome, outcome.replace('-', ' ').toUpperCase()),
      'Model-Gateway conformance' + (m.suiteVersion ? ' \u00b7 gwconform ' + m.suiteVersion : ''));
    // The headline says what the badge means (a run of explore cases only
    // never claims conformance); the notes say what was not checked.
    var head = document.getElementById('headline');
    if (head) {
      head.replaceChildren(el('b', null, R.headline || ''));
      var notes = R.notes || [];
      if (notes.length) {
        var ul = el('ul');
        notes.forEach(function (n) { add(ul, el('li', null, n)); });
        add(head, ul);
      }
    }
    function fact(label, value) {
      if (value === undefined || value === null || value === '') return;
      add(f, add(el('span'), label + ' ', el('b', null, value)));
    }
    fact('suite', m.suiteVersion);
    fact('commit', m.commit ? m.commit.slice(0, 12) : '');
    fact('catalog', m.catalogHash ? m.catalogHash.slice(0, 12) : '');
    fact('gateway', m.traffic && m.traffic.standIn ? 'the stand-in (serve --judge: the reference gateway answers; the client\'s requests are judged)' : m.baseURL || 'reference gateway (in-process)');
    Object.keys(m.kindBaseURLs || {}).sort().forEach(function (k) { fact(k + ' at', m.kindBaseURLs[k]); });
    if (m.offers && m.offers.length) fact('offers', m.offers.join(','));
    if (m.shard) fact('shard', m.shard);
    if (m.replay) fact('replay of', m.replay.recording + (m.replay.recorded ? ' (recorded ' + String(m.replay.recorded).slice(0, 16).replace('T', ' ') + ')' : ''));
    if (m.recording) fact('recorded to', m.recording);
    if (m.started && !/^0001-/.test(m.started)) {
      var s = new Date(m.started);
      fact('started', s.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
      if (m.finished) {
        var d = (new Date(m.finished) - s) / 1000;
        if (d > 0) fact('took', d >= 90 ? Math.round(d / 60) + ' min' : Math.round(d) + ' s');
      }
    }
    fact('mode', strict ? '--strict' : 'default (strict tier reported only)');
    fact('size', models.length + ' models \u00d7 ' + features.length + ' features, ' + resultsAll.length + ' results');
    var cost = R.cost || {};
    fact('cost', units(cost.actual || 0) + ' units spent' + (typeof cost.planned === 'number' ? ', ' + units(cost.planned) + ' planned' : '') +
      (cost.budget ? ', budget ' + units(cost.budget) : ''));
  })();

  // ---- totals and legend
  (function summary() {
    var s = document.getElementById('summary');
    var t = el('table', 'totals');
    var cols = ['pass', 'fail', 'error', 'skip', 'unsupported', 'throttled', 'inconclusive', 'waived', 'total'];
    var hr = el('tr');
    add(hr, el('th', null, 'tier'));
    cols.forEach(function (c) { add(hr, el('th', null, c)); });
    add(hr, el('th', null, 'decides exit'));
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    function row(name, cnt, dec, cls) {
      var tr = el('tr', cls);
      add(tr, el('td', null, name));
      cols.forEach(function (c) { add(tr, el('td', cnt[c] ? null : 'zero', cnt[c] || 0)); });
      add(tr, el('td', null, dec === null ? '' : (dec ? 'yes' : 'no')));
      add(tb, tr);
    }
    (R.totals || []).forEach(function (x) { row(x.tier, x.counts, x.decides); });
    row('all', R.total || {}, null, 'all');
    add(t, tb);
    add(s, add(el('div'), el('h2', null, 'Totals per tier'), t));

    var lg = el('div', 'legend');
    ['pass', 'fail', 'soft', 'error', 'throttled', 'inconclusive', 'waived', 'unsupported', 'skip', 'not-offered', 'none'].forEach(function (k) {
      var sw = el('span', 'sw st-' + k, k === 'soft' || k === 'fail' || k === 'throttled' || k === 'inconclusive' || k === 'waived' ? 'k/n' : GLYPH[k]);
      add(lg, add(el('div'), sw, DESC[k]));
    });
    add(lg, add(el('div'), el('span', 'sw', '*'), 'passed after a retry (flaky)'));
    add(lg, add(el('div'), el('span', 'sw wide', '(explore)'), DESC.explore));
    add(s, add(el('div'), el('h2', null, 'Legend'), lg));
  })();

  // ---- filters
  var state = { statuses: new Set(), model: '', feature: '' };
  var shownEl = el('span', 'shown');
  (function controls() {
    var c = document.getElementById('controls');
    var chips = el('span', 'chips');
    var tally = {};
    cells.forEach(function (x) { tally[x.status] = (tally[x.status] || 0) + 1; });
    STATUSES.forEach(function (st) {
      var b = el('button', 'chip', st === 'none' ? '\u2014 none' : st.replace('-', ' '));
      b.type = 'button';
      b.dataset.status = st;
      b.setAttribute('aria-pressed', 'false');
      b.title = 'show only cells that are ' + st + ' (number of cells)';
      add(b, el('span', 'n', tally[st] || 0));
      b.addEventListener('click', function () {
        if (state.statuses.has(st)) state.statuses.delete(st); else state.statuses.add(st);
        b.setAttribute('aria-pressed', String(state.statuses.has(st)));
        applyFilters();
      });
      add(chips, b);
    });
    add(c, add(el('label'), 'status '), chips);

    function search(id, label, list, key) {
      var dl = el('datalist');
      dl.id = id + '-list';
      list.forEach(function (v) { var o = el('option'); o.value = v; add(dl, o); });
      var inp = el('input');
      inp.type = 'search';
      inp.id = id;
      inp.placeholder = label + ' contains\u2026';
      inp.setAttribute('list', dl.id);
      inp.setAttribute('aria-label', 'filter by ' + label);
      inp.addEventListener('input', function () { state[key] = inp.value.trim().toLowerCase(); applyFilters(); });
      add(c, add(el('label'), label + ' ', inp, dl));
    }
    search('filter-model', 'model', models.map(modelLabel), 'model');
    search('filter-feature', 'feature', features, 'feature');
    var reset = el('button', 'plain', 'reset');
    reset.type = 'button';
    reset.addEventListener('click', function () {
      state.statuses.clear(); state.model = ''; state.feature = '';
      c.querySelectorAll('button.chip').forEach(function (b) { b.setAttribute('aria-pressed', 'false'); });
      c.querySelectorAll('input[type=search]').forEach(function (i) { i.value = ''; });
      applyFilters();
    });
    add(c, reset, shownEl);
  })();

  // ---- matrix: one table per interface family (feature group), whose rows
  // are the models with cases in it. A wide grid of every model × feature
  // scrolls the one column of a model served by one interface out of sight;
  // a narrow table per family does not, and the tables wrap on the page.
  var rowEls = [], colEls = [], tdEls = [], groupEls = [];
  var selected = null;
  (function matrix() {
    var wrap = document.getElementById('matrix-wrap');
    if (!models.length) { add(wrap, el('p', 'empty', 'No results.')); return; }
    var fi0 = {};
    features.forEach(function (f, i) { fi0[f] = i; colEls[i] = []; });
    models.forEach(function (m, mi) { rowEls[mi] = []; tdEls[mi] = []; });
    groups.forEach(function (g) {
      var fis = g.features.map(function (f) { return fi0[f]; });
      var mis = [];
      models.forEach(function (m, mi) {
        if (fis.some(function (fi) { return cellAt(mi, fi).status !== 'none'; })) mis.push(mi);
      });
      if (!mis.length) return;
      var t = el('table', 'matrix');
      t.dataset.group = g.name;
      var thead = el('thead');
      var r1 = el('tr'), r2 = el('tr');
      var corner = el('th', 'corner', 'model \\ feature');
      corner.rowSpan = 2;
      var th = el('th', 'group', g.name);
      th.colSpan = g.features.length;
      add(r1, corner, th);
      groupEls.push({ th: th, table: t, fis: fis });
      g.features.forEach(function (f, j) {
        var fi = fi0[f];
        var short = f.indexOf(g.name + '.') === 0 ? f.slice(g.name.length + 1) : f.split('.').pop();
        var explore = !!exploreFeatures[f];
        var th2 = el('th', 'feat' + (j === 0 ? ' first' : '') + (explore ? ' explore' : ''));
        th2.title = f + (explore ? ' (explore: discovers, never fails the run)' : '');
        th2.dataset.feature = f;
        add(th2, el('div', null, short + (explore ? ' (explore)' : '')));
        add(r2, th2);
        colEls[fi].push(th2);
      });
      add(thead, r1, r2);
      var tbody = el('tbody');
      mis.forEach(function (mi) {
        var m = models[mi];
        var tr = el('tr');
        tr.dataset.model = m;
        var mth = el('th', 'model', modelLabel(m));
        mth.scope = 'row';
        add(tr, mth);
        fis.forEach(function (fi, j) {
          var c = cellAt(mi, fi);
          var td = el('td', 'cell ' + cellClass(c) + (j === 0 ? ' first' : ''));
          td.dataset.status = c.status;
          td.dataset.model = m;
          td.dataset.feature = c.feature;
          td.title = cellTitle(c);
          add(td, el('span', null, cellText(c)));
          if (c.status !== 'none') {
            td.tabIndex = 0;
            td.addEventListener('click', function () { showCell(mi, fi, null); });
            td.addEventListener('keydown', function (e) {
              if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); showCell(mi, fi, null); }
            });
          }
          add(tr, td);
          tdEls[mi][fi] = td;
          colEls[fi].push(td);
        });
        rowEls[mi].push(tr);
        add(tbody, tr);
      });
      add(t, thead, tbody);
      add(wrap, t);
    });
  })();

  function applyFilters() {
    var st = state.statuses;
    function stOK(c) { return st.size === 0 || st.has(c.status); }
    var featOK = features.map(function (f) { return !state.feature || f.toLowerCase().indexOf(state.feature) >= 0; });
    var rowOK = models.map(function (m, mi) {
      if (state.model && modelLabel(m).toLowerCase().indexOf(state.model) < 0) return false;
      if (st.size === 0) return true;
      return features.some(function (f, fi) { return featOK[fi] && stOK(cellAt(mi, fi)); });
    });
    var colOK = features.map(function (f, fi) {
      if (!featOK[fi]) return false;
      if (st.size === 0) return true;
      return models.some(function (m, mi) { return rowOK[mi] && stOK(cellAt(mi, fi)); });
    });
    var nr = 0, nc = 0;
    rowEls.forEach(function (trs, mi) {
      trs.forEach(function (tr) { tr.classList.toggle('hidden', !rowOK[mi]); });
      if (rowOK[mi]) nr++;
    });
    colEls.forEach(function (list, fi) {
      list.forEach(function (e) { e.classList.toggle('hidden', !colOK[fi]); });
      if (colOK[fi]) nc++;
    });
    tdEls.forEach(function (row, mi) {
      row.forEach(function (td, fi) { if (td) td.classList.toggle('dim', !stOK(cellAt(mi, fi))); });
    });
    groupEls.forEach(function (g) {
      var n = g.fis.filter(function (fi) { return colOK[fi]; }).length;
      g.th.colSpan = Math.max(n, 1);
      var rows = Array.prototype.filter.call(g.table.tBodies[0].rows, function (tr) { return !tr.classList.contains('hidden'); }).length;
      g.table.classList.toggle('hidden', n === 0 || rows === 0);
    });
    shownEl.textContent = 'showing ' + nr + ' of ' + models.length + ' models \u00d7 ' + nc + ' of ' + features.length + ' features';
  }

  // ---- detail panel
  function badge(cls, text) { return el('span', 'badge ' + cls, text); }
  function statusBadge(res) {
    var cls = 'st-' + res.status;
    if (res.status === 'fail' && !decidesExit(res)) cls = 'st-soft';
    return badge(cls, res.status);
  }

  function renderCase(res, idx) {
    var box = el('article', 'case');
    box.id = 'case-' + idx;
    box.dataset.case = res.case;
    var head = el('div', 'chead');
    add(head, statusBadge(res), el('code', null, res.case), badge('tier ' + res.tier, res.tier));
    if (res.flaky) add(head, badge('flaky', res.reruns ? 'flaky: passed when re-run' : 'flaky: passed after ' + res.attempts + ' attempts'));
    if (isFailed(res) && !decidesExit(res)) add(head, badge('muted', 'reported only, does not fail the run'));
    if (res.key) add(head, badge('muted', 'key: ' + res.key));
    add(box, head);
    if (res.waiver) {
      var wv = res.waiver;
      var wtext = { applied: 'waived: a known deviation, not failing the run', 'not-needed': 'waiver no longer needed: this case passed',
        expired: 'waiver expired ' + wv.expires + ': it no longer applies' }[wv.state] || wv.state;
      add(box, add(el('div', 'waiver ' + wv.state), el('b', null, wtext), ' \u2014 ', wv.reason || '', ' \u00b7 ', link(wv.link),
        ' \u00b7 ', el('span', 'mono', wv.source || ''), wv.state === 'expired' ? null : ' \u00b7 expires ' + wv.expires));
    }
    if (res.requirement) add(box, el('blockquote', 'req', res.requirement));
    if (res.spec) add(box, el('div', 'spec', 'spec \u00a7 ' + res.spec));

    // expected vs actual
    add(box, el('h3', null, isFailed(res) || (res.reasons && res.reasons.length) ? 'Expected vs actual' : 'Checks'));
    if (res.reasons && res.reasons.length) {
      var t = el('table', 'reasons');
      var hr = el('tr');
      ['check', 'where', 'expected', 'actual', 'message'].forEach(function (h) { add(hr, el('th', null, h)); });
      add(t, add(el('thead'), hr));
      var tb = el('tbody');
      res.reasons.forEach(function (x) {
        var tr = el('tr', 'reason');
        add(tr, add(el('td'), el('code', null, x.check || '')), el('td', 'mono', x.where || ''),
          el('td', 'exp mono', x.expected || ''), el('td', 'act mono', x.actual || ''), el('td', 'msg', x.message || ''));
        add(tb, tr);
      });
      add(box, add(t, tb));
    } else if (res.status === 'pass') {
      add(box, el('div', 'ok', '\u2713 every expectation held'));
    } else {
      add(box, el('div', 'empty', 'no reason recorded'));
    }

    // what the first run said, when --rerun-failed ran the case again
    if (res.reruns) {
      add(box, el('h3', null, 'First run: ' + (res.first_status || '?') + ' (re-run ' + res.reruns + '\u00d7)'));
      var fr = el('ul', 'first-reasons');
      (res.first_reasons || []).forEach(function (x) {
        add(fr, el('li', 'mono', reasonText(x)));
      });
      add(box, fr);
    }

    // timings
    add(box, el('h3', null, 'Timings'));
    var dl = el('dl', 'timings');
    function t2(k, v) { add(dl, add(el('div'), el('dt', null, k), el('dd', null, v))); }
    if (res.http_status) t2('HTTP status', res.http_status);
    if (res.request_id) {
      // Whole, on a line of its own, with a copy button: what operators ask for.
      var rid = el('dd', 'reqid', res.request_id);
      add(rid, copyButton(res.request_id));
      add(dl, add(el('div', 'whole'), el('dt', null, 'request id'), rid));
    }
    t2('first byte', ms(res.ttfb_ms));
    t2('total', ms(res.duration_ms));
    if (res.events) { t2('first event', ms(res.first_event_ms)); t2('events', res.events); }
    t2('attempts', res.attempts || 0);
    if (res.requests && res.requests !== res.attempts) t2('requests', res.requests);
    if (res.refused) t2('refused (4xx/5xx, no cost)', res.refused);
    // Waiting on the gateway's rate limit is not part of the duration.
    if (res.waits) t2('waited on the rate limit', res.waits + '× ' + ms(res.wait_ms || 0));
    // A case with variants tries shapes the spec does not show: which one the
    // gateway accepted is worth knowing for every client developer.
    if (res.variant) t2('shape accepted', res.variant);
    if (res.started && !/^0001-/.test(res.started)) t2('started', new Date(res.started).toISOString().replace('T', ' ').replace('Z', ' UTC'));
    add(box, dl);

    // request
    if (res.request) {
      add(box, el('h3', null, 'Request (redacted)'));
      add(box, el('div', 'reqline mono', (res.request.method || '') + ' ' + (res.request.path || '')));
      if (res.request.body) add(box, el('pre', 'body', res.request.body));
      // The request again, as a curl command with the key as its variable:
      // the result's own for a small body, else gwconform show prints it.
      var again = res.request.curl || showCommand(res.model, res.case);
      add(box, el('h3', null, res.request.curl ? 'Send it again (export GWCONFORM_BASE_URL and the key\u2019s variable first)' :
        'Send it again (run in this report\u2019s directory: it prints the curl command)'), el('pre', 'reqline mono', again), copyButton(again));
    }

    if (res.transcript) add(box, renderTranscript(res.transcript));

    // stream preview sequence
    if (res.event_types && res.event_types.length) {
      add(box, el('h3', null, 'Stream (' + res.event_types.length + ' events, in order)'));
      var ol = el('ol', 'events');
      res.event_types.forEach(function (ty, i) {
        if (i > 0) add(ol, el('li', 'arrow', '\u2192'));
        var li = el('li', 'ev');
        add(li, el('span', 'i', i + 1), ty);
        add(ol, li);
      });
      add(box, ol);
    }

    // images, in order (stream previews first to last)
    if (res.images && res.images.length) {
      add(box, el('h3', null, 'Images (' + res.images.length + ')'));
      var g = el('div', 'images');
      res.images.forEach(function (im) {
        var fig = el('figure', 'img');
        var ch = el('div', 'checker' + (im.alpha ? '' : ' opaque'));
        if (im.thumb && /^data:image\/(png|jpeg|gif|webp);base64,/.test(im.thumb)) {
          var img = el('img');
          img.alt = (im.where || 'image') + ' thumbnail';
          img.src = im.thumb;
          add(ch, img);
        } else {
          add(ch, el('span', 'nothumb', 'no thumbnail'));
        }
        var cap = el('figcaption');
        add(cap, el('b', null, im.where || ''), el('br'),
          (im.format || '?') + ' \u00b7 ' + im.width + '\u00d7' + im.height + ' \u00b7 ' + (im.alpha ? 'alpha' : 'opaque') + ' \u00b7 ' + bytes(im.bytes),
          el('br'), el('span', 'mono', 'sha256 ' + (im.sha256 || '').slice(0, 16)));
        add(fig, ch, cap);
        add(g, fig);
      });
      add(box, g);
    }
    return box;
  }

  // A case's exchange, collapsed: each request with its headers and body,
  // and what came back (headers, body or stream events with their offsets).
  // Bodies are already cut; where the whole exchange is kept is said.
  function renderTranscript(tr) {
    var det = el('details', 'transcript');
    var rounds = tr.rounds || [];
    add(det, el('summary', null, 'Transcript (' + rounds.length + (rounds.length === 1 ? ' request' : ' requests') + ')'));
    add(det, el('div', 'note', tr.exchange ? 'whole exchange: ' + tr.exchange : 'bodies cut; run with --record DIR to keep whole exchanges'));
    rounds.forEach(function (rd, i) {
      var r = el('div', 'round');
      add(r, el('div', 'reqline mono', (rounds.length > 1 ? (i + 1) + '. ' : '') + rd.method + ' ' + rd.path + ' \u00b7 key: ' + rd.key));
      if (rd.request_header && rd.request_header.length) add(r, el('pre', 'body headers', rd.request_header.join('\n')));
      if (rd.request_body) add(r, el('pre', 'body', rd.request_body));
      if (rd.status) {
        add(r, el('div', 'reqline mono', '\u2190 ' + rd.status + ' after ' + ms(rd.received_ms || 0)));
        if (rd.response_header && rd.response_header.length) add(r, el('pre', 'body headers', rd.response_header.join('\n')));
        if (rd.response_body) add(r, el('pre', 'body', rd.response_body));
      }
      if (rd.events && rd.events.length) {
        var ol = el('ol', 'tevents');
        rd.events.forEach(function (ev, j) {
          // The runner keeps the first events and the last four (record's
          // transcriptTailEvents): the gap is before those four.
          if (rd.omitted_events && j === Math.max(0, rd.events.length - 4)) add(ol, el('li', 'omitted', '\u2026 ' + rd.omitted_events + ' events left out \u2026'));
          var li = el('li');
          add(li, el('span', 'off mono', '+' + ms(ev.offset_ms)), el('pre', 'body', ev.text));
          add(ol, li);
        });
        add(r, ol);
      }
      if (rd.error) add(r, el('div', 'act mono', 'error: ' + rd.error));
      add(det, r);
    });
    if (tr.omitted_rounds) add(det, el('div', 'note', tr.omitted_rounds + ' more requests left out'));
    return det;
  }

  function showCell(mi, fi, focusIdx) {
    var c = cellAt(mi, fi);
    var d = document.getElementById('detail');
    d.replaceChildren();
    if (selected) selected.classList.remove('selected');
    selected = tdEls[mi] && tdEls[mi][fi];
    if (selected) selected.classList.add('selected');
    var head = el('div', 'dhead');
    add(head, el('h2', null, modelLabel(c.model) + ' \u00b7 ' + c.feature), badge(cellClass(c).replace('st-fail soft', 'st-soft'), c.label));
    add(head, el('span', 'spacer'));
    var close = el('button', 'plain', 'close');
    close.type = 'button';
    close.addEventListener('click', function () {
      d.hidden = true;
      if (selected) selected.classList.remove('selected');
      selected = null;
      history.replaceState(null, '', location.pathname + location.search);
    });
    add(head, close);
    add(d, head);
    var idxs = byCell.get(c.model + '\u0000' + c.feature) || [];
    // Failures first: the reason the cell is red is what the reader came for.
    var rank = { fail: 0, error: 1, throttled: 2, inconclusive: 3, waived: 4, unsupported: 5, pass: 6, skip: 7 };
    idxs = idxs.slice().sort(function (a, b) { return (rank[resultsAll[a].status] || 0) - (rank[resultsAll[b].status] || 0); });
    if (!idxs.length) add(d, el('p', 'case empty', 'No cases of this feature for this model.'));
    idxs.forEach(function (i) { add(d, renderCase(resultsAll[i], i)); });
    d.hidden = false;
    try {
      history.replaceState(null, '', '#cell=' + encodeURIComponent(c.model) + '|' + encodeURIComponent(c.feature));
    } catch (e) { /* file: URLs in some browsers refuse; the hash is a convenience */ }
    var target = focusIdx !== null ? document.getElementById('case-' + focusIdx) : d;
    if (target) {
      target.scrollIntoView({ block: 'start' });
      if (focusIdx !== null) target.classList.add('flash');
    }
  }

  // ---- failures by cause (report.json's causes: results.GroupByCause),
  // above the matrix: one row per thing the gateway did, those deciding
  // the verdict first, each with its counts, its cases, its example and
  // the command that reproduces it. A broken route fills the per-result
  // list below with one line a case; here it is one row.
  (function causes() {
    var list = R.causes || [];
    var sec = document.getElementById('causes');
    if (!list.length) return;
    sec.hidden = false;
    var deciding = list.filter(function (c) { return c.deciding; }).length;
    var reported = list.length - deciding;
    add(sec, el('h2', null, 'Failures by cause (' + list.length + ')'),
      el('p', 'muted', deciding + (deciding === 1 ? ' cause decides' : ' causes decide') + ' the verdict' +
        (reported ? ', ' + reported + (reported === 1 ? ' is' : ' are') + ' reported only (strict, explore)' : '') +
        '. Each command shows the cause\u2019s example and prints the curl that sends it again: run it in this report\u2019s directory.'));
    var t = el('table', 'causes');
    t.id = 'causes-table';
    var hr = el('tr');
    ['', 'cause', 'failed', 'cases', 'reproduce'].forEach(function (h) { add(hr, el('th', null, h)); });
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    list.forEach(function (c, k) {
      if (!c.deciding && (k === 0 || list[k - 1].deciding)) {
        var sep = el('th', null, 'Reported only: strict and explore results, which do not decide the verdict');
        sep.colSpan = 5;
        add(tb, add(el('tr', 'sep'), sep));
      }
      var tr = el('tr', 'cause ' + (c.deciding ? 'deciding' : 'reported'));
      tr.dataset.deciding = String(!!c.deciding);
      add(tr, add(el('td'), c.deciding ? badge('st-fail', 'decides') : badge('st-soft', 'reported only')));

      // the cause, and its example's reason: a click opens the example
      var ex = c.example || {};
      var exIdx = null;
      resultsAll.forEach(function (r, i) { if (exIdx === null && r.case === ex.case && r.model === ex.model && isFailed(r)) exIdx = i; });
      var exEl = el('div', 'example', 'e.g. ' + ex.case + ' \u00d7 ' + modelLabel(ex.model) + ': ' + reasonText(ex.reason || {}));
      exEl.title = exEl.textContent; // whole, where the line is cut
      if (exIdx !== null) {
        exEl.tabIndex = 0;
        exEl.title += '\n(click: open this result)';
        var open = function () {
          var r = resultsAll[exIdx];
          var mi = models.indexOf(r.model), fi = features.indexOf(r.feature);
          if (mi >= 0 && fi >= 0) showCell(mi, fi, exIdx);
        };
        exEl.addEventListener('click', open);
        exEl.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });
      }
      add(tr, add(el('td'), el('div', 'cause-name', c.cause), exEl));
      add(tr, el('td', 'count', c.results + (c.results === 1 ? ' result' : ' results') + ' in ' + c.cells + (c.cells === 1 ? ' cell' : ' cells')));

      // the cases, the first few named, every one on opening
      var cs = c.cases || [];
      var det = el('details', 'ccases');
      add(det, el('summary', null, cs.length + (cs.length === 1 ? ' case: ' : ' cases: ') + cs.slice(0, 3).join(', ') + (cs.length > 3 ? ', \u2026' : '')));
      var ul = el('ul');
      cs.forEach(function (id) { add(ul, add(el('li'), el('code', null, id))); });
      add(tr, add(el('td'), add(det, ul)));

      var cmd = showCommand(ex.model, ex.case);
      add(tr, add(el('td', 'repro'), el('code', null, cmd), copyButton(cmd)));
      add(tb, tr);
    });
    add(sec, add(t, tb));
  })();

  // ---- client readiness (report.json's readiness): per library its
  // verdict and features (* its basic path), then per feature each
  // property it depends on, the check that holds it, its state and the
  // library's source; a library that is not READY opens with its reasons.
  (function readiness() {
    var list = R.readiness || [];
    var sec = document.getElementById('readiness');
    if (!list.length) return;
    sec.hidden = false;
    var CLS = READINESS.cls, LABEL = READINESS.label;
    var STATE = { holds: 'st-pass', fails: 'st-fail', unchecked: 'st-skip' };
    add(sec, el('h2', null, 'Client readiness (' + list.length + ')'));
    add(sec, el('p', 'muted', 'Will these libraries work against the gateway? From the answer properties each depends on (cases/clients/clients.yaml); reported, not deciding. * marks a library\'s basic path.'));
    var t = el('table', 'readiness-table');
    t.id = 'readiness-table';
    var hr = el('tr');
    ['library', 'readiness', 'features'].forEach(function (h) { add(hr, el('th', null, h)); });
    add(t, add(el('thead'), hr));
    var tb = el('tbody');
    list.forEach(function (c) {
      var tr = el('tr', 'client-row');
      tr.dataset.client = c.client;
      add(tr, add(el('td'), el('code', null, c.client)));
      add(tr, add(el('td'), badge(CLS[c.verdict] || 'st-skip', LABEL[c.verdict] || c.verdict)));
      var ftd = el('td');
      (c.features || []).forEach(function (f) {
        add(ftd, badge(CLS[f.verdict] || 'st-skip', f.feature + (f.basic ? '*' : '') + ' ' + (LABEL[f.verdict] || f.verdict)), document.createTextNode(' '));
      });
      add(tr, ftd);
      add(tb, tr);
    });
    add(sec, add(t, tb));
    list.forEach(function (c) {
      var d = el('details', 'client-readiness');
      d.dataset.client = c.client;
      d.open = c.verdict !== 'ready' && c.verdict !== 'unknown';
      add(d, add(el('summary'), el('code', null, c.client), document.createTextNode(' ' + c['package'] + ' '), badge(CLS[c.verdict] || 'st-skip', LABEL[c.verdict] || c.verdict)));
      if ((c.because || []).length) {
        var ul = el('ul', 'because');
        c.because.forEach(function (b) { add(ul, el('li', null, b)); });
        add(d, ul);
      }
      (c.features || []).forEach(function (f) {
        add(d, el('h4', null, f.feature + (f.basic ? '* ' : ' ') + f.endpoint + ': ' + (LABEL[f.verdict] || f.verdict)));
        var nt = el('table', 'needs');
        var nh = el('tr');
        ['', 'property', 'check', 'source'].forEach(function (h) { add(nh, el('th', null, h)); });
        add(nt, add(el('thead'), nh));
        var nb = el('tbody');
        (f.needs || []).forEach(function (n) {
          var tr = el('tr', 'need');
          add(tr, add(el('td'), badge(STATE[n.state] || 'st-skip', n.state)));
          add(tr, el('td', null, n.property + (n.basic ? ' (basic path)' : '')));
          add(tr, add(el('td'), el('code', null, n.check), document.createTextNode(' ' + n.tier + (n.beyondSpec ? ', beyond the spec' : '') + (n.said ? ': ' + n.said : ''))));
          add(tr, el('td', 'source', n.source));
          add(nb, tr);
        });
        add(d, add(nt, nb));
      });
      add(sec, d);
    });
  })();

  // ---- observed traffic: what each client's requests came to, the
  // rules they broke and the notes on what they did beyond the verified
  // rows (report.json's clients), one row a rule with its count and an
  // example.
  (function clients() {
    var list = R.clients || [];
    var sec = document.getElementById('clients');
    if (!list.length) return;
    sec.hidden = false;
    add(sec, el('h2', null, 'Clients (' + list.length + ')'));
    list.forEach(function (c) {
      add(sec, el('h3', null, c.client + ': ' + c.requests + (c.requests === 1 ? ' request, ' : ' requests, ') + c.conforming + ' broke no rule'));
      var rows = (c.breaches || []).map(function (b) { return ['breaks', b]; }).concat((c.notes || []).map(function (n) { return ['note', n]; }));
      if (!rows.length) return;
      var t = el('table', 'client-rules');
      var hr = el('tr');
      ['', 'row', 'count', 'example'].forEach(function (h) { add(hr, el('th', null, h)); });
      add(t, add(el('thead'), hr));
      var tb = el('tbody');
      rows.forEach(function (kr) {
        var tr = el('tr', kr[0] === 'breaks' ? 'breach' : 'note');
        add(tr, add(el('td'), kr[0] === 'breaks' ? badge('st-fail', 'breaks') : badge('st-soft', 'note')));
        add(tr, add(el('td'), el('code', null, kr[1].row)));
        add(tr, el('td', 'count', String(kr[1].count)));
        add(tr, el('td', 'example', kr[1].example + ': ' + kr[1].said));
        add(tb, tr);
      });
      add(sec, add(t, tb));
    });
  })();

  // ---- every failed, throttled or inconclusive result, collapsed: the
  // detail behind the causes. Those that decide the verdict, then those
  // reported only (strict and explore), each line with its tier and every
  // reason.
  (function problems() {
    var p = document.getElementById('problems');
    var deciding = [], reported = [];
    resultsAll.forEach(function (r, i) {
      if (!(isFailed(r) || r.status === 'throttled' || r.status === 'inconclusive') || r.cancelled) return;
      (decidesExit(r) ? deciding : reported).push(i);
    });
    var all = el('details', 'problems-all');
    all.id = 'problems-all';
    add(all, el('summary', null, 'Each result that failed or was not checked (' + (deciding.length + reported.length) + '), one line each'));
    add(p, all);
    function list(title, id, idx, empty) {
      add(all, el('h2', null, title + ' (' + idx.length + ')'));
      if (!idx.length) { add(all, el('p', 'empty', empty)); return; }
      var ul = el('ul');
      ul.id = id;
      idx.forEach(function (i) {
        var r = resultsAll[i];
        var li = el('li');
        li.tabIndex = 0;
        add(li, statusBadge(r), el('span', 'tier', r.tier), el('span', 'where', r.model + ' \u00b7 ' + r.feature), el('code', null, r.case));
        var why = el('ul', 'why');
        (r.reasons && r.reasons.length ? r.reasons : [{ check: '', message: 'no reason recorded' }]).forEach(function (x) {
          add(why, el('li', null, reasonText(x)));
        });
        add(li, why);
        function open() {
          var mi = models.indexOf(r.model), fi = features.indexOf(r.feature);
          if (mi >= 0 && fi >= 0) showCell(mi, fi, i);
        }
        li.addEventListener('click', open);
        li.addEventListener('keydown', function (e) { if (e.key === 'Enter') open(); });
        add(ul, li);
      });
      add(all, ul);
    }
    list('Decide the verdict: failures, errors, throttling, inconclusive refusals', 'problems-deciding', deciding,
      'None: every counted case that ran passed or was skipped.');
    list('Reported only: strict and explore results that do not decide the verdict', 'problems-reported', reported,
      'None.');
  })();

  // ---- known deviations (waivers), re-runs and models no case covers
  (function nightly() {
    var n = document.getElementById('nightly');
    function openResult(model, feature, caseID) {
      var mi = models.indexOf(model), fi = features.indexOf(feature);
      var idx = null;
      resultsAll.forEach(function (r, i) { if (r.model === model && r.feature === feature && r.case === caseID) idx = i; });
      if (mi >= 0 && fi >= 0) showCell(mi, fi, idx);
    }
    function resultItem(model, feature, caseID, status, extra) {
      var li = el('li');
      li.tabIndex = 0;
      add(li, badge('st-' + status, status), el('span', 'where', model + ' \u00b7 ' + feature), el('code', null, caseID), extra || null);
      li.addEventListener('click', function () { openResult(model, feature, caseID); });
      li.addEventListener('keydown', function (e) { if (e.key === 'Enter') openResult(model, feature, caseID); });
      return li;
    }
    var titles = {
      applied: ['Waived: known deviations', 'Failures covered by a live entry of --waivers: they do not fail the run.'],
      'not-needed': ['Waivers no longer needed', 'The results these entries cover passed: the waiver can go.'],
      expired: ['Expired waivers', 'These entries have expired and no longer apply: the failures they covered count again.']
    };
    ['applied', 'not-needed', 'expired'].forEach(function (state) {
      var uses = (R.waivers || []).filter(function (u) { return u.state === state; });
      if (!uses.length) return;
      var sec = el('div', 'waivers ' + state);
      sec.dataset.state = state;
      add(sec, el('h2', null, titles[state][0] + ' (' + uses.length + ')'), el('p', 'muted', titles[state][1]));
      uses.forEach(function (u) {
        var box = el('div', 'waiver-entry');
        add(box, add(el('div', 'whead'), el('code', null, u.case + ' \u00d7 ' + u.model), ' ', el('b', null, u.reason || ''), ' \u00b7 ', link(u.link),
          ' \u00b7 ' + (state === 'expired' ? 'expired ' : 'expires ') + u.expires + ' \u00b7 ', el('span', 'mono muted', u.source || '')));
        var ul = el('ul', 'wresults');
        (u.results || []).forEach(function (m) { add(ul, resultItem(m.model, m.feature, m.case, m.status)); });
        add(box, ul);
        add(sec, box);
      });
      add(n, sec);
    });

    var again = [];
    resultsAll.forEach(function (r) { if (r.reruns) again.push(r); });
    if (again.length) {
      var rs = el('div', 'reruns');
      add(rs, el('h2', null, 'Re-run by --rerun-failed (' + again.length + ')'),
        el('p', 'muted', 'A failure that passed when run again is flaky, not fixed: its first run is kept.'));
      var ul = el('ul');
      again.forEach(function (r) {
        var fr = (r.first_reasons || [])[0];
        var why = 'first run ' + (r.first_status || '?') + (fr ? ': ' + fr.check + ': ' + fr.message : '');
        add(ul, resultItem(r.model, r.feature, r.case, r.status, el('span', 'why', (r.flaky ? 'flaky \u00b7 ' : '') + why)));
      });
      add(rs, ul);
      add(n, rs);
    }

    var unc = R.uncoveredModels || [];
    if (unc.length) {
      var us = el('div', 'uncovered');
      add(us, el('h2', null, 'Models no case covers (' + unc.length + ')'),
        add(el('p', 'muted'), 'The gateway lists these models, but no case names them: ', el('code', null, 'gwconform probe'),
          ' runs their family\u2019s cases and writes the YAML that adds them.'));
      var ul2 = el('ul');
      unc.forEach(function (u) { add(ul2, add(el('li'), el('span', 'where', u.key + ' key'), el('code', null, u.model))); });
      add(us, ul2);
      add(n, us);
    }
    n.hidden = !n.childElementCount;
  })();

  // ---- capability map (explore): per feature, rows param=value, columns models
  (function capabilities() {
    var caps = R.capabilities || [];
    var sec = document.getElementById('capabilities');
    if (!caps.length) return;
    sec.hidden = false;
    var CAPTEXT = { supported: GLYPH.pass, unsupported: GLYPH.unsupported, inconclusive: GLYPH.error, skip: GLYPH.skip, none: GLYPH.none };
    var CAPCLASS = { supported: 'st-pass', unsupported: 'st-unsupported', mixed: 'st-mixed', failed: 'st-fail soft', inconclusive: 'st-error', skip: 'st-skip', none: 'st-none' };
    var caseIdx = new Map();
    resultsAll.forEach(function (r, i) { caseIdx.set(r.model + '\u0000' + r.feature + '\u0000' + r.case, i); });
    function run(n) { return (n.total || 0) - (n.skip || 0); }
    function capText(c) {
      var n = c.counts;
      if (c.verdict === 'mixed') return (c.explained ? GLYPH.pass : '\u25d0') + ' ' + n.pass + '/' + run(n);
      if (c.verdict === 'failed') return GLYPH.fail + ' ' + ((n.fail || 0) + (n.error || 0)) + '/' + run(n);
      return CAPTEXT[c.verdict] || c.verdict;
    }
    function paramText(m) {
      return Object.keys(m || {}).sort().map(function (k) { return k + '=' + m[k]; }).join(' ');
    }
    function capTitle(feature, row, c) {
      var n = c.counts, parts = [];
      ['pass', 'unsupported', 'fail', 'error', 'throttled', 'skip'].forEach(function (s) { if (n[s]) parts.push(n[s] + ' ' + (s === 'unsupported' ? 'declined' : s)); });
      var lines = [c.model + ' \u00b7 ' + row.param + '=' + row.value + ': ' + c.verdict + (parts.length ? ' (' + parts.join(', ') + ')' : '')];
      if (c.verdict === 'mixed' && c.explained) lines.push('declined only together with a value this model declines in every call');
      if (c.declinedWith && c.declinedWith.length) lines.push('declined always with ' + c.declinedWith.join(', '));
      (c.declined || []).forEach(function (d) {
        lines.push('declined: ' + d.case + ' (' + paramText(d.params) + ')' + (d.because && d.because.length ? ' \u2190 ' + d.because.join(', ') : ''));
      });
      (c.failed || []).forEach(function (d) { lines.push('failed: ' + d.case + ' (' + paramText(d.params) + ')'); });
      return lines.join('\n');
    }

    add(sec, el('h2', null, 'Capability map (explore)'));
    add(sec, el('p', 'capnote', 'Each explore call sends one combination of parameters (all-pairs), so each call tells something about each of its values. ' +
      'Per value and model: every call passed, declined in every call, passed in k of n calls (declined in other combinations), or failed. ' +
      'A light green k/n was declined only together with a value (or a pair of values) that model declines everywhere. The explore tier never fails a run; click a cell for its calls.'));
    var lg = el('div', 'legend caplegend');
    [['st-pass', GLYPH.pass, 'supported'], ['st-unsupported', GLYPH.unsupported, 'unsupported (declined)'], ['st-mixed', '\u25d0 k/n', 'mixed: declined in some combinations'],
      ['st-pass explained', GLYPH.pass + ' k/n', 'declined only with a value (or pair) declined everywhere'], ['st-soft', GLYPH.fail + ' k/n', 'failed (reported)'], ['st-error', GLYPH.error, 'only errors']].forEach(function (x) {
      add(lg, add(el('div'), el('span', 'sw ' + x[0], x[1]), x[2]));
    });
    add(sec, lg);
    var toggle = el('input');
    toggle.type = 'checkbox';
    toggle.id = 'cap-attention';
    toggle.checked = true;
    var tl = add(el('label', 'captoggle'), toggle, ' only values that some model does not fully support');
    add(sec, tl);

    var blocks = [];
    caps.forEach(function (cap) {
      var fi = features.indexOf(cap.feature);
      var box = el('div', 'capfeat');
      box.dataset.feature = cap.feature;
      add(box, el('h3', null, cap.feature));
      var ul = el('ul', 'capsum');
      (cap.summary || []).forEach(function (s) {
        var li = el('li');
        add(li, el('b', null, s.model), ' \u00b7 ' + (s.counts.total || 0) + ' calls: ');
        var said = false;
        function list(label, vals) {
          if (!vals || !vals.length) return;
          if (said) add(li, '; ');
          add(li, label + ' ');
          vals.forEach(function (v, i) { if (i) add(li, ', '); add(li, el('code', null, v)); });
          said = true;
        }
        list('declines', s.unsupported);
        var paired = {};
        (s.pairs || []).forEach(function (pr) {
          var ab = pr.split(' + ');
          paired[ab[0]] = paired[ab[1]] = true;
          if (said) add(li, '; ');
          add(li, 'declines ', el('code', null, ab[0]), ' together with ', el('code', null, ab[1]));
          said = true;
        });
        list('declines in some combinations', (s.mixed || []).filter(function (v) { return !paired[v]; }));
        // every value of a failed call is marked failed: name the calls
        var mi = cap.models.indexOf(s.model), failed = [];
        (cap.rows || []).forEach(function (row) {
          ((row.cells[mi] || {}).failed || []).forEach(function (f) { if (failed.indexOf(f.case) < 0) failed.push(f.case); });
        });
        if (failed.length) {
          if (said) add(li, '; ');
          add(li, failed.length + ' of ' + ((s.counts.total || 0) - (s.counts.skip || 0)) + ' calls failed or errored: ');
          failed.sort().forEach(function (k, i) { if (i) add(li, ', '); add(li, el('code', null, k)); });
          said = true;
        }
        if (!said) add(li, 'every value supported');
        add(ul, li);
      });
      add(box, ul);

      var t = el('table', 'capmap');
      var hr = el('tr');
      add(hr, el('th', null, 'parameter'), el('th', null, 'value'));
      cap.models.forEach(function (m) { add(hr, el('th', 'capmodel', modelLabel(m))); });
      add(t, add(el('thead'), hr));
      var tb = el('tbody');
      var trs = [];
      (cap.rows || []).forEach(function (row) {
        var tr = el('tr');
        tr.dataset.attention = String(!!row.attention);
        tr.dataset.param = row.param;
        add(tr, el('td', 'param', row.param), add(el('td', 'value'), el('code', null, row.value)));
        row.cells.forEach(function (c) {
          var cls = c.verdict === 'mixed' && c.explained ? 'st-pass explained' : (CAPCLASS[c.verdict] || 'st-none');
          var td = el('td', 'cell capcell ' + cls);
          td.dataset.verdict = c.verdict;
          td.dataset.model = c.model;
          td.dataset.value = row.param + '=' + row.value;
          td.title = capTitle(cap.feature, row, c);
          add(td, el('span', null, capText(c)));
          var mi = models.indexOf(c.model);
          if (c.verdict !== 'none' && mi >= 0 && fi >= 0) {
            var first = (c.failed && c.failed[0]) || (c.declined && c.declined[0]);
            var focus = first ? caseIdx.get(c.model + '\u0000' + cap.feature + '\u0000' + first.case) : undefined;
            td.tabIndex = 0;
            var open = function () { showCell(mi, fi, focus === undefined ? null : focus); };
            td.addEventListener('click', open);
            td.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
          }
          add(tr, td);
        });
        trs.push(tr);
        add(tb, tr);
      });
      add(t, tb);
      add(box, add(el('div', 'capwrap'), t));
      var rest = el('p', 'caprest');
      add(box, rest);
      blocks.push({ rows: trs, rest: rest });
      add(sec, box);
    });

    function apply() {
      blocks.forEach(function (b) {
        var hidden = 0, prev = null;
        b.rows.forEach(function (tr) {
          var hide = toggle.checked && tr.dataset.attention !== 'true';
          tr.classList.toggle('hidden', hide);
          if (hide) { hidden++; return; }
          // the parameter name only on the first visible row of its group
          tr.classList.toggle('pfirst', tr.dataset.param !== prev);
          prev = tr.dataset.param;
        });
        var shown = b.rows.length - hidden;
        b.rest.textContent = hidden === 0 ? '' : (shown === 0 ? 'All ' : 'All other ') + hidden + ' values supported by every model.';
        b.rest.hidden = hidden === 0;
      });
    }
    toggle.addEventListener('change', apply);
    apply();
  })();

  applyFilters();

  // Open the cell named in the URL (#cell=model|feature), for shared links.
  (function fromHash() {
    var m = /^#cell=([^|]*)\|(.*)$/.exec(location.hash);
    if (!m) return;
    var mi, fi;
    try {
      mi = models.indexOf(decodeURIComponent(m[1]));
      fi = features.indexOf(decodeURIComponent(m[2]));
    } catch (e) { return; }
    if (mi >= 0 && fi >= 0) showCell(mi, fi, null);
  })();
})();
