// The page of `commanalyzer ... --html FILE` (and index.html under --out):
// renders the estimate embedded in the page, the JSON document --json
// writes (report.h, write_json), in <script id="estimate">. Every number
// shown is one of that document's or a sum of them; Chart.js, inlined
// before this script, draws the plots, and the pair matrices and owner
// maps are drawn on canvases here. html_report.cc assembles the page.
//
// The page marks its state for tests and readers alike: #report-done when
// everything is drawn (data-charts: how many Chart.js charts), #report-error
// with the message when any script fails.
(function () {
  'use strict';

  const data = JSON.parse(document.getElementById('estimate').textContent);
  const root = document.getElementById('report');
  const estimates = data.procs;
  const iterations = data.iterations;
  Chart.defaults.animation = false;
  Chart.defaults.font.family = 'sans-serif';

  // ---- small helpers -------------------------------------------------------

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  // As the terminal report writes sizes (report.h, human_bytes).
  function humanBytes(bytes) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let unit = 0;
    while (bytes >= 1024 && unit < 4) {
      bytes /= 1024;
      ++unit;
    }
    return unit === 0 ? `${bytes.toFixed(0)} B` : `${bytes.toFixed(2)} ${units[unit]}`;
  }

  const microseconds = (seconds) => (seconds * 1e6).toFixed(2);
  const perIteration = (x) => (iterations > 0 ? x / iterations : x);
  // 30 or 0.5: counts per iteration without a useless ".0" (report.h, count).
  const count = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
  const sum = (values) => values.reduce((a, b) => a + b, 0);
  // The numbers of the text report and of a --distribution map, and the
  // variable and allocation site: "#1 u (heat.c:31)".
  const arrayName = (id) => {
    const name = (data.array_names || [])[id - 1];
    return name ? `#${id} ${name}` : `#${id}`;
  };

  function table(header, rows, attributes) {
    return el('table', attributes || {},
      el('thead', {}, el('tr', {}, ...header.map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows.map((row) => el('tr', row.attributes || {}, ...row.cells.map((c) => el('td', {}, c))))));
  }

  function section(title, ...children) {
    return el('section', {}, el('h2', {}, title), ...children);
  }

  let charts = [];  // the detail view's Chart.js charts, destroyed when another count is chosen
  function chart(parent, config, height) {
    const canvas = el('canvas', {});
    parent.append(el('div', { class: 'chart', style: `height: ${height || 280}px` }, canvas));
    config.options = Object.assign({ responsive: true, maintainAspectRatio: false }, config.options || {});
    return new Chart(canvas, config);
  }

  function axis(title, extra) {
    return Object.assign({ title: { display: true, text: title }, beginAtZero: true }, extra || {});
  }

  // ---- colours ----------------------------------------------------------------

  // White = nothing, dark blue = the peak, on a square-root scale so small
  // halos stay visible (the SVG heatmaps of --out use the same).
  function heat(t) {
    return [Math.round(255 - 247 * t), Math.round(255 - 207 * t), Math.round(255 - 148 * t)];
  }

  // One colour per process; the golden angle keeps neighbours apart (as the
  // owner map SVGs).
  function rankColour(rank) {
    const hue = (rank * 137.508) % 360;
    return `hsl(${hue.toFixed(0)},65%,${45 + 15 * (rank % 2)}%)`;
  }

  // ---- the summary, the table and the plots against P ------------------------

  function summary() {
    const facts = `value instances ${data.values}, value-flow chains ${data.flows}, graph ${data.vertices} vertices / ` +
      `${data.edges} edges, ${data.singletons} singleton${data.singletons === 1 ? '' : 's'}` +
      (iterations > 0 ? `, ${iterations} iterations` : '');
    const shapes = new Map();
    for (const e of estimates) for (const [array, dims] of e.array_shapes || []) shapes.set(array, dims.join(' x '));
    const arrays = data.arrays.map(([bytes, indirect], k) => ({
      cells: [arrayName(k + 1), bytes, humanBytes(bytes), shapes.get(k + 1) || '', indirect ? 'yes' : 'no'],
    }));
    return section('Program', el('p', {}, facts),
      arrays.length === 0 ? el('p', {}, 'No arrays recorded.') :
        table(['array (allocation order)', 'bytes', '', 'grid shape (elements)', 'indexed indirectly'], arrays,
              { id: 'arrays-table' }));
  }

  function candidatesText(e) {
    return Object.entries(e.candidates || {}).map(([name, c]) =>
      `${name} ${c.bytes} / ${microseconds(c.seconds)} us`).join(', ');
  }

  const iterationCount = (k) => (k === 1 ? 'iteration' : `${k} iterations`);

  // The candidates' costs are projected from the learning window where there was one.
  function learnedNote() {
    const learned = Math.max(0, ...estimates.map((e) => e.learned_iterations || 0));
    return learned > 0 ? ` on the whole run projected from the region's first ${iterationCount(learned)}; its totals are the whole run's` : '';
  }

  function processTable() {
    const header = ['procs', 'total bytes', 'p2p bytes', 'collective bytes', 'messages', 'collectives'];
    if (iterations > 0) header.push('bytes/iteration');
    header.push('time (us)');
    if (iterations > 0) header.push('us/iteration');
    header.push('total', 'distribution', 'candidates (total bytes / predicted us)');
    const rows = estimates.map((e) => {
      const cells = [e.n, e.total_bytes, e.p2p_bytes, e.collective_bytes, e.messages, e.broadcasts + e.allreduces];
      if (iterations > 0) cells.push(e.per_iteration_bytes.toFixed(0));
      cells.push(microseconds(e.seconds));
      if (iterations > 0) cells.push((e.seconds * 1e6 / iterations).toFixed(3));
      cells.push(humanBytes(e.total_bytes), e.distribution || 'by value (--ownership=value)', candidatesText(e));
      return { cells, attributes: { 'data-procs': e.n } };
    });
    return section('Per process count', table(header, rows, { id: 'procs-table' }),
      el('p', { class: 'note' }, 'Total = point-to-point + collectives, logical volume (a Bcast of m bytes counts ' +
        '(N-1)m, an Allreduce 2(N-1)m). Collectives: broadcast and allreduced values. The distribution kept is the ' +
        'candidate predicted to run fastest' + learnedNote() + '.'));
  }

  function plotsAgainstProcs() {
    const part = section('Against the process count');
    const grid = el('div', { class: 'pair' });
    part.append(grid);
    const labels = estimates.map((e) => e.n);
    const line = (label, values, colour) => ({ label, data: values, borderColor: colour, backgroundColor: colour });
    chart(grid, {
      type: 'line',
      data: { labels, datasets: [
        line('total bytes', estimates.map((e) => e.total_bytes), '#1f4e8c'),
        line('point-to-point bytes', estimates.map((e) => e.p2p_bytes), '#3a9d5d'),
        line('collective bytes', estimates.map((e) => e.collective_bytes), '#d08a1c')] },
      options: { plugins: { title: { display: true, text: 'bytes' } },
                 scales: { x: axis('processes'), y: axis('bytes') } },
    });
    chart(grid, {
      type: 'line',
      data: { labels, datasets: [line('predicted communication time (us)', estimates.map((e) => e.seconds * 1e6), '#8c1f4e')] },
      options: { plugins: { title: { display: true, text: 'predicted communication time' } },
                 scales: { x: axis('processes'), y: axis('microseconds') } },
    });
    return part;
  }

  // ---- one process count in detail -------------------------------------------

  // A P x P matrix as a heatmap: sender rows, receiver columns, at most
  // `size` pixels a side (larger matrices show each pixel's largest entry),
  // rank numbers every `step` ranks so that they never overlap, a colour
  // scale, and the entry under the pointer.
  function heatmap(parent, matrix, n, what, unit) {
    const size = Math.min(576, Math.max(240, n * 18));
    const margin = { left: 44, top: 30 };
    const shown = Math.min(n, size);
    const cell = size / shown;
    const binned = new Float64Array(shown * shown);
    let peak = 0;
    for (let i = 0; i < n; ++i) {
      const row = matrix[i];
      const bi = Math.floor(i * shown / n) * shown;
      for (let j = 0; j < n; ++j) {
        const v = row[j];
        const b = bi + Math.floor(j * shown / n);
        if (v > binned[b]) binned[b] = v;
        if (v > peak) peak = v;
      }
    }
    const canvas = el('canvas', { class: 'heatmap', width: size + margin.left + 10, height: size + margin.top + 10,
                                  'data-peak': peak, 'data-procs': n });
    const ctx = canvas.getContext('2d');
    ctx.font = '11px sans-serif';
    // Numbers every `step` ranks, a power of two, wide enough for the widest.
    const widest = ctx.measureText(String(n - 1)).width + 6;
    let step = 1;
    while (step * (size / n) < Math.max(widest, 14)) step *= 2;
    canvas.setAttribute('data-label-step', step);
    for (let b = 0; b < shown * shown; ++b) {
      const [r, g, bl] = heat(peak === 0 ? 0 : Math.sqrt(binned[b] / peak));
      ctx.fillStyle = `rgb(${r},${g},${bl})`;
      ctx.fillRect(margin.left + (b % shown) * cell, margin.top + Math.floor(b / shown) * cell, Math.ceil(cell), Math.ceil(cell));
    }
    ctx.strokeStyle = '#999';
    ctx.strokeRect(margin.left, margin.top, size, size);
    ctx.fillStyle = '#000';
    ctx.textAlign = 'center';
    for (let k = 0; k < n; k += step) ctx.fillText(String(k), margin.left + (k + 0.5) * size / n, margin.top - 6);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let k = 0; k < n; k += step) ctx.fillText(String(k), margin.left - 4, margin.top + (k + 0.5) * size / n);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText('receiver', margin.left, 11);
    ctx.save();
    ctx.translate(11, margin.top + size / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'center';
    ctx.fillText('sender', 0, 0);
    ctx.restore();

    const readout = el('div', { class: 'readout' }, `${what}: point at a cell`);
    canvas.addEventListener('mousemove', (event) => {
      const i = Math.floor((event.offsetY - margin.top) * n / size), j = Math.floor((event.offsetX - margin.left) * n / size);
      if (i < 0 || j < 0 || i >= n || j >= n) return;
      readout.textContent = `${what}: ${i} -> ${j}: ${matrix[i][j]} ${unit}`;
    });
    parent.append(el('div', { class: 'figure' }, el('h3', {}, `${what}, ${n} processes (peak ${peak} ${unit})`), canvas,
                     colourScale(peak, unit), readout));
  }

  function colourScale(peak, unit) {
    const width = 240;
    const canvas = el('canvas', { class: 'scale', width: width + 60, height: 34 });
    const ctx = canvas.getContext('2d');
    for (let x = 0; x < width; ++x) {
      const [r, g, b] = heat(x / (width - 1));
      ctx.fillStyle = `rgb(${r},${g},${b})`;
      ctx.fillRect(10 + x, 2, 1, 14);
    }
    ctx.strokeStyle = '#999';
    ctx.strokeRect(10, 2, width, 14);
    ctx.fillStyle = '#000';
    ctx.font = '10px sans-serif';
    ctx.textAlign = 'center';
    for (const t of [0, 0.25, 0.5, 0.75, 1]) {  // square-root scale: the colour at t is peak * t^2
      const value = peak * t * t;
      ctx.fillText(value >= 10 ? value.toFixed(0) : String(+value.toPrecision(2)), 10 + t * width, 28);
    }
    return el('div', { class: 'scale' }, canvas, el('span', { class: 'note' }, ` ${unit}, square-root scale`));
  }

  // Per rank: point-to-point bytes sent (row sums) and received (column
  // sums), and how far the busiest is from the mean.
  function perRank(parent, e) {
    const n = e.n;
    const sent = e.matrix.map((row) => sum(row));
    const received = new Array(n).fill(0);
    for (const row of e.matrix) row.forEach((v, j) => { received[j] += v; });
    const imbalance = (values) => {
      const mean = sum(values) / values.length;
      const most = Math.max(...values), least = Math.min(...values);
      return mean === 0 ? ['-', '-', '-', '-'] :
        [least, most, values.indexOf(most), `${(least / mean).toFixed(2)}..${(most / mean).toFixed(2)}x`];
    };
    const rows = [
      { cells: ['point-to-point bytes sent', ...imbalance(sent)] },
      { cells: ['point-to-point bytes received', ...imbalance(received)] },
    ];
    if (e.process_work.some((w) => w > 0)) rows.push({ cells: ['work (values computed)', ...imbalance(e.process_work)] });
    if (e.process_memory.some((b) => b > 0)) rows.push({ cells: ['array bytes owned', ...imbalance(e.process_memory)] });
    parent.append(el('h3', {}, `Per process (${n} processes)`),
      el('p', {}, 'point-to-point in all: ', el('span', { id: 'rank-total' }, sum(sent)), ' bytes'),
      table(['', 'least', 'most', 'busiest rank', 'least..most, the mean = 1'], rows, { id: 'balance-table' }));
    chart(parent, {
      type: 'bar',
      data: { labels: sent.map((_, k) => k), datasets: [
        { label: 'sent (bytes)', data: sent, backgroundColor: '#1f4e8c' },
        { label: 'received (bytes)', data: received, backgroundColor: '#3a9d5d' }] },
      options: { plugins: { title: { display: true, text: 'point-to-point bytes per rank' } },
                 scales: { x: axis('rank'), y: axis('bytes') } },
    });
  }

  // Point-to-point message sizes: each size when few, else powers of two.
  function messageSizes(parent, e) {
    const sizes = e.message_sizes || [];
    const messages = sum(sizes.map(([, k]) => k));
    let labels, counts;
    if (sizes.length <= 16) {
      labels = sizes.map(([bytes]) => humanBytes(bytes));
      counts = sizes.map(([, k]) => k);
    } else {
      const bins = new Map();
      for (const [bytes, k] of sizes) {
        const low = 2 ** Math.floor(Math.log2(Math.max(bytes, 1)));
        bins.set(low, (bins.get(low) || 0) + k);
      }
      const lows = [...bins.keys()].sort((a, b) => a - b);
      labels = lows.map((low) => `${humanBytes(low)}..${humanBytes(2 * low - 1)}`);
      counts = lows.map((low) => bins.get(low));
    }
    parent.append(el('h3', {}, 'Message sizes'),
      el('p', {}, el('span', { id: 'histogram-messages' }, messages), ' point-to-point messages, ',
         `${e.collective_calls} collective call${e.collective_calls === 1 ? '' : 's'}`));
    chart(parent, {
      type: 'bar',
      data: { labels, datasets: [{ label: 'point-to-point messages', data: counts, backgroundColor: '#1f4e8c' }] },
      options: { plugins: { title: { display: true, text: 'point-to-point messages by size' } },
                 scales: { x: axis('message size'), y: axis('messages') } },
    });
  }

  // Bytes and predicted time per iteration (the last phase is what follows
  // the last iteration mark).
  function phases(parent, e) {
    if (e.phase_bytes.length === 0) return;
    const labels = e.phase_bytes.map((_, k) => (k + 1 === e.phase_bytes.length && iterations > 0 ? 'after' : k));
    parent.append(el('h3', {}, iterations > 0 ? 'Per iteration' : 'In the region'));
    chart(parent, {
      type: 'bar',
      data: { labels, datasets: [
        { label: 'bytes', data: e.phase_bytes, backgroundColor: '#1f4e8c', yAxisID: 'y' },
        { label: 'predicted time (us)', data: e.phase_seconds.map((s) => s * 1e6), type: 'line',
          borderColor: '#8c1f4e', backgroundColor: '#8c1f4e', yAxisID: 'time' }] },
      options: { plugins: { title: { display: true, text: 'bytes and predicted time per iteration' } },
                 scales: { x: axis('iteration'), y: axis('bytes'),
                           time: axis('microseconds', { position: 'right', grid: { drawOnChartArea: false } }) } },
    });
  }

  // "before the loop at f.c:45 (line 48)", as the text report's "where".
  function place(site, after) {
    const base = (path) => path.substring(path.lastIndexOf('/') + 1);
    if (site.line === 0) return 'at a source site without debug information';
    if (site.loop_line === 0) return `at ${base(site.file)}:${site.line}`;
    const statement = site.file === site.loop_file ? `line ${site.line}` : `${base(site.file)}:${site.line}`;
    return `${after ? 'after' : 'before'} the loop at ${base(site.loop_file)}:${site.loop_line} (${statement})`;
  }

  function where(parent, e) {
    const sites = e.sites || [];
    if (sites.length === 0) return;
    const unit = iterations > 0 ? ' per iteration' : '';
    const rows = [];
    for (const s of sites) {
      const arrays = s.arrays.map(arrayName).join(', ');
      if (s.p2p_bytes > 0) {
        rows.push({ cells: [place(s, false), 'exchange', arrays, s.partners, count(perIteration(s.p2p_bytes)),
                            count(perIteration(s.p2p_messages)), s.file ? `${s.file}:${s.line}` : ''] });
      }
      if (s.allreduces > 0) {
        rows.push({ cells: [place(s, true), 'allreduce', '', '', count(perIteration(s.allreduce_bytes)),
                            count(perIteration(s.allreduces)), s.file ? `${s.file}:${s.line}` : ''] });
      }
      if (s.broadcasts > 0) {
        rows.push({ cells: [place(s, false), 'broadcast', '', '', count(perIteration(s.broadcast_bytes)),
                            count(perIteration(s.broadcasts)), s.file ? `${s.file}:${s.line}` : ''] });
      }
    }
    parent.append(el('h3', {}, `Where (${e.n} processes${unit})`),
      table(['place', 'what', 'values of arrays', 'up to neighbours', `bytes${unit}`, `messages or calls${unit}`,
             'statement'], rows, { id: 'where-table' }));
    const shown = rows.slice(0, 20);
    const label = (r) => {
      const text = `${r.cells[1]} ${r.cells[0]}`;
      return text.length > 70 ? `${text.substring(0, 69)}…` : text;
    };
    chart(parent, {
      type: 'bar',
      data: { labels: shown.map(label),
              datasets: [{ label: `bytes${unit}`, data: shown.map((r) => Number(r.cells[4])), backgroundColor: '#1f4e8c' }] },
      options: { indexAxis: 'y', plugins: { title: { display: true, text: `bytes by site${unit}` } },
                 scales: { x: axis(`bytes${unit}`), y: { ticks: { autoSkip: false } } } },
    }, 100 + 36 * shown.length);
  }

  // The kept owner map, one picture per array: a grid for a 2-D array, the
  // middle plane of a 3-D one (sampled to at most 256 x 256 cells), a strip
  // of elements otherwise; grey where the region touched nothing.
  function ownerMaps(parent, e) {
    const runs = new Map();
    for (const [array, first, last, rank] of e.owner_map || []) {
      if (!runs.has(array)) runs.set(array, []);
      runs.get(array).push([first, last, rank]);
    }
    if (runs.size === 0) return;
    const shapes = new Map(e.array_shapes || []);
    parent.append(el('h3', {}, `Owner maps (${e.n} processes, ${e.distribution})`));
    const row = el('div', { class: 'maps' });
    parent.append(row);
    for (const [array, list] of runs) {
      list.sort((a, b) => a[0] - b[0]);
      row.append(ownerMap(array, list, shapes.get(array) || [list[list.length - 1][1] + 1]));
    }
  }

  // `list`: the array's runs [first, last, rank] in order; `dims`: its shape.
  function ownerMap(array, list, dims) {
    const owner = (i) => {  // binary search over the runs
      let lo = 0, hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid][0] <= i) lo = mid + 1; else hi = mid;
      }
      return lo > 0 && list[lo - 1][1] >= i ? list[lo - 1][2] : -1;
    };
    const grid = dims.length === 2 || dims.length === 3;
    const rows = grid ? dims[dims.length - 2] : 1, cols = grid ? dims[dims.length - 1] : dims.reduce((a, b) => a * b, 1);
    const plane = dims.length === 3 ? Math.floor(dims[0] / 2) : 0;
    const offset = plane * rows * cols;
    const shownRows = Math.min(rows, 256), shownCols = Math.min(cols, grid ? 256 : 512);
    const cellWidth = Math.max(1, Math.floor((grid ? 384 : 512) / (grid ? Math.max(shownRows, shownCols) : shownCols)));
    const cellHeight = grid ? cellWidth : 24;
    const element = (r, c) => offset + Math.floor(r * rows / shownRows) * cols + Math.floor(c * cols / shownCols);
    const canvas = el('canvas', { class: 'owners', width: cellWidth * shownCols, height: cellHeight * shownRows,
                                  'data-array': array });
    const ctx = canvas.getContext('2d');
    const seen = new Set();
    for (let r = 0; r < shownRows; ++r) {
      for (let c = 0; c < shownCols; ++c) {
        const rank = owner(element(r, c));
        if (rank >= 0) seen.add(rank);
        ctx.fillStyle = rank < 0 ? '#dddddd' : rankColour(rank);
        ctx.fillRect(c * cellWidth, r * cellHeight, cellWidth, cellHeight);
      }
    }
    canvas.setAttribute('data-ranks', seen.size);
    const readout = el('div', { class: 'readout' }, 'point at an element');
    canvas.addEventListener('mousemove', (event) => {
      const i = element(Math.floor(event.offsetY / cellHeight), Math.floor(event.offsetX / cellWidth));
      const rank = owner(i);
      const where = grid ? ` (row ${Math.floor((i - offset) / cols)}, column ${(i - offset) % cols})` : '';
      readout.textContent = `element ${i}${where}: ` + (rank < 0 ? 'not touched in the region' : `rank ${rank}`);
    });
    const shape = dims.length > 1 ? dims.join(' x ') : `${cols} elements`;
    const title = `array ${arrayName(array)} (${shape})` + (dims.length === 3 ? `, plane ${plane} of ${dims[0]}` : '');
    return el('div', { class: 'figure' }, el('h4', {}, title), canvas, readout);
  }

  function candidates(parent, e) {
    const entries = Object.entries(e.candidates || {});
    if (entries.length === 0) return;
    // Projected from the region's first iterations (the learning window), if so.
    const over = e.learned_iterations > 0 ? `, projected from the first ${iterationCount(e.learned_iterations)}` : '';
    parent.append(el('h3', {}, `Candidate distributions (${e.n} processes${over})`),
      table(['distribution', 'total bytes', 'predicted time (us)', 'computation (us)', 'exchange (us)', ''],
        entries.map(([name, c]) => ({
          cells: [name, c.bytes, microseconds(c.seconds), microseconds(c.compute_seconds),
                  microseconds(c.exchange_seconds), name === e.distribution ? 'kept' : ''],
          attributes: name === e.distribution ? { class: 'kept' } : {},
        })), { id: 'candidates-table' }));
  }

  function detail(container, e) {
    for (const c of charts) c.destroy();
    charts = [];
    const before = Object.keys(Chart.instances).length;
    container.replaceChildren();
    const maps = el('div', { class: 'pair' });
    container.append(maps);
    heatmap(maps, e.matrix, e.n, 'point-to-point bytes', 'B');
    heatmap(maps, e.messages_matrix, e.n, 'point-to-point messages', 'messages');
    perRank(container, e);
    messageSizes(container, e);
    phases(container, e);
    where(container, e);
    ownerMaps(container, e);
    candidates(container, e);
    charts = Object.values(Chart.instances).slice(before);
  }

  function details() {
    const part = section('One process count');
    const largest = estimates.reduce((a, b) => (b.n > a.n ? b : a));
    const select = el('select', { id: 'procs-select' },
      ...estimates.map((e) => el('option', e === largest ? { value: e.n, selected: '' } : { value: e.n }, e.n)));
    const container = el('div', { id: 'detail' });
    select.addEventListener('change', () => detail(container, estimates.find((e) => String(e.n) === select.value)));
    part.append(el('p', {}, 'processes: ', select), container);
    root.append(part);
    detail(container, largest);
  }

  // ---- the page --------------------------------------------------------------

  root.replaceChildren();
  if (estimates.length === 0) {
    root.append(el('p', {}, 'No estimate (no process count could be estimated).'));
  } else {
    root.append(summary(), processTable(), plotsAgainstProcs());
    details();
  }
  document.body.append(el('div', { id: 'report-done', 'data-charts': Object.keys(Chart.instances).length }));
})();
