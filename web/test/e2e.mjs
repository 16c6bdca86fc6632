// Drives the built page (web/dist) in headless Chromium (tests/web.rs runs
// it): node web/test/e2e.mjs CONFIG.json, where CONFIG gives
//   dist, chromium: paths; screenshot: where to save the picture;
//   expect: { stdout, virtual1, virtual4 }: what the native binary printed
//   and its virtual times for sumEuler 1 2000 100 on 1 and 4 simulated PEs.
// Prints one JSON line of measurements; exits 1 with the failures listed.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const config = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const failures = [];
const check = (ok, what) => {
  if (!ok) failures.push(what);
};

// A static server, as `python3 -m http.server` would be.
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };
const server = http.createServer((req, res) => {
  let p = path.join(config.dist, decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (p.endsWith("/")) p += "index.html";
  fs.readFile(p, (err, data) => {
    if (err) {
      res.writeHead(404);
      res.end();
    } else {
      res.writeHead(200, { "content-type": types[path.extname(p)] || "text/plain" });
      res.end(data);
    }
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: config.chromium,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});
const measured = {};
// Where the driver got to, for a failure's message.
let stage = "start";
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on("pageerror", (e) => failures.push("page error: " + e.stack));
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("status").textContent === "ready", null, { timeout: 60000 });
  measured.load_ms = Date.now() - t0;

  const output = () => page.evaluate(() => document.getElementById("out").textContent);
  const run = async (pes) => {
    await page.selectOption("#pes", pes);
    await page.click("#run");
    await page.waitForFunction(() => !document.getElementById("run").disabled && /^exit/.test(document.getElementById("status").textContent), null, { timeout: 120000 });
    return page.evaluate(() => window.gphLastResult);
  };

  // sumEuler on 1 and 4 simulated PEs: the native binary's output and
  // virtual times.
  await page.fill("#args", "1 2000 100");
  const r1 = await run("1");
  measured.first_result_ms = Date.now() - t0;
  check((await output()) === config.expect.stdout, `1 PE: output ${JSON.stringify(await output())}`);
  check(r1.stats_json.virtual_time_s === config.expect.virtual1, `1 PE: virtual time ${r1.stats_json.virtual_time_s} != ${config.expect.virtual1}`);
  measured.sumeuler_1pe_ms = r1.ms;
  const r4 = await run("4");
  check((await output()) === config.expect.stdout, `4 PEs: output ${JSON.stringify(await output())}`);
  check(r4.stats_json.virtual_time_s === config.expect.virtual4, `4 PEs: virtual time ${r4.stats_json.virtual_time_s} != ${config.expect.virtual4}`);
  await page.click('.tabs button[data-tab="profile"]');
  check(await page.locator("#svg svg").count() === 1, "no profile picture");
  await page.screenshot({ path: config.screenshot });

  stage = "share";
  // A shared link carries the program: a new page opened on it has it.
  await page.click("#share");
  const link = page.url();
  check(/#p=/.test(link), "Share put nothing in the URL");
  const other = await browser.newPage();
  await other.goto(link);
  await other.waitForFunction(() => document.getElementById("status").textContent === "ready", null, { timeout: 60000 });
  const shared = await other.evaluate(() => document.querySelector(".cm-content").innerText);
  check(shared.includes("sumTotient"), "the shared link did not carry the program");
  await other.close();
  stage = "lesson";
  // A lesson's page, its picture, and an example one click away.
  await page.click("text=3 GUM");
  await page.waitForSelector("#lesson img");
  check(await page.evaluate(() => document.querySelector("#lesson img").complete && document.querySelector("#lesson img").naturalWidth > 0), "the lesson's picture did not load");
  check(await page.locator("#lesson button.try").count() > 0, "no example to try in the lesson");
  stage = "trap";
  // A program too deep for the browser's stack stops the module cleanly;
  // the next run works.
  const long = "main = print (length [" + Array.from({ length: 3000 }, (_, i) => i).join(",") + "])\n";
  await page.evaluate((s) => window.gphSetSource(s), long);
  await page.click("#run");
  await page.waitForFunction(() => /the interpreter stopped/.test(document.getElementById("out").textContent), null, { timeout: 60000 });
  stage = "type error";
  // A type error is marked in the editor.
  await page.evaluate(() => window.gphSetSource("main = print (1 + True)\n"));
  await page.click("#run");
  await page.waitForFunction(() => /^exit 1/.test(document.getElementById("status").textContent), null, { timeout: 60000 });
  check(await page.locator(".cm-diag-error").count() > 0, "the type error is not marked");
  check(/no instance for `Num Bool`/.test(await output()), "no type error message");

  stage = "repl";
  // The REPL: a query, the stepper's Next, and Stop.
  await page.click('.tabs button[data-tab="repl"]');
  const transcript = () => page.evaluate(() => document.getElementById("transcript").textContent);
  const say = async (line) => {
    const done = await page.evaluate(() => window.gphReplDone);
    await page.fill("#line", line);
    await page.press("#line", "Enter");
    await page.waitForFunction((n) => window.gphReplDone > n, done, { timeout: 60000 });
  };
  await say(":type map");
  check((await transcript()).includes("map :: (a -> b) -> [a] -> [b]"), ":type map");
  await say("let double x = x + x");
  await say(":step double (1 + 2)");
  const before = (await transcript()).length;
  const done = await page.evaluate(() => window.gphReplDone);
  await page.click("#next");
  await page.waitForFunction((n) => window.gphReplDone > n, done, { timeout: 60000 });
  check((await transcript()).length > before, "Next did not advance the stepper");
  stage = "graph";
  await say(":graph take 3 (cycle [1, 2])");
  check(await page.locator("#transcript svg.graph").count() === 1, ":graph drew no picture");
  stage = "stop";
  await page.fill("#line", "length [1..]");
  await page.press("#line", "Enter");
  await page.waitForTimeout(1500);
  check(!(await page.isDisabled("#stop")), "Stop is not offered during a long evaluation");
  const progress = await page.evaluate(() => document.getElementById("status").textContent);
  check(/virtual .* reductions/.test(progress), "no progress during a long evaluation: " + progress);
  await page.click("#stop");
  await page.waitForFunction(() => document.getElementById("transcript").textContent.includes("Interrupted."), null, { timeout: 10000 });
  await say("double 21");
  check((await transcript()).trimEnd().endsWith("42"), "the session did not survive Stop: " + (await transcript()).slice(-200));
  stage = "recording";
  // The last evaluation's recording: the profile drawn, the eventlog to download.
  await say(":profile p.svg");
  check(await page.locator("#transcript svg.graph").count() === 2, ":profile drew no picture");
  await say(":eventlog e.eventlog");
  check(await page.locator('#transcript a[download="e.eventlog"]').count() === 1, ":eventlog gave nothing to download");
  await page.screenshot({ path: config.screenshot.replace(/\.png$/, "-repl.png") });
} catch (e) {
  failures.push(`driver, at ${stage}: ${e.message}`);
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(measured));
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
