// The web console at GET /__admin: one self-contained page over the admin JSON routes; no build step.
export const consoleHtml = /* html */ `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>portal-mock console</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d2430; background: #f4f6f9; }
  body { margin: 0; }
  header { background: #23314d; color: #fff; padding: 12px 20px; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
  header h1 { font-size: 18px; margin: 0 12px 0 0; }
  header label { font-size: 13px; opacity: .85; }
  main { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; padding: 16px 20px; }
  section { background: #fff; border-radius: 8px; padding: 12px 16px; box-shadow: 0 1px 3px #0002; overflow: auto; }
  section h2 { font-size: 15px; margin: 4px 0 10px; }
  select, input, button { font: inherit; padding: 4px 8px; border-radius: 4px; border: 1px solid #aab; }
  button { background: #2f6fde; color: #fff; border-color: #2f6fde; cursor: pointer; }
  button.secondary { background: #fff; color: #2f6fde; }
  table { border-collapse: collapse; width: 100%; font-size: 12px; }
  td, th { text-align: left; padding: 3px 6px; border-bottom: 1px solid #eee; white-space: nowrap; }
  .qr { display: inline-block; width: 170px; margin: 0 8px 12px 0; vertical-align: top; font-size: 12px; }
  .qr img { width: 160px; height: 160px; display: block; background: #fff; }
  .code { font: 600 18px ui-monospace, monospace; letter-spacing: 2px; }
  .s2 { color: #187a3a; } .s4 { color: #b45d00; } .s5 { color: #c21c1c; }
  #status { font-size: 12px; opacity: .8; }
  .desc { font-size: 13px; margin: 6px 0 0; color: #445; }
  #outbox td { white-space: normal; overflow-wrap: anywhere; } #outbox td:first-child, #outbox .code { white-space: nowrap; }
  @media (min-width: 1100px) { section.wide { grid-column: span 2; } } /* the outbox: codes and payloads unclipped */
</style>
</head>
<body>
<header>
  <h1>portal-mock</h1>
  <label>Sandbox <select id="sandbox-select"></select></label>
  <input id="sandbox-new" placeholder="new sandbox name" size="16">
  <button id="sandbox-open" class="secondary">Open</button>
  <span id="status"></span>
  <span id="peers-down"></span>
</header>
<main>
  <section>
    <h2>Scenario</h2>
    <div>Active: <b id="active-scenario">…</b></div>
    <p class="desc" id="active-description"></p>
    <p><select id="scenario-select"><option>loading…</option></select> <button id="apply-scenario">Apply</button>
       <button id="reset" class="secondary" title="data, scenario, clock, journal and outbox back to the start">Reset sandbox</button></p>
    <p class="desc" id="scenario-help"></p>
  </section>
  <section>
    <h2>Bind a phone: scan with the app</h2>
    <div id="qr-list"><p class="desc">loading…</p></div>
  </section>
  <section id="https-help">
    <h2>HTTPS on a phone</h2>
    <p class="desc">Release-like builds refuse plain http (iOS App Transport Security, Android cleartext policy). Start with
      <code>--https</code>: the certificate is signed by a local certificate authority created once in <code>~/.portal-mock/ca</code>.
      Trust that authority on the phone once:</p>
    <p><a id="ca-download" href="/__admin/ca.pem" download="portal-mock-ca.pem">Download the CA certificate</a>
      <span id="ca-state" class="desc"></span></p>
    <p class="desc"><b>iOS</b>: open this page in Safari on the phone, download the certificate, install the profile
      (Settings › General › VPN &amp; Device Management), then turn on full trust in
      Settings › General › About › Certificate Trust Settings.</p>
    <p class="desc"><b>Android</b>: Settings › Security › Encryption &amp; credentials › Install a certificate › CA certificate.
      Apps trust user certificates only when they opt in: debug builds get
      <code>res/xml/network_security_config.xml</code> with <code>&lt;debug-overrides&gt;&lt;trust-anchors&gt;&lt;certificates src="user"/&gt;&lt;/trust-anchors&gt;&lt;/debug-overrides&gt;</code>
      (referenced by <code>android:networkSecurityConfig</code> in the manifest).</p>
  </section>
  <section class="wide">
    <h2>Outbox (two-factor codes, pushes)</h2>
    <table><thead><tr><th>time</th><th>kind</th><th>to</th><th>code / payload</th></tr></thead><tbody id="outbox"><tr><td colspan="4" class="desc">loading…</td></tr></tbody></table>
  </section>
  <section id="findings-panel" style="grid-column: 1 / -1">
    <h2>Findings: what the real portal would do differently</h2>
    <table><thead><tr><th>#</th><th>code</th><th>severity</th><th>request</th><th>message</th><th>docs</th></tr></thead><tbody id="findings"></tbody></table>
    <script>
    // the functions of the main script below exist by the time these run
    const showFindings = async () => {
      const list = await api('/__admin/findings').catch(() => []);
      document.getElementById('findings').innerHTML = list.slice(0, 50).map((f) => '<tr class="finding-' + esc(f.severity) + '"><td>' + f.id + '</td><td><b>' + esc(f.code) + '</b></td><td class="' + (f.severity === 'error' ? 's5' : 's4') + '">' + esc(f.severity) +
        '</td><td>#' + f.requestId + ' ' + esc(f.method) + ' ' + esc(f.path) + '</td><td style="white-space: normal">' + esc(f.message) + '</td><td><a target="_blank" href="' + esc(f.docs) + '">' + esc(f.operationId) + '</a></td></tr>').join('') ||
        '<tr><td colspan="6">none: nothing the real portal would answer differently so far</td></tr>';
    };
    addEventListener('load', () => { showFindings(); setInterval(showFindings, 2000); });
    </script>
  </section>
  <section style="grid-column: 1 / -1">
    <h2>Latest requests</h2>
    <table><thead><tr><th>#</th><th>time</th><th>method</th><th>path</th><th>operation</th><th>status</th><th>ms</th><th>scenario</th></tr></thead><tbody id="requests"><tr><td colspan="8" class="desc">loading…</td></tr></tbody></table>
  </section>
</main>
<script>
const $ = (id) => document.getElementById(id);
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
let sandbox = new URLSearchParams(location.search).get('sandbox') || 'default';
let scenarios = [], shownActive = null; // the picker follows the active scenario when it changes, not while the user picks
const api = async (path, init = {}) => {
  const sep = path.includes('?') ? '&' : '?';
  const res = await fetch(path + sep + 'sandbox=' + encodeURIComponent(sandbox), { ...init, headers: { 'content-type': 'application/json', ...(init.headers || {}) } });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message || res.status);
  return body;
};
async function loadStatic() {
  scenarios = await api('/__admin/scenarios');
  $('scenario-select').innerHTML = scenarios.map((s) => '<option value="' + esc(s.name) + '">' + esc(s.name) + '</option>').join(''); shownActive = null;
  const fixtures = await api('/__admin/fixtures');
  $('qr-list').innerHTML = fixtures.bindLinks.map((b) => {
    const a = fixtures.accounts.find((x) => x.userId === b.userId) || {};
    return '<div class="qr"><img alt="bind QR for ' + esc(a.email) + '" src="' + esc(b.qr) + '"><b>' + esc(a.name) + '</b><br>' + esc(a.email) +
      (a.twoFactor ? ' · two-factor' : '') + '<br>' + esc((a.rights || []).length) + ' rights</div>';
  }).join('');
}
$('scenario-select').addEventListener('change', () => {
  const s = scenarios.find((x) => x.name === $('scenario-select').value);
  $('scenario-help').textContent = s ? s.description : '';
});
async function refresh() {
  try {
    // every instance's sandboxes (with --peers), each with the instance that holds it
    const listed = await fetch('/__admin/sandboxes');
    const list = await listed.json();
    $('sandbox-select').innerHTML = list.map((s) => '<option value="' + esc(s.name) + '"' + (s.name === sandbox ? ' selected' : '') + '>' + esc(s.name) + ' · ' + esc(s.instance) + '</option>').join('');
    $('peers-down').textContent = listed.headers.get('x-mock-unreachable-peers') ? 'not answering: ' + listed.headers.get('x-mock-unreachable-peers') : '';
    const active = await api('/__admin/scenario');
    $('active-scenario').textContent = active.name;
    $('active-description').textContent = active.description;
    if (active.name !== shownActive) { shownActive = $('scenario-select').value = active.name; $('scenario-help').textContent = ''; }
    const outbox = await api('/__admin/outbox');
    $('outbox').innerHTML = outbox.slice(0, 30).map((m) => '<tr><td>' + esc(m.at.slice(11, 19)) + '</td><td>' + esc(m.kind) + '</td><td>' + esc(m.to) +
      '</td><td>' + (m.code ? '<span class="code">' + esc(m.code) + '</span>' : esc(JSON.stringify(m.payload || {}).slice(0, 120))) + '</td></tr>').join('') || '<tr><td colspan="4" class="desc">no messages yet</td></tr>';
    const requests = await api('/__admin/requests?limit=40');
    $('requests').innerHTML = requests.map((r) => '<tr><td>' + r.id + '</td><td>' + esc(r.at.slice(11, 19)) + '</td><td>' + esc(r.method) + '</td><td>' + esc(r.path) +
      '</td><td>' + esc(r.operationId) + '</td><td class="s' + String(r.status)[0] + '">' + r.status + (r.stubbed ? ' (scenario)' : '') + '</td><td>' + r.durationMs + '</td><td>' + esc(r.scenario) + '</td></tr>').join('') || '<tr><td colspan="8" class="desc">no requests yet</td></tr>';
    $('status').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    $('status').textContent = 'error: ' + e.message;
  }
}
$('apply-scenario').addEventListener('click', async () => {
  await api('/__admin/scenario', { method: 'PUT', body: JSON.stringify({ name: $('scenario-select').value }) });
  await refresh();
});
$('reset').addEventListener('click', async () => {
  if (!confirm('Reset sandbox ' + sandbox + '?')) return;
  await api('/__admin/reset', { method: 'POST', body: '{}' });
  await refresh();
});
const switchTo = async (name) => { sandbox = name; history.replaceState(null, '', '?sandbox=' + encodeURIComponent(name)); await loadStatic(); await refresh(); };
$('sandbox-select').addEventListener('change', () => switchTo($('sandbox-select').value));
$('sandbox-open').addEventListener('click', () => { const n = $('sandbox-new').value.trim(); if (n) switchTo(n); });
fetch('/__admin/ca.pem', { method: 'HEAD' }).then((r) => { $('ca-state').textContent = r.ok ? '' : '(this server runs without --https: no CA to download)'; }, () => {});
loadStatic().then(refresh);
setInterval(refresh, 2000);
</script>
</body>
</html>`;
