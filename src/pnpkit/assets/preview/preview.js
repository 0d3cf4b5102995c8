(function () {
  const build = document.querySelector('meta[name="pnpkit-build"]').content;
  const stateUrl = document.querySelector('meta[name="pnpkit-state"]').content;
  const title = document.title, body = document.body;
  const zoom = document.getElementById('zoom'), lines = document.getElementById('lines');
  const status = document.getElementById('status'), problems = document.getElementById('problems');
  function setZoom(v) { document.documentElement.style.setProperty('--mm', v + 'px'); }
  if (zoom) {
    zoom.value = localStorage.getItem('pnpkit-zoom') || zoom.value; setZoom(zoom.value);
    zoom.addEventListener('input', () => { setZoom(zoom.value); localStorage.setItem('pnpkit-zoom', zoom.value); });
  }
  if (lines) {
    lines.checked = localStorage.getItem('pnpkit-lines') === '1'; body.classList.toggle('lines', lines.checked);
    lines.addEventListener('change', () => { body.classList.toggle('lines', lines.checked); localStorage.setItem('pnpkit-lines', lines.checked ? '1' : '0'); });
  }
  document.querySelectorAll('a.face img').forEach(img => img.addEventListener('error', () => {
    img.classList.add('failed'); img.alt = 'your browser could not draw this SVG';
  }));
  if (!location.protocol.startsWith('http')) return;
  let base = status ? status.textContent : '';
  async function poll() {
    let delay = 500;
    try {
      const state = await (await fetch(stateUrl, {cache: 'no-store'})).json();
      if (state.build && state.build !== build) { location.reload(); return; }
      const broken = !state.ok;
      problems.hidden = !broken;
      problems.textContent = broken ? state.problems.join('\n') : '';
      status.classList.toggle('stale', broken);
      status.textContent = base + ' · build ' + state.serial + ' at ' + state.time +
        (broken ? ' · ' + state.errors + ' error(s): showing the last good build' : '');
      document.title = (broken ? '\u26a0 ' : '') + title + ' · build ' + state.serial;
    } catch (e) {
      if (status) status.textContent = base + ' · watch is not running';
      delay = 2000;
    }
    setTimeout(poll, delay);
  }
  poll();
})();
