// The browser test's driver (tests/e2e/html_report_e2e_test.cc runs it): opens an HTML report in
// headless Chromium (Debian's `chromium`, or $PIPETTE_CHROMIUM) with puppeteer-core, waits for its
// charts, keeps a screenshot, and prints what it saw as one JSON object on standard output:
//   {"declared": N (the page's <meta name="pipette-charts">), "rendered": the chart elements drawn,
//    "console": [every console message of type error or warning, and every page error],
//    "requests": [the URL of every request the page made], "title": the document's title,
//    "sorted": the summary's `test` column after a click on its heading,
//    "visible": the summary's lines left after typing FILTER in the filter box}
// It judges nothing: the test asserts.
// Usage: node check-report.mjs REPORT.html SCREENSHOT.png [FILTER]
import puppeteer from "puppeteer-core";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [report, screenshot, filter = "tg"] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error("usage: node check-report.mjs REPORT.html SCREENSHOT.png");
  process.exit(2);
}
const url = pathToFileURL(path.resolve(report)).href;
const browser = await puppeteer.launch({
  executablePath: process.env.PIPETTE_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
});
const seen = { console: [], requests: [] };
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warn") seen.console.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => seen.console.push(`pageerror: ${e.message}`));
  page.on("request", (r) => seen.requests.push(r.url()));
  await page.goto(url, { waitUntil: "load", timeout: 120000 });
  const declared = await page.$eval('meta[name="pipette-charts"]', (m) => Number(m.content));
  // Every chart draws asynchronously (vega-embed): wait until each holds its drawing or says it
  // failed, or 60 s.
  await page
    .waitForFunction(
      () =>
        Array.from(document.querySelectorAll(".pipette-chart")).every(
          (el) => el.querySelector("svg") || el.textContent.includes("could not be drawn"),
        ),
      { timeout: 60000, polling: 200 },
    )
    .catch(() => {});
  const rendered = await page.$$eval(".pipette-chart svg.marks", (els) => els.length);
  const title = await page.title();
  await page.screenshot({ path: screenshot, fullPage: true });
  // As a reader uses the summary: a click on the `test` heading, then a word typed in the filter.
  let sorted = null;
  let visible = null;
  const column = await page.$$eval("#summary-table thead th", (ths) =>
    ths.map((th) => th.textContent).indexOf("test"),
  );
  if (column >= 0) {
    await page.click(`#summary-table thead th:nth-child(${column + 1})`);
    sorted = await page.$$eval(
      "#summary-table tbody tr",
      (rows, c) => rows.map((r) => r.cells[c].textContent),
      column,
    );
    await page.type("#filter", filter);
    visible = await page.$$eval("#summary-table tbody tr", (rows) =>
      rows.filter((r) => !r.hidden).map((r) => r.textContent),
    );
  }
  process.stdout.write(
    JSON.stringify({ declared, rendered, title, sorted, visible, ...seen }) + "\n",
  );
} finally {
  await browser.close();
}
