// DOM helpers shared by the report's pages (report.html, history.html):
// every element is made with createElement and every text set with
// textContent, so no string from a report is ever parsed as HTML.
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
// READINESS is how both pages show a client library's readiness verdict
// (results.Readiness): its badge's class and its label.
var READINESS = {
  cls: { ready: 'st-pass', limited: 'st-soft', 'not-ready': 'st-fail', unknown: 'st-skip' },
  label: { ready: 'READY', limited: 'LIMITED', 'not-ready': 'NOT READY', unknown: 'UNKNOWN' }
};
function add(parent) {
  for (var i = 1; i < arguments.length; i++) {
    var c = arguments[i];
    if (c === null || c === undefined) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return parent;
}
