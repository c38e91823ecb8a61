// The demo page: calls the wasm exports of web/src/lib.rs (built into pkg/ by scripts/web.sh),
// shows each result and draws the merge path. `window.demo` lets the browser test drive it.
import init, * as wgmerge from "./pkg/wgmerge_web.js";

const $ = (id) => document.getElementById(id);

function setStatus(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function option(select, value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label ?? value;
  select.append(o);
}

function showResult(r) {
  const row = $("results").tBodies[0].insertRow();
  const cells = [r.operation, r.key, r.order, r.sizes, r.gpu_ms.toFixed(1), r.cpu_ms.toFixed(1)];
  for (const text of cells) row.insertCell().textContent = text;
  const verdict = row.insertCell();
  verdict.textContent = r.correct ? "correct" : `WRONG ${r.detail}`;
  verdict.className = r.correct ? "ok" : "bad";
}

async function runOne(operation, key, order, size, seed) {
  let report;
  try {
    report = JSON.parse(await wgmerge.run(operation, key, order, size, seed));
  } catch (e) {
    report = { operation, key, order, sizes: "", gpu_ms: NaN, cpu_ms: NaN,
               correct: false, detail: `error: ${e.message ?? e}` };
  }
  showResult(report);
  return report;
}

// Every operation with every key type, alternating the order, on `size` keys.
async function runAll(size = 100000) {
  const reports = [];
  let n = 0;
  for (const op of JSON.parse(wgmerge.operations())) {
    for (const key of JSON.parse(wgmerge.key_types())) {
      const order = n % 2 ? "descending" : "ascending";
      setStatus("running", `running ${op.id} ${key} ${order}…`);
      reports.push(await runOne(op.id, key, order, size, 1000 + n));
      n += 1;
    }
  }
  const wrong = reports.filter((r) => !r.correct).length;
  setStatus(wrong ? "failed" : "done",
            wrong ? `${wrong} of ${reports.length} runs wrong` : `all ${reports.length} runs correct`);
  return reports;
}

const PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];

function draw(p) {
  const canvas = $("path");
  const cell = 26, left = 44, top = 44;
  const aLen = p.a.length, bLen = p.b.length;
  canvas.width = left + aLen * cell + 20;
  canvas.height = top + bLen * cell + 20;
  const g = canvas.getContext("2d");
  g.font = "11px system-ui, sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  const x = (i) => left + i * cell;
  const y = (j) => top + j * cell;

  // Cells where A[i] > B[j]: the stable merge takes B there first.
  g.fillStyle = "#eee";
  for (let i = 0; i < aLen; i++)
    for (let j = 0; j < bLen; j++)
      if (p.a[i] > p.b[j]) g.fillRect(x(i), y(j), cell, cell);
  g.strokeStyle = "#ccc";
  g.lineWidth = 1;
  for (let i = 0; i <= aLen; i++) { g.beginPath(); g.moveTo(x(i), y(0)); g.lineTo(x(i), y(bLen)); g.stroke(); }
  for (let j = 0; j <= bLen; j++) { g.beginPath(); g.moveTo(x(0), y(j)); g.lineTo(x(aLen), y(j)); g.stroke(); }
  g.fillStyle = "#222";
  p.a.forEach((key, i) => g.fillText(key, x(i) + cell / 2, top - 12));
  p.b.forEach((key, j) => g.fillText(key, left - 14, y(j) + cell / 2));
  g.fillText("A →", left - 14, top - 26);
  g.fillText("B ↓", left - 26, top - 12);

  // Co-rank diagonals i + j = k of each workgroup's first output.
  g.setLineDash([4, 4]);
  g.strokeStyle = "#999";
  for (const s of p.workgroup_splits) {
    const i0 = Math.min(s.k, aLen), i1 = Math.max(0, s.k - bLen);
    g.beginPath(); g.moveTo(x(i0), y(s.k - i0)); g.lineTo(x(i1), y(s.k - i1)); g.stroke();
  }
  g.setLineDash([]);

  // The path, coloured by the workgroup that wrote each output.
  const tile = p.workgroup_size * p.items_per_thread;
  let i = 0, j = 0;
  g.lineWidth = 4;
  p.from_b.forEach((fromB, k) => {
    g.strokeStyle = PALETTE[Math.floor(k / tile) % PALETTE.length];
    g.beginPath(); g.moveTo(x(i), y(j));
    if (fromB) j++; else i++;
    g.lineTo(x(i), y(j)); g.stroke();
  });

  for (const s of p.invocation_splits) {
    g.fillStyle = "#222";
    g.beginPath(); g.arc(x(s.i), y(s.j), 3.5, 0, 2 * Math.PI); g.fill();
  }
  p.workgroup_splits.forEach((s, w) => {
    g.fillStyle = w < p.workgroup_splits.length - 1 ? PALETTE[w % PALETTE.length] : "#222";
    g.beginPath(); g.arc(x(s.i), y(s.j), 7, 0, 2 * Math.PI); g.fill();
    g.strokeStyle = "#fff"; g.lineWidth = 2; g.stroke();
  });
}

async function drawMergePath() {
  const value = (id) => Number($(id).value);
  const p = JSON.parse(await wgmerge.merge_path(value("path-a"), value("path-b"), value("path-wg"),
                                                value("path-ipt"), value("path-seed")));
  draw(p);
  const groups = p.workgroup_splits.length - 1;
  $("path-result").innerHTML = `${groups} workgroup${groups === 1 ? "" : "s"} of ${p.workgroup_size} ` +
    `invocations × ${p.items_per_thread} outputs; GPU result ` +
    (p.correct ? '<span class="ok">correct</span>' : '<span class="bad">WRONG</span>');
  return p;
}

async function main() {
  await init();
  const adapter = JSON.parse(await wgmerge.open());
  // Browsers leave wgpu's adapter name empty; WebGPU's own GPUAdapterInfo says more.
  const info = (await navigator.gpu?.requestAdapter())?.info;
  if (info) adapter.browser = [info.vendor, info.architecture, info.description].filter(Boolean).join(" ");
  $("adapter").textContent = `Adapter: ${adapter.name || adapter.browser || "(unnamed)"} · ${adapter.backend}`;
  for (const op of JSON.parse(wgmerge.operations())) option($("operation"), op.id, op.label);
  for (const key of JSON.parse(wgmerge.key_types())) option($("key"), key);
  $("run").onclick = async () => {
    setStatus("running", "running…");
    const r = await runOne($("operation").value, $("key").value, $("order").value,
                           Number($("size").value), Number($("seed").value));
    setStatus(r.correct ? "done" : "failed", r.correct ? "correct" : "wrong");
  };
  $("run-all").onclick = () => runAll(Number($("size").value));
  $("draw").onclick = drawMergePath;
  $("controls").disabled = $("path-controls").disabled = false;
  await drawMergePath();
  setStatus("ready", "Ready.");
  return adapter;
}

const ready = main().catch((e) => {
  setStatus("error", `error: ${e.message ?? e}`);
  $("adapter").textContent = "No WebGPU adapter: this page needs a browser with WebGPU enabled.";
  throw e;
});
window.demo = { ready, runAll, drawMergePath };
