// The browser test: loads the served demo in headless Chromium (WebGPU on SwiftShader where
// there is no GPU), runs every operation with every key type, draws the merge path and fails
// unless every GPU result matched the CPU reference. Saves a screenshot.
//
//   node web/test.mjs <url> <screenshot.png> [keys per run]
import { chromium } from "playwright-core";

const [url, screenshot, size = "30001"] = process.argv.slice(2);
if (!url || !screenshot) {
  console.error("usage: node web/test.mjs <url> <screenshot.png> [keys per run]");
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    // WebGPU over SwiftShader's Vulkan where there is no GPU.
    "--enable-features=Vulkan",
    "--use-webgpu-adapter=swiftshader",
    // This machine's network is closed: no background connections.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
  ],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("console", (m) => console.log(`[page ${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => {
    console.log(`[page error] ${e}`);
    failed = true;
  });
  await page.goto(url);
  const adapter = await page.evaluate(() => window.demo.ready);
  console.log(`adapter: ${JSON.stringify(adapter)}`);

  const reports = await page.evaluate((n) => window.demo.runAll(n), Number(size));
  for (const r of reports) {
    console.log(`${r.correct ? "ok   " : "WRONG"} ${r.operation.padEnd(22)} ${r.key} ${r.order.padEnd(10)} ` +
                `${r.sizes} keys, gpu ${Number(r.gpu_ms).toFixed(1)} ms ${r.detail}`);
  }
  const wrong = reports.filter((r) => !r.correct);
  if (reports.length === 0 || wrong.length > 0) {
    console.log(`${wrong.length} of ${reports.length} runs wrong`);
    failed = true;
  }

  const picture = await page.evaluate(() => window.demo.drawMergePath());
  const groups = picture.workgroup_splits.length - 1;
  console.log(`merge path: ${picture.a.length} + ${picture.b.length} keys, ${groups} workgroups, ` +
              `${picture.invocation_splits.length} invocation splits, GPU ${picture.correct ? "correct" : "WRONG"}`);
  if (!picture.correct || groups < 2 || picture.from_b.length !== picture.a.length + picture.b.length) {
    failed = true;
  }
  await page.locator("#path").scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`screenshot: ${screenshot}`);
} finally {
  await browser.close();
}
console.log(failed ? "browser test FAILED" : "browser test passed");
process.exit(failed ? 1 : 0);
