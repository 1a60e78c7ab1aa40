// The live page's shell: the report's page with a body that is redrawn each second, the controls
// when the run allows them, and the script that listens to the server's events.
import { renderPage } from '../report/page.js';
import type { LiveView } from './view.js';

/** Stop, rate and connections: shown only with `live: { control: true }`. */
const CONTROLS = `<section id="live-controls" aria-labelledby="live-controls-title"><h2 id="live-controls-title">Controls</h2>
<div style="display:flex;gap:16px;flex-wrap:wrap;align-items:center">
<form id="live-rate"><label>rate <input name="value" type="number" min="0.001" step="any" required></label> <button type="submit">set rate</button></form>
<form id="live-connections"><label>connections <input name="value" type="number" min="1" step="1" required></label> <button type="submit">set connections</button></form>
<button id="live-stop" type="button">stop the run</button>
</div>
<p class="meta" id="live-control-status" role="status"></p></section>`;

/**
 * Listens to `events` (server-sent): `second` is one second of the run as `onProgress` got it
 * (kept in `window.__salvoLive.seconds`), `view` the page redrawn for the seconds so far, `final`
 * the report that replaces the page, `failed` a run that rejected. Free of template-literal syntax.
 */
const LIVE_SCRIPT = String.raw`
(function () {
  'use strict';
  var live = window.__salvoLive = { seconds: [], views: 0, state: 'connecting' };
  var source = new EventSource('events');
  // A reconnected page is sent every second again.
  source.addEventListener('open', function () { live.seconds = []; live.state = 'live'; });
  source.addEventListener('second', function (e) { live.seconds.push(JSON.parse(e.data)); });
  source.addEventListener('view', function (e) {
    var view = JSON.parse(e.data);
    document.querySelector('header').innerHTML = view.header;
    document.getElementById('live-body').innerHTML = view.body;
    window.salvoDraw(view.charts);
    live.views++;
    live.drawn = live.seconds.length;
  });
  source.addEventListener('final', function (e) {
    source.close();
    live.state = 'final';
    live.finalHtml = JSON.parse(e.data);
    document.open();
    document.write(live.finalHtml);
    document.close();
  });
  source.addEventListener('failed', function (e) {
    source.close();
    live.state = 'failed';
    var status = document.getElementById('live-status');
    if (status) status.textContent = 'the run failed: ' + JSON.parse(e.data);
  });

  var said = document.getElementById('live-control-status');
  function post(action, value) {
    said.textContent = action + '...';
    fetch('control/' + action, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value: value }) })
      .then(function (response) { return response.json().then(function (body) { said.textContent = response.ok ? action + ': done' : action + ': ' + body.error; }); })
      .catch(function (error) { said.textContent = action + ': ' + error.message; });
  }
  ['rate', 'connections'].forEach(function (action) {
    var form = document.getElementById('live-' + action);
    if (form) form.addEventListener('submit', function (e) { e.preventDefault(); post(action, Number(form.elements.value.value)); });
  });
  var stop = document.getElementById('live-stop');
  if (stop) stop.addEventListener('click', function () { post('stop'); });
})();
`;

/** The page a browser gets while the run goes: the report's shell around the view of the seconds so far. */
export function renderLivePage(title: string, view: LiveView, control: boolean): string {
  return renderPage({
    title,
    header: view.header,
    body: `${control ? CONTROLS : ''}<div id="live-body">${view.body}</div>`,
    charts: view.charts,
    footer: 'salvo live page: it turns into the report when the run ends',
    script: LIVE_SCRIPT,
  });
}
