(function () {
  'use strict';
  // Everything shown is made with textContent, never HTML: the pack's text is a stranger's.
  const token = document.querySelector('meta[name="pnpkit-token"]').content;
  const api = document.querySelector('meta[name="pnpkit-api"]').content;
  const $ = id => document.getElementById(id);
  const gallery = $('gallery'), inspector = $('inspector'), status = $('status');
  const problemsBox = $('problems'), undoButton = $('undo');
  let facesSerial = -1, lastSerial = -1, selected = null, showWarnings = false;
  const figures = new Map();  // 'lang/group/item' -> its figure element, kept between builds

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    children.forEach(c => e.append(c));
    return e;
  }
  async function get(what, query) {
    const q = query ? '?' + new URLSearchParams(query) : '';
    const r = await fetch(api + what + q, {cache: 'no-store'});
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || r.statusText);
    return data;
  }
  async function post(what, body) {
    const r = await fetch(api + what, {method: 'POST', cache: 'no-store',
      headers: {'Content-Type': 'application/json', 'X-Pnpkit-Token': token}, body: JSON.stringify(body)});
    const data = await r.json();
    if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), {problem: data.problem});
    return data;
  }

  const zoom = $('zoom');
  function setZoom() { document.documentElement.style.setProperty('--mm', zoom.value + 'px'); }
  zoom.addEventListener('input', setZoom); setZoom();

  // ---------------------------------------------------------------- the gallery

  function figureFor(lang, group, item) {
    const key = lang + '/' + group + '/' + item.id;
    let fig = figures.get(key);
    if (!fig) {
      fig = el('figure', {className: 'item'});
      fig.dataset.key = key; fig.dataset.lang = lang; fig.dataset.group = group; fig.dataset.item = item.id;
      fig.append(el('div', {className: 'sides'}), el('figcaption'));
      fig.addEventListener('click', () => select(lang, group, item.id));
      figures.set(key, fig);
    }
    const sides = fig.firstChild;
    item.faces.forEach((face, i) => {
      let a = sides.children[i];
      const tag = face.framed ? 'iframe' : 'img';  // a face with art: a sandboxed frame (no scripts)
      if (!a || a.firstChild.tagName.toLowerCase() !== tag) {
        const shown = face.framed ? el('iframe', {title: item.id + ' ' + face.side}) : el('img', {alt: item.id + ' ' + face.side, loading: 'lazy'});
        if (face.framed) shown.setAttribute('sandbox', '');
        const made = el('span', {className: 'face'}, shown);
        if (a) a.replaceWith(made); else sides.append(made);
        a = made;
      }
      a.dataset.face = lang + '/' + group + '/' + item.id + '/' + face.side;
      a.style.setProperty('--w', face.w); a.style.setProperty('--h', face.h);
      const img = a.firstChild;
      if (img.getAttribute('src') !== face.src) img.setAttribute('src', face.src);  // only a changed face reloads
    });
    while (sides.children.length > item.faces.length) sides.lastChild.remove();
    fig.lastChild.replaceChildren(el('b', {textContent: item.id}), ' ', el('span', {className: 'count', textContent: '×' + item.count}));
    fig.classList.toggle('selected', !!selected && key === selected.key);
    return fig;
  }

  function showFaces(data) {
    $('name').textContent = data.name;
    const langs = data.langs.length > 1 ? data.langs.map(l => el('a', {href: '#lang-' + l.lang, className: 'lang', textContent: l.lang})) : [];
    $('sheets').replaceChildren(...data.pdfs.map(p => el('a', {href: p, target: '_blank', textContent: p})), ...langs);
    const seen = new Set(), sections = [];
    for (const section of data.langs) {
      const groups = section.groups.map(g => {
        const grid = el('div', {className: 'grid'});
        g.items.forEach(item => { const f = figureFor(section.lang, g.name, item); seen.add(f.dataset.key); grid.append(f); });
        return [el('h3', {}, g.name + ' ', el('small', {textContent: g.kind + ' · ' + g.items.length + ' design(s)'})), grid];
      });
      sections.push(el('section', {id: 'lang-' + section.lang}, el('h2', {textContent: section.lang}), ...groups.flat()));
    }
    for (const key of [...figures.keys()]) if (!seen.has(key)) figures.delete(key);
    gallery.replaceChildren(...sections);
    facesSerial = data.serial;
  }

  // ---------------------------------------------------------------- the build's state

  let problems = [], shownProblems = null;
  function showProblems(broken) {
    const hidden = !broken && !(showWarnings && problems.length);
    const key = hidden ? '' : (broken ? 'e' : 'w') + lastSerial;
    if (key === shownProblems) return;  // the same list: the page polls five times a second
    shownProblems = key;
    problemsBox.hidden = hidden;
    problemsBox.classList.toggle('warnings', !broken);
    problemsBox.textContent = hidden ? '' : problems.map(p => p.text).join('\n');
  }

  async function poll() {
    let delay = 200;
    try {
      const state = await get('state', {have: lastSerial});  // problems only when they are new
      undoButton.disabled = !state.undo;
      if (state.good !== facesSerial) showFaces(await get('faces'));
      const broken = !state.ok && state.serial > 0;
      const fresh = state.serial !== lastSerial;
      if (fresh) { lastSerial = state.serial; problems = state.problems; }
      showProblems(broken);
      status.classList.toggle('broken', broken);
      status.title = 'click: list the warnings';
      status.textContent = 'build ' + state.serial + ' at ' + state.time +
        (broken ? ' · broken: showing the last good faces' : ' · ' + problems.length + ' warning(s)');
      if (fresh && selected) refreshSelected(state);
    } catch (e) {
      status.textContent = 'the studio is not running';
      delay = 2000;
    }
    setTimeout(poll, delay);
  }

  // ---------------------------------------------------------------- the inspector

  async function select(lang, group, item) {
    selected = {lang, group, item, key: lang + '/' + group + '/' + item};
    figures.forEach(f => f.classList.toggle('selected', f.dataset.key === selected.key));
    try { showSources(await get('sources', {lang, group, item})); }
    catch (e) { inspector.replaceChildren(el('p', {className: 'problem', textContent: e.message})); }
  }

  function keepTyping(show) {
    // show the form again without losing what is being typed in it (a rebuild lands meanwhile)
    const active = document.activeElement, row = active && active.closest('#inspector .field');
    const typed = row && {name: row.dataset.name, value: active.value, at: active.selectionStart};
    show();
    const again = typed && inspector.querySelector('.field[data-name="' + CSS.escape(typed.name) + '"] input, .field[data-name="' + CSS.escape(typed.name) + '"] textarea');
    if (again) { again.value = typed.value; again.focus(); if (typed.at !== null) again.setSelectionRange(typed.at, typed.at); }
  }

  async function refreshSelected(state) {
    if (state.ok) {
      const sel = selected;
      try { const s = await get('sources', {lang: sel.lang, group: sel.group, item: sel.item}); keepTyping(() => showSources(s)); }
      catch (e) { inspector.replaceChildren(el('p', {className: 'problem', textContent: e.message})); }
    } else {
      placeProblems(state.problems.filter(p => p.level === 'error'));
    }
  }

  function fieldAt(p) {
    // the field a problem is about: the one at its place ('cards.yaml:14:9', 'market.xlsx:Market!D5'),
    // else the one on its line (a YAML line, a sheet's row)
    // (not a value written nowhere: its place is the item's, where the item's other problems point)
    const fields = [...inspector.querySelectorAll('.field')].filter(f => f.dataset.origin);
    const line = place => { const m = /^(.*):(\d+):\d+$/.exec(place || ''); return m ? m[1] + ':' + m[2] : null; };
    return fields.find(f => f.dataset.place === p.place) ||
      (p.sheet ? null : fields.find(f => line(f.dataset.place) && line(f.dataset.place) === line(p.place)));
  }

  function placeProblems(problems) {
    inspector.querySelectorAll('.problem.live').forEach(e => e.remove());
    const rest = [];
    for (const p of problems) {
      const field = fieldAt(p);
      const line = el('div', {className: 'problem live ' + p.level, textContent: p.text});
      if (field) field.append(line); else rest.push(line);
    }
    const box = $('live-problems');
    if (box) box.replaceChildren(...rest);
  }

  function say(text, bad) {
    const m = $('message');
    if (m) { m.textContent = text; m.className = bad ? 'error' : ''; }
  }

  async function edit(body, field) {
    if (field) field.classList.add('saving');
    try {
      const answer = await post('edit', Object.assign({lang: selected.lang, group: selected.group, item: selected.item}, body));
      say('saved to ' + answer.file + ' · rebuilding…');
      if (answer.item && answer.item !== selected.item) selected = Object.assign({}, selected, {item: answer.item, key: selected.lang + '/' + selected.group + '/' + answer.item});
    } catch (e) {
      say(e.message, true);
      if (field) {
        field.querySelectorAll('.problem.live').forEach(x => x.remove());
        field.append(el('div', {className: 'problem live error', textContent: e.problem ? e.problem.text : e.message}));
      }
    }
    finally { if (field) field.classList.remove('saving'); }
  }

  function fieldRow(f, op) {
    const row = el('div', {className: 'field'});
    row.dataset.place = f.place || '';
    row.dataset.name = f.name;
    row.dataset.origin = f.origin;
    const id = 'field-' + f.name;
    row.append(el('label', {htmlFor: id}, f.name + ' ', el('small', {textContent: f.place || ''})));
    const long = typeof f.value === 'string' && (f.value.length > 40 || f.value.includes('\n'));
    const own = f.origin === 'item';  // else the value the item inherits: typing one adds it to the item
    const input = el(long ? 'textarea' : 'input', {id, value: own ? f.value : '', disabled: !f.writable});
    if (long) input.rows = Math.min(6, 1 + Math.ceil(f.value.length / 50));
    if (op === 'count') { input.type = 'number'; input.min = 0; }
    if (!own) input.placeholder = f.origin ? f.value + ' (from ' + (f.origin === 'defaults' ? 'the group\'s defaults' : 'the field\'s default') + ')' : (op === 'count' ? '1' : 'not written');
    input.addEventListener('change', () => edit(op === 'count' ? {op: 'count', value: input.value} : {op: 'set', field: f.name, value: input.value}, row));
    row.append(input);
    if (!f.writable && f.why) row.append(el('div', {className: 'why', textContent: f.why}));
    return row;
  }

  function showSources(s) {
    const parts = [el('h2', {textContent: s.item}), el('p', {className: 'place', textContent: s.group + ' · ' + s.lang + ' · ' + (s.place || '')})];
    parts.push(fieldRow(Object.assign({name: 'count'}, s.count), 'count'));
    s.fields.forEach(f => parts.push(fieldRow(f, 'set')));
    if (s.defaults.length) {
      parts.push(el('h3', {textContent: 'inherited from the group\'s defaults'}),
        el('ul', {className: 'defaults'}, ...s.defaults.map(d => el('li', {}, d.name + ' = ' + JSON.stringify(d.value) + ' ', el('span', {className: 'place', textContent: d.place || ''})))));
    }
    parts.push(el('h3', {textContent: 'templates'}));
    s.templates.forEach(t => {
      const b = el('button', {type: 'button', textContent: 'edit ' + t.side + ' template'});
      b.addEventListener('click', () => openTemplate(t.side));
      parts.push(el('div', {}, t.side + ': ' + t.name + ' ', el('span', {className: 'place', textContent: t.place || ''}), ' ', b));
    });
    const actions = el('div', {className: 'actions'});
    const newId = el('input', {placeholder: 'new item id', size: 14});
    for (const [label, op] of [['duplicate', 'duplicate'], ['remove', 'remove'], ['add new', 'add']]) {
      const b = el('button', {type: 'button', textContent: label});
      b.addEventListener('click', () => edit({op, new_id: newId.value}));
      actions.append(b);
    }
    actions.append(' ', newId);
    parts.push(el('h3', {textContent: 'item'}), actions, el('div', {id: 'message'}));
    parts.push(el('h3', {textContent: 'problems'}), s.problems.length ? el('ul', {className: 'problems'},
      ...s.problems.map(p => el('li', {className: 'problem ' + p.level, textContent: p.text}))) : el('p', {className: 'hint', textContent: 'none'}), el('div', {id: 'live-problems'}));
    inspector.replaceChildren(...parts);
  }

  status.addEventListener('click', () => { showWarnings = !showWarnings; showProblems(status.classList.contains('broken')); });  // the warnings, listed
  undoButton.addEventListener('click', async () => {
    try { const a = await post('undo', {}); say('undone: ' + a.file); } catch (e) { say(e.message, true); status.textContent = e.message; }
  });

  // ---------------------------------------------------------------- the template pane

  const pane = $('template-pane'), text = $('template-text'), gutter = $('gutter');
  let editing = null, timer = null, drawnUrl = null;

  function numberLines(bad) {
    const n = text.value.split('\n').length;
    gutter.replaceChildren(...Array.from({length: n}, (_, i) => el('div', {className: bad.has(i + 1) ? 'bad' : '', textContent: String(i + 1)})));
    gutter.scrollTop = text.scrollTop;
  }
  text.addEventListener('scroll', () => { gutter.scrollTop = text.scrollTop; });

  async function openTemplate(side) {
    try {
      const t = await get('template', {group: selected.group, item: selected.item, side});
      editing = Object.assign({side, lang: selected.lang, group: selected.group, item: selected.item}, t);
      $('template-name').textContent = t.name;
      $('template-file').textContent = t.file + (t.writable ? '' : ' · ' + t.why);
      $('template-save').disabled = !t.writable;
      text.value = t.text;
      pane.hidden = false;
      numberLines(new Set());
      draw();
    } catch (e) { say(e.message, true); }
  }

  async function draw() {
    const sent = text.value;
    try {
      const d = await post('draw', {lang: editing.lang, group: editing.group, item: editing.item, side: editing.side, name: editing.name, text: sent});
      if (sent !== text.value) return;  // typed on meanwhile: the next draw shows it
      if (d.svg) {
        if (drawnUrl) URL.revokeObjectURL(drawnUrl);
        drawnUrl = URL.createObjectURL(new Blob([d.svg], {type: 'image/svg+xml'}));
        $('template-face').src = drawnUrl;
      }
      $('template-face').classList.toggle('stale', !d.svg);  // the last face drawn, greyed
      numberLines(new Set(d.problems.map(p => p.at).filter(Boolean)));
      $('template-problems').replaceChildren(...d.problems.map(p => el('li', {textContent: (p.at ? 'line ' + p.at + ': ' : '') + p.text})));
      $('template-status').textContent = d.problems.length ? d.problems.length + ' problem(s)' : 'drawn';
    } catch (e) { $('template-status').textContent = e.message; }
  }

  text.addEventListener('input', () => { numberLines(new Set()); clearTimeout(timer); timer = setTimeout(draw, 250); });
  $('template-close').addEventListener('click', () => { pane.hidden = true; });
  $('template-save').addEventListener('click', async () => {
    try {
      const a = await post('save-template', {group: editing.group, item: editing.item, side: editing.side, name: editing.name, text: text.value});
      $('template-status').textContent = 'saved to ' + a.file + ' · rebuilding…';
    } catch (e) { $('template-status').textContent = e.message; }
  });

  poll();
})();
